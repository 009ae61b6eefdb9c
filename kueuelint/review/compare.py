"""The fate of every workload under two queue setups, and each queue's quota and usage change.

Both setups are simulated on the same workloads (the snapshot's and the repository's jobs)
through the dry admission's public entry, ``kueuelint.admission.admit``, and compared by
workload key. What the comparison adds follows Kueue v0.19's cache and scheduler:

* Kueue never evicts an admitted workload because quota shrank or a ClusterQueue moved: its
  usage stays recorded, the queue's available quota goes negative (``available`` in
  pkg/cache/scheduler/resource_node.go says so), the scheduler sees it as zero, and nothing
  new is admitted there until enough usage is released (``over-admitted`` below);
* a ClusterQueue in a cohort whose usage of a flavor/resource is above its nominal quota is
  borrowing, and its workloads become candidates for reclamation by cohort members under
  their nominal quota (``cqIsBorrowing`` in pkg/scheduler/preemption/preemption.go): a
  workload that lands there is *newly preemptible*;
* a workload whose every flavor is refused for reasons no freed quota can change
  (``NoMatchingFlavor``, ``ExceedsMaxQuota``) or whose queue cannot admit at all is *never
  admissible* under that setup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kueuelint.accounting.quota import FR, flavor_resource
from kueuelint.review.deltas import Placement, QuotaRow, over_admitted, placements, quota_rows
from kueuelint.review.setup import QueueSetup, read_setup
from kueuelint.review.usage import WORKLOAD, SnapshotUsage, add_usage, read_usage

if TYPE_CHECKING:
    from kueuelint.admission.explain import Explained, Explanation

HOLDING = ("running", "admitted", "preempting")      # states that hold (or will hold) quota
NEVER_REASONS = ("NoMatchingFlavor", "ExceedsMaxQuota")
SETUP_GROUPS = ("kueue.x-k8s.io", "scheduling.k8s.io", "node.k8s.io")
SETUP_CORE_KINDS = ("Namespace", "LimitRange", "ConfigMap")
FATE_FLAGS = ("stranded", "never-admissible", "preempted", "newly-preemptible", "started", "flavor-changed")
FAIL_ON = {"stranded": ("stranded", "never-admissible"), "preempted": ("preempted", "newly-preemptible")}


@dataclass
class Standing:
    """Where a workload ends up under one setup."""
    state: str = "absent"       # running | admitted | preempting | pending | inadmissible | preempted | absent
    cluster_queue: str | None = None
    flavors: dict[str, str] = field(default_factory=dict)
    usage: dict[FR, int] = field(default_factory=dict)
    reason: str = ""
    message: str = ""
    preemptible: bool = False

    @property
    def never(self) -> bool:
        return self.state == "inadmissible" or (self.state == "pending" and self.reason in NEVER_REASONS)


@dataclass
class Fate:
    workload: str
    source: dict
    before: Standing
    after: Standing
    flags: list[str] = field(default_factory=list)


@dataclass
class Review:
    fates: list[Fate]
    quotas: list[QuotaRow]
    placements: list[Placement]
    over_admitted: list[tuple[str, str, str]]       # (kind, name, flavor/resource) after the change
    warnings: list[str]
    setups: tuple[QueueSetup, QueueSetup]
    usage_after: dict[str, dict[FR, int]] = field(default_factory=dict)   # per ClusterQueue, after the change
    waiting_after: dict[str, int] = field(default_factory=dict)           # per ClusterQueue
    findings: list = field(default_factory=list)    # check findings on the after setup
    skipped: int = 0        # snapshot Workloads out of the change's reach: not simulated, same fate

    def compared(self) -> int:
        return len(self.fates) + self.skipped

    def changed(self) -> list[Fate]:
        return [fate for fate in self.fates if fate.flags]

    def counts(self) -> dict[str, int]:
        return {flag: sum(1 for f in self.fates if flag in f.flags) for flag in FATE_FLAGS}

    def fails(self, fail_on: str) -> bool:
        if fail_on == "any":
            errors = any(str(finding.severity) == "error" for finding in self.findings)
            return bool(self.changed() or self.quotas or self.placements or errors)
        return any(flag in fate.flags for fate in self.fates for flag in FAIL_ON[fail_on])

    def changed_roots(self) -> set[str]:
        """The cohort trees (by root; a ClusterQueue alone stands for itself) the change touched."""
        roots = set()
        for setup in self.setups:
            for row in self.quotas:
                roots.add(_root_of(setup, row.kind, row.name))
            for moved in self.placements:
                roots.add(_root_of(setup, moved.kind, moved.name))
            for fate in self.changed():
                for standing in (fate.before, fate.after):
                    if standing.cluster_queue:
                        roots.add(_root_of(setup, "ClusterQueue", standing.cluster_queue))
        return {root for root in roots if root}


def _root_of(setup: QueueSetup, kind: str, name: str) -> str | None:
    if kind == "Cohort":
        return setup.root_of(name) if name in setup.cohorts else None
    cq = setup.cluster_queues.get(name)
    if cq is None:
        return None
    return setup.root_of(cq.parent) if cq.parent else name


def split_setup(objects: list) -> tuple[list, list]:
    """(queue setup objects, workload sources): what a side defines, and what it submits."""
    setup, workloads = [], []
    for obj in objects:
        is_setup = (obj.group in SETUP_GROUPS and obj.kind != "Workload") or \
                   (obj.group == "" and obj.kind in SETUP_CORE_KINDS)
        (setup if is_setup else workloads).append(obj)
    return setup, workloads


def _identity(obj) -> tuple:
    return obj.group, obj.kind, obj.namespace, obj.name


def compare(before: list, after: list, snapshot: list, jobs: int | None = None,
            every_workload: bool = False) -> Review:
    """Simulate ``snapshot`` with the objects of ``before``, then of ``after``, and compare.
    The sides' setup objects replace those of the snapshot with the same identity, and an
    object the after side no longer has is gone from its cluster too. Snapshot Workloads of
    cohort trees the change cannot reach are left out of both simulations (their fate is the
    same on both sides) unless ``every_workload`` asks for each one's fate."""
    before_setup, before_jobs = split_setup(before)
    after_setup, after_jobs = split_setup(after)
    replaced = {_identity(obj) for obj in before_setup + after_setup}
    kept = [obj for obj in snapshot if _identity(obj) not in replaced]
    setups = (read_setup(kept + before_setup), read_setup(kept + after_setup))
    kept, skipped = _within_reach(kept, before_setup, after_setup, setups, every_workload)
    sides = []
    warnings: list[str] = []
    from kueuelint.admission import admit

    for setup, setup_objects, incoming in zip(setups, (before_setup, after_setup), (before_jobs, after_jobs)):
        _, explained = admit(kept + setup_objects, incoming, None, jobs)
        warnings += [w for w in explained.warnings if w not in warnings]
        sides.append((setup, explained))
    review = _review(sides, read_usage(kept), warnings)
    review.skipped = skipped
    return review


def _within_reach(snapshot: list, before_setup: list, after_setup: list, setups, every_workload: bool):
    """The snapshot without the Workloads of trees the change cannot reach, and how many left."""
    from kueuelint.review.scope import changed_objects, touched_queues, workload_queues

    changed = None if every_workload else changed_objects(before_setup, after_setup)
    if changed is None:
        return snapshot, 0
    touched = touched_queues(changed, setups)
    kept = [obj for obj in snapshot if obj.key != WORKLOAD or workload_queues(obj, setups) & touched]
    return kept, len(snapshot) - len(kept)


def _review(sides, usage: SnapshotUsage, warnings: list[str]) -> Review:
    (setup_b, explained_b), (setup_a, explained_a) = sides
    standing_b, standing_a = _standings(explained_b, usage), _standings(explained_a, usage)
    held = usage.per_queue()
    totals_b, totals_a = _queue_usage(standing_b, held, usage), _queue_usage(standing_a, held, usage)
    _mark_preemptible(standing_b, totals_b, setup_b)
    _mark_preemptible(standing_a, totals_a, setup_a)
    sources = {h.key: h.source for h in usage.holders}
    sources.update((e.workload.key, e.workload.source or {})
                   for explained in (explained_b, explained_a) for e in explained.workloads)
    fates = []
    for key in sorted(set(standing_b) | set(standing_a)):
        fate = Fate(key, sources.get(key, {"kind": "Workload"}), standing_b.get(key, Standing()),
                    standing_a.get(key, Standing()))
        fate.flags = _flags(fate.before, fate.after)
        fates.append(fate)
    rows = quota_rows(setup_b, setup_a, totals_b, totals_a)
    waiting: dict[str, int] = {}
    for standing in standing_a.values():
        if standing.state == "pending" and standing.cluster_queue:
            waiting[standing.cluster_queue] = waiting.get(standing.cluster_queue, 0) + 1
    return Review(fates, rows, placements(setup_b, setup_a), over_admitted(setup_a, totals_a),
                  warnings, (setup_b, setup_a), totals_a, waiting)


def _standings(explained: Explained, usage: SnapshotUsage) -> dict[str, Standing]:
    # the holders' flavor and usage dicts are shared by both sides: nothing changes them
    found = {h.key: Standing("running", h.cluster_queue, h.flavors, h.usage) for h in usage.holders}
    judged = {found.workload.key: _standing_of(found) for found in explained.workloads}
    found.update(judged)
    for victim in explained.preempted:
        # a preempted holder is queued again: it counts as preempted unless admitted anew
        standing = found.get(victim.workload.key)
        again = judged.get(victim.workload.key)
        if standing is not None and (again is None or again.state not in HOLDING):
            standing.state, standing.reason = "preempted", victim.reason
    return found


def _standing_of(found: Explanation) -> Standing:
    flavors: dict[str, str] = {}
    usage: dict[FR, int] = {}
    for pod_set in found.shown.pod_sets if found.shown else ():
        for resource, flavor in sorted(pod_set.flavors.items()):
            flavors[resource] = flavor
            amount = pod_set.usage.get(resource, 0)
            if amount:
                add_usage(usage, {flavor_resource(flavor, resource): amount})
    return Standing(found.result, found.workload.cluster_queue, flavors, usage, found.reason or "",
                    found.message or "")


def _queue_usage(standings: dict[str, Standing], held: dict[str, dict[FR, int]],
                 usage: SnapshotUsage) -> dict[str, dict[FR, int]]:
    """Usage per ClusterQueue at the end of a simulation: the snapshot's holders (``held``),
    less those that no longer run as they did, plus the workloads admitted."""
    totals = {name: dict(amounts) for name, amounts in held.items()}
    holders = {h.key: h for h in usage.holders}
    for key, standing in standings.items():
        if standing.state == "running":
            continue
        holder = holders.get(key)
        if holder is not None:
            add_usage(totals[holder.cluster_queue], holder.usage, -1)
        if standing.state in HOLDING and standing.cluster_queue:
            add_usage(totals.setdefault(standing.cluster_queue, {}), standing.usage)
    return totals


def _mark_preemptible(standings: dict[str, Standing], totals: dict[str, dict[FR, int]], setup: QueueSetup) -> None:
    """A quota holder is open to reclamation when its queue, in a cohort, uses more than its
    nominal quota of a flavor/resource the holder uses."""
    borrowing: dict[str, set[FR]] = {}
    for name, used in totals.items():
        cq = setup.cluster_queues.get(name)
        if cq is not None and cq.parent:
            quotas = cq.quotas()
            borrowing[name] = {fr for fr, amount in used.items()
                               if amount > (quotas[fr].nominal if fr in quotas else 0)}
    for standing in standings.values():
        if standing.state in HOLDING and standing.cluster_queue in borrowing:
            standing.preemptible = bool(borrowing[standing.cluster_queue] & set(standing.usage))


def _flags(before: Standing, after: Standing) -> list[str]:
    held_before, held_after = before.state in HOLDING, after.state in HOLDING
    flags = []
    if after.never and not before.never and before.state != "absent":
        flags.append("never-admissible")
    if held_before and not held_after and after.state != "absent":
        flags.append("preempted" if after.state == "preempted" else "stranded")
    if held_after and after.preemptible and not (held_before and before.preemptible):
        flags.append("newly-preemptible")
    if held_after and not held_before and before.state != "absent":
        flags.append("started")
    if held_before and held_after and before.flavors != after.flavors:
        flags.append("flavor-changed")
    return flags
