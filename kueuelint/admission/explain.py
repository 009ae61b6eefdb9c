"""What a dry admission has to say about each queued workload, every figure taken from the
simulation's end state, so that the reports (``report.admission_json``, ``report.admission_text``)
and ``review`` only format or compare it."""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.admission.assignment import Assignment
from kueuelint.admission.flavors import FlavorAssigner
from kueuelint.admission.model import ADMITTED, FIT, INADMISSIBLE, PENDING, PREEMPTING, Pending
from kueuelint.admission.model import Target
from kueuelint.admission.run import Result
from kueuelint.admission.scheduler import Outcome
from kueuelint.admission.tas import NO_NODES

NOT_EVALUATED = "not evaluated within the simulated cycles"


@dataclass
class Hints:
    """What would make a workload waiting for quota fit."""

    free: dict[str, dict[str, int]]       # flavor -> resource -> quota its queue could use now
    fits_with_count: int | None = None    # the most pods of its single pod set that fit now


@dataclass
class Explanation:
    workload: Pending
    result: str                            # a model.Decision
    reason: str
    message: str
    cycle: int | None = None               # the cycle that decided; None: never evaluated
    preempts: list[Target] = field(default_factory=list)
    # The flavors of an admitted or preempting workload; ``placed``: with its topology
    # assignment (an admitted workload's; Kueue records none for a preemptor).
    shown: Assignment | None = None
    placed: bool = False
    admission_checks: list[str] = field(default_factory=list)     # what an admitted one waits for
    check_states: list[dict] | None = None     # how its check-capacity checks stand
    borrowed: dict[str, dict[str, int]] | None = None     # its queue's usage above nominal
    queue_status: str | None = None        # why its ClusterQueue is inactive
    hints: Hints | None = None


@dataclass
class Explained:
    workloads: list[Explanation]
    preempted: list[Target]                # each victim once, first preemption first
    warnings: list[str]


@dataclass
class QuotaRow:
    """One line of the quota table; None: no such limit."""

    node: str                              # cq/NAME or cohort/NAME
    flavor: str
    resource: str
    nominal: int
    borrowing_limit: int | None
    lending_limit: int | None
    used: int
    borrowed: int
    free: int


def explain(result: Result) -> Explained:
    workloads = [_explanation(result, wl) for wl in result.pending]
    seen, preempted = set(), []
    for target in result.preempted:
        if target.workload.key not in seen:
            seen.add(target.workload.key)
            preempted.append(target)
    return Explained(workloads, preempted, list(result.warnings) + _unplaced_warning(workloads))


def _unplaced_warning(workloads: list[Explanation]) -> list[str]:
    """One line when TAS workloads were admitted on quota alone, for want of nodes."""
    count = sum(1 for w in workloads if w.shown and any(ps.topology == NO_NODES for ps in w.shown.pod_sets))
    if not count:
        return []
    return [f"{count} workload(s) admitted on quota alone, {NO_NODES}; add the output of "
            "`kubectl get nodes,pods -A -o json` to the snapshot to check placement"]


def _explanation(result: Result, wl: Pending) -> Explanation:
    outcome = result.outcomes.get(wl.key)
    if outcome is None:     # never reached the head of its queue within the cycles simulated
        return Explanation(wl, PENDING, "Pending", NOT_EVALUATED)
    shown = outcome.assignment if outcome.result in (ADMITTED, PREEMPTING) else None
    found = Explanation(wl, outcome.result, outcome.reason, outcome.message, outcome.cycle, outcome.preempts,
                        shown, outcome.result == ADMITTED)
    cq = result.state.queues.get(outcome.cluster_queue or "")
    if cq is None:
        return found
    if outcome.result == ADMITTED and shown is not None:
        _admitted_details(result, outcome, shown, found)
    if outcome.result == INADMISSIBLE and cq.inactive:
        found.queue_status = cq.inactive
    if outcome.result == PENDING and cq.inactive is None:
        found.hints = hints(result, wl, cq)
    return found


def _admitted_details(result: Result, outcome: Outcome, shown: Assignment, found: Explanation) -> None:
    cq = result.state.queues[outcome.cluster_queue or ""]
    found.admission_checks = cq.checks_on(shown.flavors_used())
    if found.admission_checks and found.workload.key in result.checks:
        found.check_states = result.checks[found.workload.key]
    if shown.borrowing:
        found.borrowed = borrowed(result, cq.name, shown)


def borrowed(result: Result, queue: str, assignment: Assignment) -> dict[str, dict[str, int]]:
    """How much of the queue's usage lies above its nominal quota, per flavor and resource."""
    tree = result.state.tree
    found: dict[str, dict[str, int]] = {}
    for (flavor, resource) in sorted(assignment.usage):
        amount = tree.borrowed(queue, (flavor, resource))
        if amount:
            found.setdefault(flavor, {})[resource] = amount
    return found


def hints(result: Result, wl: Pending, cq) -> Hints:
    """What would make the workload fit: free quota now, and the largest count that fits."""
    tree = result.state.tree
    resources = {r for ps in wl.pod_sets for r in ps.per_pod}
    if cq.covers("pods"):
        resources.add("pods")
    free: dict[str, dict[str, int]] = {}
    for group in cq.groups:
        for resource in sorted(resources & set(group.resources)):
            for flavor in group.flavors:
                free.setdefault(flavor, {})[resource] = tree.available(cq.name, (flavor, resource))
    return Hints(free, largest_fitting_count(result, wl, cq))


def largest_fitting_count(result: Result, wl: Pending, cq) -> int | None:
    """For a single-pod-set workload: the most pods that would fit without preemption now."""
    if len(wl.pod_sets) != 1 or wl.pod_sets[0].count <= 1:
        return None
    assigner = FlavorAssigner(result.state, cq, wl)
    low, high, best = 1, wl.pod_sets[0].count - 1, None
    while low <= high:
        middle = (low + high) // 2
        if assigner.assign([middle]).mode == FIT:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best


def quota_rows(result: Result) -> list[QuotaRow]:
    """Every ClusterQueue's and Cohort's quota and usage per flavor and resource, at the end."""
    tree = result.state.tree
    rows = []
    for name in sorted(tree.queues):
        node = tree.queues[name]
        for fr in sorted(set(node.quotas) | set(node.usage)):
            quota = node.quotas.get(fr)
            rows.append(QuotaRow(f"cq/{name}", fr[0], fr[1], quota.nominal if quota else 0,
                                 quota.borrowing_limit if quota else None, quota.lending_limit if quota else None,
                                 node.usage.get(fr, 0), tree.borrowed(name, fr), tree.available(name, fr)))
    for name in sorted(tree.cohorts):
        node = tree.cohorts[name]
        for fr in sorted(set(node.subtree) | set(node.usage)):
            subtree, usage = node.subtree.get(fr, 0), node.usage.get(fr, 0)
            rows.append(QuotaRow(f"cohort/{name}", fr[0], fr[1], subtree, None, None, usage,
                                 max(0, usage - subtree), max(0, subtree - usage)))
    return rows
