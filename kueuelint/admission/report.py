"""The versioned JSON contract and the per-workload explanation of a dry admission."""

from __future__ import annotations

from kueuelint.accounting.quantity import format_quantity
from kueuelint.admission.flavors import Assignment, FlavorAssigner
from kueuelint.admission.model import FIT, Pending
from kueuelint.admission.run import Result
from kueuelint.admission.tas import NO_NODES

VERSION = 1
QUOTA_RESULTS = ("pending",)


def to_json(result: Result, incoming_only: bool = False) -> dict:
    workloads = [_workload_json(result, wl) for wl in result.pending]
    seen, preempted = set(), []
    for target in result.preempted:
        if target.workload.key not in seen:
            seen.add(target.workload.key)
            preempted.append({"workload": target.workload.key, "reason": target.reason})
    data = {"version": VERSION, "cycles": result.cycles, "workloads": workloads, "preempted": preempted}
    warnings = list(result.warnings) + _unplaced_warning(workloads)
    if warnings:
        data["warnings"] = warnings
    return data


def _unplaced_warning(workloads: list[dict]) -> list[str]:
    """One line when TAS workloads were admitted on quota alone, for want of nodes."""
    count = sum(1 for w in workloads if any(ps.get("topology") == NO_NODES for ps in w["podSets"]))
    if not count:
        return []
    return [f"{count} workload(s) admitted on quota alone, {NO_NODES}; add the output of "
            "`kubectl get nodes,pods -A -o json` to the snapshot to check placement"]


def _workload_json(result: Result, wl: Pending) -> dict:
    outcome = result.outcomes.get(wl.key)
    entry = {"workload": wl.key, "source": wl.source, "localQueue": wl.queue_name,
             "clusterQueue": wl.cluster_queue}
    if outcome is None:     # never reached the head of its queue within the cycles simulated
        entry.update(result="pending", podSets=[], borrowing=False, preempts=[], reason="Pending",
                     message="not evaluated within the simulated cycles")
        return entry
    entry["result"] = outcome.result
    shown = outcome.assignment if outcome.result in ("admitted", "preempting") else None
    entry["podSets"] = pod_sets_json(shown, outcome.result == "admitted") if shown else []
    entry["borrowing"] = bool(shown and shown.borrowing > 0)
    entry["preempts"] = [{"workload": t.workload.key, "reason": t.reason} for t in outcome.preempts]
    entry["reason"] = outcome.reason
    entry["message"] = outcome.message
    entry["cycle"] = outcome.cycle          # the scheduling cycle that decided this state
    cq = result.state.queues.get(outcome.cluster_queue or "")
    checks = cq.checks_on(shown.flavors_used()) if outcome.result == "admitted" and cq is not None and shown else []
    if checks:
        entry["admissionChecks"] = checks
        if wl.key in result.checks:
            entry["admissionCheckStates"] = result.checks[wl.key]
    if outcome.result == "admitted" and shown is not None and shown.borrowing:
        entry["borrowed"] = borrowed_json(result, outcome.cluster_queue, shown)
    if outcome.result == "inadmissible" and cq is not None and cq.inactive:
        entry["clusterQueueStatus"] = cq.inactive
    if outcome.result in QUOTA_RESULTS and cq is not None and cq.inactive is None:
        entry["hints"] = hints(result, wl, cq)
    return entry


def pod_sets_json(assignment: Assignment, placed: bool = True) -> list[dict]:
    """The pod sets of an assignment; ``placed``: with their topology assignment (an admitted
    workload's; Kueue records none for a preemptor)."""
    listed = []
    for ps in assignment.pod_sets:
        entry = {"name": ps.name, "count": ps.count, "flavors": dict(sorted(ps.flavors.items())),
                 "usage": {r: format_quantity(r, v) for r, v in sorted(ps.usage.items())}}
        if isinstance(ps.topology, str):
            entry["topology"] = ps.topology
        elif ps.topology is not None and placed:
            entry["topologyAssignment"] = ps.topology.as_json()
        listed.append(entry)
    return listed


def borrowed_json(result: Result, queue: str, assignment: Assignment) -> dict:
    """How much of the queue's usage lies above its nominal quota, per flavor and resource."""
    tree = result.state.tree
    borrowed: dict[str, dict[str, str]] = {}
    for (flavor, resource) in sorted(assignment.usage):
        amount = tree.borrowed(queue, (flavor, resource))
        if amount:
            borrowed.setdefault(flavor, {})[resource] = format_quantity(resource, amount)
    return borrowed


def hints(result: Result, wl: Pending, cq) -> dict:
    """What would make the workload fit: free quota now, and the largest count that fits."""
    tree = result.state.tree
    resources = {r for ps in wl.pod_sets for r in ps.per_pod}
    if cq.covers("pods"):
        resources.add("pods")
    free: dict[str, dict[str, str]] = {}
    for group in cq.groups:
        for resource in sorted(resources & set(group.resources)):
            for flavor in group.flavors:
                amount = tree.available(cq.name, (flavor, resource))
                free.setdefault(flavor, {})[resource] = format_quantity(resource, amount)
    found = {"free": free}
    count = largest_fitting_count(result, wl, cq)
    if count is not None:
        found["fitsWithCount"] = count
    return found


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
