"""Kueue's scheduling cycles (kueue-scheduler.md §0, §4.3-4.4, §6.1), simulated on a State."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kueuelint.accounting.quota import FR
from kueuelint.admission.assignment import Assignment
from kueuelint.admission.flavors import FlavorAssigner
from kueuelint.admission.model import (ADMITTED, FIT, NO_FIT, PENDING, PREEMPTING, PREEMPTION_REASONS, Admitted,
                                       ClusterQueue, Pending, constructor_args)
from kueuelint.admission.preemption import Target, find_targets, oracle
from kueuelint.admission.queues import STRICT, WorkloadQueue
from kueuelint.index.selectors import selects_namespace
from kueuelint.admission.state import State, UsageLedger
from kueuelint.admission.whatif import available_after

# A victim may win its quota back and be preempted again; when it is preempted once more than
# this, its cohort tree is caught in a preemption ping-pong that would run forever: the tree's
# simulation stops after that cycle (as the recording of Kueue's own decisions does).
MAX_REQUEUES = 3
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
OVERLAPPING = "Workload has overlapping preemption targets with another workload"
BYPASSED = "Bypassed scheduling evaluation because an equivalent workload recently failed"
NAMESPACE_MISMATCH = "workload namespace doesn't match ClusterQueue selector"


@dataclass
class Outcome:
    """Where a workload stands after the simulated cycles."""

    result: str                              # a model.Decision
    reason: str
    message: str
    cluster_queue: str | None = None
    # The flavors found; kept for admitted and preempting workloads only (what the report
    # shows), which also keeps the results a forked simulator sends back small.
    assignment: Assignment | None = None
    preempts: list[Target] = field(default_factory=list)
    cycle: int = 0

    def __reduce__(self) -> tuple:
        # Pickled as the constructor's arguments, which unpickle faster than a state dict
        # (a child sends back one per workload of its trees; see Admitted.__reduce__).
        return Outcome, _outcome_args(self)


_outcome_args = constructor_args(Outcome)


@dataclass
class Entry:
    workload: Pending
    cq: ClusterQueue
    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)

    def __init__(self, workload: Pending, cq: ClusterQueue) -> None:     # see model's docstring
        self.workload, self.cq, self.assignment, self.targets = workload, cq, None, []

    def sort_key(self) -> tuple:
        borrowing = self.assignment.borrowing if self.assignment else 0
        wl = self.workload
        return (borrowing, -wl.priority, wl.timestamp, wl.seq)


class Simulator:
    """Runs the cycles for the ClusterQueues in ``names`` (all of them by default).

    Cohort trees never share quota or victims, so the queues of whole trees may be simulated
    apart (``partition``); ``ranks`` record where each preemption and warning falls in the
    order a single simulation of every tree would produce, to merge them back.
    """

    def __init__(self, state: State, namespaces: dict[str, dict] | None = None,
                 names: list[str] | None = None) -> None:
        self.state = state
        self.namespaces = namespaces or {}
        owned = state.queues if names is None else {name: state.queues[name] for name in names}
        state.read_holders(list(owned))
        self.queues: dict[str, WorkloadQueue] = {
            name: WorkloadQueue(cq.strategy) for name, cq in owned.items()}
        self._queue_index = {name: index for index, name in enumerate(state.queues)}
        self.outcomes: dict[str, Outcome] = {}
        self.preempted: list[Target] = []
        self.ranks: list[tuple] = []            # one per ``preempted`` target
        self.warning_ranks: list[tuple] = []    # one per warning
        self.cycles = 0
        self._oracle = oracle(state)
        # (queue, namespace) -> does the queue's namespaceSelector pick it; labels do not change.
        self._selected: dict[tuple[str, str], bool] = {}
        # How to queue again a preempted workload that came from the snapshot (set by the caller).
        self.requeue_lookup: Callable[[Admitted], Pending | None] = _no_requeue
        self.requeues: dict[str, int] = {}
        self._stopped: set[int] = set()         # roots of the trees stopped by a ping-pong
        self.warnings: list[str] = []
        self.on_cycle: Callable[[int], None] | None = None     # told each cycle's number
        # queue -> id of its cohort tree's root: who wakes up when quota is released.
        self._root_ids = {name: id(node.root()) for name, node in state.tree.queues.items()}
        # Trees whose last cycle changed something; None before the first cycle (all of them).
        self._active: set[int] | None = None
        # queue -> Kueue's AllocatableResourceGeneration: moves when a workload of the queue
        # is admitted or removed, which makes an older flavor-scan progress stale.
        self._generation: dict[str, int] = {}
        # root id -> (workload, scan progress) pairs its heads resumed from since the tree last
        # changed: a head back at a progress it had is scanning in a circle.
        self._scans_seen: dict[int, set[tuple]] = {}

    # --- driving ------------------------------------------------------------------------------

    def enqueue(self, workload: Pending) -> None:
        self.queues[workload.cluster_queue or ""].push(workload)

    def run(self, max_cycles: int | None = None, limit: int | None = None) -> int:
        """Cycles until nothing changes (or ``max_cycles``); returns the number simulated.
        ``limit`` replaces the safety limit (a partition takes the whole simulation's)."""
        limit = max_cycles if max_cycles is not None else limit or self.safety_limit()
        effective = 0
        for number in range(1, limit + 1):
            self.cycles = number
            if self.on_cycle is not None:
                self.on_cycle(number)
            if self.cycle():
                effective = number
            elif not self._active:
                break
        self.cycles = max(1, effective)
        return self.cycles

    def safety_limit(self) -> int:
        return safety_limit(sum(len(q) + len(q.inadmissible) for q in self.queues.values()))

    def cycle(self) -> bool:
        """One scheduling cycle; True when it changed anything."""
        self.state.frozen = True        # usage does not change while heads are nominated
        try:
            entries = [self._nominate(wl, self.state.queues[name]) for name, wl in self._heads()]
        finally:
            self.state.frozen = False
        entries.sort(key=self._rank)
        run = _Cycle(self.state.ledger())
        processed: dict[int, int] = {}      # root id -> entries of that tree processed so far
        while entries:
            entry = entries.pop(0) if not self.state.fair_sharing else self._fair_next(entries)
            root = self._root_ids.get(entry.cq.name, 0)
            processed[root] = processed.get(root, 0) + 1
            run.rank = self._fair_rank(entry, processed[root]) if self.state.fair_sharing else self._rank(entry)
            run.root = root
            self._process(entry, run)
        run.reserved.restore()
        if self.state.topology is not None:
            self.state.topology.end_cycle()
        self._release_victims(run)
        # A tree where nothing changed would repeat this cycle exactly, forever: nothing
        # outside it can change its usage or its queues, so it is done. Unless a head resumes
        # its flavor scan next cycle from a point it never had: that may find another flavor.
        for root in run.changed_roots:
            self._scans_seen.pop(root, None)
        self._active = run.changed_roots | (run.scanning_roots - run.changed_roots)
        return run.changed

    def _new_scan(self, root: int, wl: Pending, tried: list[dict[str, int]]) -> bool:
        """Is this a scan progress the workload has not had since its tree last changed?"""
        seen = self._scans_seen.setdefault(root, set())
        point = (wl.key, tuple(tuple(sorted(progress.items())) for progress in tried))
        if point in seen:
            return False
        seen.add(point)
        return True

    def _rank(self, entry: Entry) -> tuple:
        """Kueue's entry order, with the queue's position as the tie-break that the stable
        sort of the heads (taken in queue order) gives a single simulation."""
        return entry.sort_key() + (self._queue_index[entry.cq.name],)

    def _fair_rank(self, entry: Entry, number: int) -> tuple:
        """Fair sharing takes the trees one at a time, by root name (``pick_next``)."""
        node = self.state.tree.queues.get(entry.cq.name)
        root = node.root() if node is not None else None
        return (root is None or root.is_cluster_queue, root.name if root else "", number)

    def _fair_next(self, entries: list[Entry]) -> Entry:
        from kueuelint.admission.fairsharing import pick_next

        entry = pick_next(self.state, entries)
        entries.remove(entry)
        return entry

    def _heads(self) -> list[tuple[str, Pending]]:
        heads, active, stopped = [], self._active, self._stopped
        for name, queue in self.queues.items():
            root = self._root_ids.get(name, 0)
            if (active is not None and root not in active) or root in stopped:
                continue
            if self.state.queues[name].inactive is None:
                head = queue.pop()
                if head is not None:
                    heads.append((name, head))
        return heads

    # --- nomination ------------------------------------------------------------------------

    def _nominate(self, workload: Pending, cq: ClusterQueue) -> Entry:
        entry = Entry(workload, cq)
        if workload.invalid or not self._selects(cq, workload.namespace):
            return entry
        if workload.scan is not None and self._scan_outdated(workload.scan, cq.name):
            workload.scan = None
        entry.assignment, entry.targets = self.assign(workload, cq)
        return entry

    def _scan_outdated(self, scan: tuple, queue: str) -> bool:
        """Kueue's ``lastAssignmentOutdated``: progress from the cycle just before is kept
        (with the gate on); older progress only while the queue's generation has not moved."""
        if self.state.preserve_scan and self.cycles - scan[1] <= 1:
            return False
        return self._generation.get(queue, 0) > scan[2]

    def _keep_scan(self, wl: Pending, assignment: Assignment | None) -> None:
        """Record where the next cycle resumes the workload's flavor scan."""
        wl.scan = None if assignment is None else (
            assignment.tried, self.cycles, self._generation.get(wl.cluster_queue or "", 0))

    def _selects(self, cq: ClusterQueue, namespace: str) -> bool:
        known = self._selected.get((cq.name, namespace))
        if known is None:
            known = self._selected[cq.name, namespace] = selects_namespace(
                cq.namespace_selector, namespace, self.namespaces)
        return known

    def assign(self, workload: Pending, cq: ClusterQueue,
               pinned: list[dict[str, str]] | None = None) -> tuple[Assignment, list[Target]]:
        """Full counts first; then partial admission's binary search over reduced counts.
        ``pinned``: per pod set, the only flavor each resource may get."""
        assigner = FlavorAssigner(self.state, cq, workload, self._oracle,
                                  workload.scan[0] if workload.scan is not None else None, pinned)
        full = assigner.assign()
        targets = self._targets(workload, cq, full)
        if full.mode == FIT or targets:
            return full, targets
        deltas = [ps.count - ps.min_count if ps.min_count is not None else 0 for ps in workload.pod_sets]
        total = sum([d for d in deltas if d > 0])
        if total == 0:
            return full, targets
        low, high, found = 1, total, None
        while low <= high:
            k = (low + high) // 2
            counts = [ps.count - (max(0, d) * k) // total for ps, d in zip(workload.pod_sets, deltas)]
            attempt = assigner.assign(counts)
            attempt_targets = self._targets(workload, cq, attempt)
            if attempt.mode == FIT or attempt_targets:
                found, high = (attempt, attempt_targets), k - 1
            else:
                low = k + 1
        return found or (full, targets)

    def _targets(self, workload: Pending, cq: ClusterQueue, assignment: Assignment) -> list[Target]:
        if assignment.mode in (FIT, NO_FIT) or not assignment.preempt_frs:
            return []
        requests = {fr: assignment.usage[fr] for fr in assignment.preempt_frs}
        usage = assignment.usage if len(requests) < len(assignment.usage) else None
        if self.state.topology is not None:
            return self.state.topology.targets(
                cq, workload, assignment, lambda: find_targets(self.state, cq, workload, requests, usage))
        return find_targets(self.state, cq, workload, requests, usage)

    # --- processing ------------------------------------------------------------------------

    def _process(self, entry: Entry, run: _Cycle) -> None:
        if self.state.topology is not None:
            self._refit_topology(entry, run)
        wl, cq, assignment = entry.workload, entry.cq, entry.assignment
        queue = self.queues[cq.name]
        if assignment is None:
            self._record(wl, Outcome(PENDING, "Misconfigured", wl.invalid or NAMESPACE_MISMATCH, cq.name))
            if wl.invalid and queue.strategy == STRICT:
                # Kueue's RequeueIfNotPresent puts it straight back at the head (only a
                # namespace mismatch is parked): it blocks its queue, and nothing changed.
                queue.push(wl)
                return
            queue.requeue_failed(wl, namespace_mismatch=True)
            run.changed_roots.add(run.root)
        elif assignment.mode == NO_FIT or (assignment.mode < FIT and not entry.targets):
            self._not_fitting(entry, assignment, run)
        elif entry.targets:
            self._preempting(entry, assignment, run)
        elif not self._still_fits(assignment.usage, cq, run.freed):
            self._skipped(wl, assignment, NO_LONGER_FITS, run)
        else:
            self._admit(entry, assignment)
            run.changed_roots.add(run.root)

    def _refit_topology(self, entry: Entry, run: _Cycle) -> None:
        """Kueue's fit check before admitting or preempting (``fits``, with the cycle's victims
        and the entry's own gone): when an earlier workload of the cycle took the nodes of its
        placement, the assignment is computed again (TASRecomputeAssignmentWithinSchedulingCycle)
        and processed as it now stands, on the flavors it was nominated with (Kueue pins them:
        NominationMapping)."""
        assignment = entry.assignment
        if assignment is None or (assignment.mode != FIT and not entry.targets):
            return
        gone = run.targets + entry.targets
        if not self._still_fits(assignment.usage, entry.cq, _freed_with(run.freed, entry.targets)) \
                or self.state.topology.still_fits(entry.workload, assignment, [t.workload.key for t in gone]):
            return
        entry.workload.scan = None      # updateAssignmentIfNeeded: the scan starts over
        nominated = [dict(ps.flavors) for ps in assignment.pod_sets]
        entry.assignment, entry.targets = self.assign(entry.workload, entry.cq, nominated)

    def _skipped(self, wl: Pending, assignment: Assignment, message: str, run: _Cycle) -> None:
        """Kueue's ``markSkipped``: the head waits; its scan progress is kept with the gate on,
        and where flavors are left untried the next cycle may place it there."""
        self._record(wl, Outcome(PENDING, "WaitingForQuota", message, wl.cluster_queue))
        self._keep_scan(wl, assignment if self.state.preserve_scan else None)
        self.queues[wl.cluster_queue or ""].push(wl)
        if wl.scan is not None and assignment.flavors_untried() and self._new_scan(run.root, wl, assignment.tried):
            run.scanning_roots.add(run.root)

    def _not_fitting(self, entry: Entry, assignment: Assignment, run: _Cycle) -> None:
        wl, cq = entry.workload, entry.cq
        outcome = Outcome(PENDING, assignment.reason(), assignment.message(), cq.name)
        self._record(wl, outcome)
        if assignment.mode != NO_FIT and cq.preemption.reclaim != "Any":
            reserved = self._reservation(cq, assignment)
            run.reserved.add(cq.name, reserved)
            if self.state.topology is not None:
                self.state.topology.reserve_for_cycle(self.state.topology.usage_of(wl, assignment))
        self._keep_scan(wl, assignment)
        if assignment.flavors_untried():
            # Kueue's requeueIfNotPresent puts a head with untried flavors straight back in
            # the heap: it resumes its scan next cycle instead of being parked.
            self.queues[cq.name].push(wl)
            if self._new_scan(run.root, wl, assignment.tried):
                run.scanning_roots.add(run.root)
            return
        bypassed = self.queues[cq.name].requeue_failed(wl)
        for other in bypassed:
            self._record(other, Outcome(PENDING, outcome.reason, BYPASSED, cq.name))
        if self.queues[cq.name].strategy != "StrictFIFO":
            run.changed_roots.add(run.root)

    def _reservation(self, cq: ClusterQueue, assignment: Assignment) -> dict[FR, int]:
        """Quota a queue that cannot always reclaim keeps from others for this cycle (§4.4)."""
        tree, reserved = self.state.tree, {}
        # Hot path: comparisons, not min() and max() (kueuelint.admission's notes).
        for fr, request in assignment.usage.items():
            nominal, usage = tree.nominal(cq.name, fr), tree.usage(cq.name, fr)
            if assignment.borrowing:
                limit = tree.queues[cq.name].borrowing_limit(fr)
                room = request if limit is None else nominal + limit - usage
                reserved[fr] = request if request <= room else room
            else:
                room = nominal - usage
                kept = request if request <= room else room
                reserved[fr] = kept if kept > 0 else 0
        return reserved

    def _preempting(self, entry: Entry, assignment: Assignment, run: _Cycle) -> None:
        wl, cq = entry.workload, entry.cq
        queue = self.queues[cq.name]
        keys = {t.workload.key for t in entry.targets}
        if keys & run.victim_keys:
            self._skipped(wl, assignment, OVERLAPPING, run)
            return
        if not self._still_fits(assignment.usage, cq, _freed_with(run.freed, entry.targets)):
            self._skipped(wl, assignment, NO_LONGER_FITS, run)
            return
        wl.scan = None      # Kueue's markPreemptionOutcome: the next scan starts over
        run.reserved.add(cq.name, assignment.usage)
        if self.state.topology is not None:
            self.state.topology.reserve_for_cycle(self.state.topology.usage_of(wl, assignment))
        run.add_targets(entry.targets, run.rank)
        message = f"{assignment.message()}. Pending the preemption of {len(entry.targets)} workload(s)"
        self._record(wl, Outcome(PREEMPTING, "WaitingForPreemptedWorkloads", message, cq.name,
                                 assignment, list(entry.targets)))
        if queue.strategy == "StrictFIFO":
            queue.push(wl)      # ordering alone keeps it at the head
        else:
            queue.sticky = wl   # BestEffortFIFO: the preemptor stays head until admitted
        run.changed_roots.add(run.root)

    def _still_fits(self, usage: dict[FR, int], cq: ClusterQueue, freed: dict[FR, dict[str, int]]) -> bool:
        """Does ``usage`` fit with the victims' quota (``freed``: flavor/resource -> queue ->
        amount) counted as free? Asked without charging the victims, since every entry of a
        cycle asks it again with all victims so far."""
        # Hot path: a loop, not all() over a generator (kueuelint.admission's notes).
        tree, queue = self.state.tree, cq.name
        for fr, amount in usage.items():
            if amount > available_after(tree, queue, fr, freed.get(fr, {})):
                return False
        return True

    def _admit(self, entry: Entry, assignment: Assignment) -> None:
        wl, cq = entry.workload, entry.cq
        # Admissions of one cycle share their reservation time (the API keeps whole seconds
        # and a cycle takes milliseconds): preemption ties among them go by UID.
        held = Admitted(wl.key, cq.name, wl.priority, dict(assignment.usage), 1e12 + self.cycles,
                        wl.timestamp, wl.uid, pending=wl)
        wl.scan = None
        self.state.add(held)
        if self.state.topology is not None:
            self.state.topology.hold(wl.key, self.state.topology.usage_of(wl, assignment))
        self._generation[cq.name] = self._generation.get(cq.name, 0) + 1
        message = f"Quota reserved in ClusterQueue {cq.name}"
        self._record(wl, Outcome(ADMITTED, "QuotaReserved", message, cq.name, assignment,
                                 self._earlier_preemptions(wl)))

    def _earlier_preemptions(self, wl: Pending) -> list[Target]:
        earlier = self.outcomes.get(wl.key)
        return list(earlier.preempts) if earlier and earlier.result == PREEMPTING else []

    def _record(self, wl: Pending, outcome: Outcome) -> None:
        outcome.cycle = self.cycles
        self.outcomes[wl.key] = outcome

    # --- after the cycle -------------------------------------------------------------------

    def _release_victims(self, run: _Cycle) -> None:
        """Victims give back their quota before the next cycle, and are queued again."""
        roots = set()
        for number, (target, rank) in enumerate(zip(run.targets, run.target_ranks)):
            victim = target.workload
            self.state.remove(victim)
            if self.state.topology is not None:
                self.state.topology.release(victim.key)
            self._generation[victim.cluster_queue] = self._generation.get(victim.cluster_queue, 0) + 1
            self.preempted.append(target)
            self.ranks.append((self.cycles, rank, number))
            if victim.cluster_queue in self._root_ids:
                roots.add(self._root_ids[victim.cluster_queue])
            self._count_requeue(victim, self.ranks[-1])
            again = victim.pending or self.requeue_lookup(victim)
            if again is not None and victim.cluster_queue in self.queues:
                words = PREEMPTION_REASONS.get(target.reason)
                text = words.kueue if words else target.reason
                self._record(again, Outcome(
                    PENDING, "Preempted", f"Preempted to accommodate a workload due to {text}",
                    victim.cluster_queue))
                self.queues[victim.cluster_queue].push(again)
        if roots:
            run.changed_roots |= roots
            self._wake(roots)

    def _count_requeue(self, victim: Admitted, rank: tuple) -> None:
        """Stops the victim's tree when the victim is preempted once more than MAX_REQUEUES."""
        key = victim.key
        count = self.requeues[key] = self.requeues.get(key, 0) + 1
        if count == MAX_REQUEUES + 1:
            self.warnings.append(f"{key} was preempted {count} times (preemption ping-pong); "
                                 "the simulation of its cohort tree stops after this cycle")
            self.warning_ranks.append(rank)
            self._stopped.add(self._root_ids.get(victim.cluster_queue, 0))

    def _wake(self, roots: set[int]) -> None:
        for name, queue in self.queues.items():
            if self._root_ids.get(name) in roots:
                queue.wake_inadmissible()


def _no_requeue(held: Admitted) -> Pending | None:
    return None


def safety_limit(waiting: int) -> int:
    """Cycles after which a simulation of ``waiting`` queued workloads stops regardless."""
    return 50 + 4 * waiting


def _freed_with(freed: dict[FR, dict[str, int]], targets: list[Target]) -> dict[FR, dict[str, int]]:
    """``freed`` plus the usage of ``targets``, leaving ``freed`` as it is."""
    combined = {fr: dict(per_queue) for fr, per_queue in freed.items()}
    _add_freed(combined, targets)
    return combined


def _add_freed(freed: dict[FR, dict[str, int]], targets: list[Target]) -> None:
    for target in targets:
        victim = target.workload
        for fr, amount in victim.usage.items():
            if amount:
                per_queue = freed.setdefault(fr, {})
                per_queue[victim.cluster_queue] = per_queue.get(victim.cluster_queue, 0) + amount


class _Cycle:
    """Book-keeping for one cycle: victims chosen so far and temporary usage to undo."""

    def __init__(self, reserved: UsageLedger) -> None:
        self.targets: list[Target] = []
        self.target_ranks: list[tuple] = []     # the rank of the entry that chose each target
        self.victim_keys: set[str] = set()
        # flavor/resource -> queue -> usage of the victims so far, counted as free by later entries
        self.freed: dict[FR, dict[str, int]] = {}
        self.reserved = reserved           # quota the cycle's heads hold until it ends
        self.changed_roots: set[int] = set()     # trees (root ids) where something changed
        self.scanning_roots: set[int] = set()    # trees with a head that resumes its scan
        self.rank: tuple = ()                   # of the entry being processed
        self.root = 0                           # its tree

    @property
    def changed(self) -> bool:
        return bool(self.changed_roots)

    def add_targets(self, targets: list[Target], rank: tuple) -> None:
        for target in targets:
            self.targets.append(target)
            self.target_ranks.append(rank)
            self.victim_keys.add(target.workload.key)
        _add_freed(self.freed, targets)
