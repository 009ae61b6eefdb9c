"""Classical preemption (kueue-scheduler.md §5.1-5.5): the candidates (listed by ``candidates``)
classified and ordered, then the minimal set of victims that lets the request fit."""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Iterator

from kueuelint.accounting.quota import FR, QuotaNode, QuotaTree
from kueuelint.admission.candidates import (add_borrowing_queues, borrowing_holders, first_fitting_level,
                                             preemptor_identity, same_queue_holders)
from kueuelint.admission.model import (NO_CANDIDATES, PREEMPT, RECLAIM, Admitted, ClusterQueue, Pending,
                                       PreemptionReason, Target)
from kueuelint.admission.state import State
from kueuelint.admission.whatif import Trial, available_after

IN_CQ = PreemptionReason.IN_CLUSTER_QUEUE
RECLAMATION = PreemptionReason.IN_COHORT_RECLAMATION
WHILE_BORROWING = PreemptionReason.IN_COHORT_RECLAIM_WHILE_BORROWING
FAIR_SHARING = PreemptionReason.IN_COHORT_FAIR_SHARING

# Candidate classes, in the order Kueue lists them.
HIERARCHICAL, WITH_BORROWING, WITHOUT_BORROWING, SAME_QUEUE = range(4)


@dataclass
class _Candidate:
    workload: Admitted
    kind: int

    def __init__(self, workload: Admitted, kind: int) -> None:      # see model's docstring
        self.workload, self.kind = workload, kind


def find_targets(state: State, cq: ClusterQueue, preemptor: Pending,
                 requests: dict[FR, int], usage: dict[FR, int] | None = None) -> list[Target]:
    """The workloads Kueue would evict so that ``requests`` fit in ``cq``; [] when impossible.
    ``usage``: the workload's whole usage when it asks more than ``requests`` (resources that
    need no preemption): Kueue judges the hierarchical advantage and whether the workload
    must borrow on all of it.

    While ``state.frozen`` (the nomination phase of a cycle) answers are memoised: the oracle and
    the final search often ask the same question, and so do heads of later cycles while nothing
    changed in the cohort tree for the requested flavor/resources.
    """
    if not _may_evict(cq):
        return []
    node = state.tree.queues.get(cq.name)
    if not state.frozen or node is None:
        return _find_targets(state, cq, preemptor, requests, usage)
    # Fair sharing compares shares over every resource: its answers depend on all usage. With
    # the whole usage given, the answer also reads the usage of its other flavor/resources.
    root, frs = node.root(), None if state.fair_sharing else sorted(usage or requests)
    key = ("targets", cq.name, preemptor_identity(cq, preemptor), tuple(sorted(requests.items())),
           tuple(sorted(usage.items())) if usage else None)
    if state.topology is not None and state.topology.preemptor:     # node usage is not in the stamp
        return state.topology.search_memoised(state.memo, key, root, frs,
                                              lambda: _find_targets(state, cq, preemptor, requests, usage))
    return list(state.memo.recall(key, root, frs, _find_targets, state, cq, preemptor, requests, usage))


def _may_evict(cq: ClusterQueue) -> bool:
    """Whether the queue's policies let it evict anything at all: neither its own queue's
    workloads (``withinClusterQueue``) nor other queues' (``reclaimWithinCohort``) otherwise."""
    policy = cq.preemption
    return policy.within not in ("", "Never") or policy.reclaim not in ("", "Never")


def _find_targets(state: State, cq: ClusterQueue, preemptor: Pending,
                  requests: dict[FR, int], usage: dict[FR, int] | None = None) -> list[Target]:
    frs = set(requests)
    if state.fair_sharing and _nested(state, cq):
        # The bound of _hopeless prunes lenders' subtrees, which fair sharing does not: skipped.
        return _fair_targets(state, cq, preemptor, requests, usage)
    if _hopeless(state, cq, preemptor, requests):
        return []
    if state.fair_sharing:
        return _fair_targets(state, cq, preemptor, requests, usage)
    same = same_queue_holders(state, cq, preemptor, frs)
    levels = borrowing_holders(state, cq, preemptor, frs)
    if not same and not any([holders for _, holders, _ in levels]):
        return []
    fits_from = first_fitting_level(state, cq, usage or requests) if levels else None
    others = [(fits_from is not None and level >= fits_from, holders, totals) for level, holders, totals in levels]
    # Kueue's fit checks read the workload's whole usage: a victim also gives back what it
    # uses of the resources that need no preemption, which may end the preemptor's borrowing.
    checked = usage or requests
    for allow_borrowing in _runs(state, cq, others, frs):
        freed = _freed_by_run(state, cq, preemptor, set(checked), same, others, allow_borrowing)
        if not _fits_freed(state, cq, checked, freed, allow_borrowing):
            continue
        allowed = _candidates_in_order(cq, preemptor, same, others, allow_borrowing)
        chosen = _minimal_set(state, cq, requests, checked, allowed, allow_borrowing)
        if chosen:
            return [Target(c.workload, _reason(c, allow_borrowing)) for c in chosen]
    return []


def _nested(state: State, cq: ClusterQueue) -> bool:
    node = state.tree.queues.get(cq.name)
    return node is not None and node.parent is not None and any(
        not child.is_cluster_queue for child in node.root().children)


def _fair_targets(state: State, cq: ClusterQueue, preemptor: Pending,
                  requests: dict[FR, int], usage: dict[FR, int] | None) -> list[Target]:
    from kueuelint.admission.fairsharing import fair_targets

    return fair_targets(state, cq, preemptor, set(requests), usage or requests, state.fair_strategies)


def _candidates_in_order(cq: ClusterQueue, preemptor: Pending, same: list[Admitted], others,
                         allow_borrowing: bool) -> Iterator[_Candidate]:
    """The candidates a run may evict (in the "borrowing allowed" run, not those that are
    ReclaimWithoutBorrowing), in Kueue's order, made as the removal loop reads them: it
    evicts a handful of the dozens listed. Each source (the queue's own holders, each
    borrowing queue's) already comes in that order, so merging them gives what a stable sort
    of all of them would."""
    if not any([holders and holders[0].evicted for _, holders, _ in others]) and not (same and same[0].evicted):
        return _unevicted_in_order(cq, preemptor, same, others, allow_borrowing)
    sources = [_from_source(cq, preemptor, same, None, allow_borrowing)] if same else []
    sources += [_from_source(cq, preemptor, holders, fits, allow_borrowing) for fits, holders, _ in others if holders]
    if len(sources) == 1:
        return sources[0]
    return heapq.merge(*sources, key=lambda c: _order_key(c, cq))


def _unevicted_in_order(cq: ClusterQueue, preemptor: Pending, same: list[Admitted], others,
                        allow_borrowing: bool) -> Iterator[_Candidate]:
    """``_candidates_in_order`` when no candidate is being evicted already (a source lists
    those first, so its first holder tells). Then the order key's leading parts are fixed per
    source: hierarchical candidates first, the other queues' next, the queue's own last; only
    sources of one class are merged, by the holders' own rank (the rest of the key). The
    sources are short and each in rank order: a stable sort of them joined merges them in C,
    where heapq.merge would set up a Python generator per source."""
    may_borrow_over = cq.preemption.borrow_policy == "LowerPriority"
    for hierarchical in (True, False):
        if not hierarchical and allow_borrowing and not may_borrow_over:
            break       # every one of them is ReclaimWithoutBorrowing: none may go in this run
        lists = [holders for fits, holders, _ in others if holders and fits == hierarchical]
        holders_in_order = lists[0] if len(lists) == 1 else sorted(chain(*lists), key=_CACHED_RANK)
        for wl in holders_in_order:
            kind = _kind(cq, preemptor, wl, hierarchical)
            if not allow_borrowing or kind != WITHOUT_BORROWING:
                yield _Candidate(wl, kind)
    for wl in same:
        yield _Candidate(wl, SAME_QUEUE)


# The holders come from the state's ranked lists, which computed and cached each one's
# ``preemption_rank``: read in C, where the method would be a Python call per holder.
_CACHED_RANK = attrgetter("_rank")


def _from_source(cq: ClusterQueue, preemptor: Pending, holders: list[Admitted], fits: bool | None,
                 allow_borrowing: bool) -> Iterator[_Candidate]:
    """One source's candidates; ``fits`` None for the preemptor's own queue."""
    for wl in holders:
        kind = SAME_QUEUE if fits is None else _kind(cq, preemptor, wl, fits)
        if not allow_borrowing or kind != WITHOUT_BORROWING:
            yield _Candidate(wl, kind)


def _freed_by_others(cq: ClusterQueue, preemptor: Pending, others, allow_borrowing: bool,
                     frs) -> dict[str, dict[FR, int]]:
    """Queue -> usage of ``frs`` of the other queues' holders a run may evict: all of them, or
    in the "borrowing allowed" run those that are not ReclaimWithoutBorrowing candidates.
    Where all of a queue's may go, its holders' totals are read instead of added up again."""
    freed: dict[str, dict[FR, int]] = {}
    may_borrow_over = cq.preemption.borrow_policy == "LowerPriority"
    priority, threshold = preemptor.priority, cq.preemption.borrow_threshold
    for fits, holders, totals in others:
        if not holders:
            continue
        if not allow_borrowing or fits:
            freed[holders[0].cluster_queue] = {fr: totals.get(fr, 0) for fr in frs}
        elif may_borrow_over:
            # _may_borrow_over, spelled out: asked of every holder of every run
            freed.update(_sum_by_queue([wl for wl in holders if wl.priority < priority and
                                        (threshold is None or wl.priority <= threshold)], frs))
    return freed


def oracle(state: State):
    """The flavor assigner's preemption oracle bound to ``state`` (§2.3)."""

    def simulate(cq: ClusterQueue, preemptor: Pending, fr: FR, value: int) -> tuple[int, int]:
        if not _may_evict(cq):
            return NO_CANDIDATES, state.tree.borrowing_level(cq.name, fr, value)[0]
        node = state.tree.queues.get(cq.name)
        if not state.frozen or node is None:
            return _simulate(state, cq, preemptor, fr, value)
        root, frs = node.root(), None if state.fair_sharing else [fr]
        key = ("oracle", cq.name, preemptor_identity(cq, preemptor), fr, value)
        return state.memo.recall(key, root, frs, _simulate, state, cq, preemptor, fr, value)

    return simulate


def _simulate(state: State, cq: ClusterQueue, preemptor: Pending, fr: FR, value: int) -> tuple[int, int]:
    # The search itself, not find_targets: the oracle's memo answers a repeated question first
    # (same stamp), so find_targets' memo only ever missed here, at the cost of its key.
    targets = _find_targets(state, cq, preemptor, {fr: value})
    if not targets:
        # Kueue's SimulatePreemption: without candidates, the borrowing the request needs as is
        return NO_CANDIDATES, state.tree.borrowing_level(cq.name, fr, value)[0]
    # The level reads the usage of ``fr`` alone: only that part of the targets is set aside.
    evicted = state.ledger()
    for target in targets:
        evicted.remove(target.workload.cluster_queue, {fr: target.workload.usage.get(fr, 0)})
    level, _ = state.tree.borrowing_level(cq.name, fr, value)
    evicted.restore()
    same = any([t.workload.cluster_queue == cq.name for t in targets])
    return (PREEMPT if same else RECLAIM), level


def _reason(candidate: _Candidate, allow_borrowing: bool) -> str:
    if candidate.kind == SAME_QUEUE:
        return IN_CQ
    if candidate.kind == WITH_BORROWING and allow_borrowing:
        return WHILE_BORROWING
    return RECLAMATION


_GROUP = {HIERARCHICAL: 0, WITH_BORROWING: 1, WITHOUT_BORROWING: 1, SAME_QUEUE: 2}


def _order_key(candidate: _Candidate, cq: ClusterQueue) -> tuple:
    """Evicted first; then hierarchical, priority-based, same-queue; then Kueue's
    CandidatesOrdering (other queues first, lower priority, most recently admitted, UID)."""
    wl = candidate.workload
    static = wl._order
    if static is None:
        static = wl._order = (wl.priority, -wl.reserved_at, wl.uid)
    return (not wl.evicted, _GROUP[candidate.kind], wl.cluster_queue == cq.name) + static


def _kind(cq: ClusterQueue, preemptor: Pending, wl: Admitted, fits: bool) -> int:
    if fits:
        return HIERARCHICAL
    return WITH_BORROWING if _may_borrow_over(cq, preemptor, wl) else WITHOUT_BORROWING


def _may_borrow_over(cq: ClusterQueue, preemptor: Pending, wl: Admitted) -> bool:
    """borrowWithinCohort: preempt lower priority work even if the preemptor keeps borrowing."""
    policy = cq.preemption
    if policy.borrow_policy != "LowerPriority" or wl.priority >= preemptor.priority:
        return False
    return policy.borrow_threshold is None or wl.priority <= policy.borrow_threshold


def _runs(state: State, cq: ClusterQueue, others, frs: set[FR]) -> list[bool]:
    """Which runs to try, in order: True = "borrowing allowed", False = "no borrowing" (§5.4).
    ``others``: (hierarchical, holders, their totals) of the other queues."""
    cross = any([holders for _, holders, _ in others])
    forbidden = cq.preemption.borrow_policy in ("", "Never")
    tree = state.tree
    at_nominal = _at_nominal(tree, cq.name, frs)
    if not cross or (forbidden and at_nominal):
        return [True]
    if forbidden and not any([fits and holders for fits, holders, _ in others]):
        return [False, True]
    return [True, False]


def _at_nominal(tree: QuotaTree, queue: str, frs) -> bool:
    """Does ``queue`` use all of its nominal quota of one of ``frs``?"""
    return any([tree.usage(queue, fr) >= tree.nominal(queue, fr) for fr in frs])


def _contested(candidate: _Candidate, requests) -> dict[FR, int]:
    """The part of a candidate's usage that matters for the fit checks."""
    usage = candidate.workload.usage
    return {fr: usage[fr] for fr in requests if fr in usage}


def _minimal_set(state, cq, requests, checked, candidates, allow_borrowing) -> list[_Candidate]:
    """Kueue's heuristic: evict in order until ``checked`` (the usage whose fit is checked)
    fits, then keep, newest first, those not needed. Whether a candidate's queue still
    borrows is judged on the ``requests`` that need preemption."""
    trial = Trial(state.tree, state.topology)
    removed: list[tuple[_Candidate, dict[FR, int]]] = []     # with the usage each gave back
    ancestors = {id(n) for n in state.tree.queues[cq.name].path_to_root()}
    for candidate in candidates:
        if candidate.workload.cluster_queue != cq.name and not _still_borrowing(trial, ancestors, candidate, requests):
            continue
        taken = _contested(candidate, checked)
        trial.evict(candidate.workload, taken)
        removed.append((candidate, taken))
        if trial.fits(cq.name, checked, allow_borrowing):
            break
    else:
        trial.restore()
        return []
    needed = [removed[-1][0]]
    for candidate, taken in reversed(removed[:-1]):
        trial.readmit(candidate.workload, taken)
        if trial.fits(cq.name, checked, allow_borrowing):
            continue    # not needed after all: it stays admitted
        trial.evict(candidate.workload, taken)
        needed.append(candidate)
    trial.restore()
    needed.reverse()        # in the order they were removed
    return needed


def _hopeless(state: State, cq: ClusterQueue, preemptor: Pending, requests: dict[FR, int]) -> bool:
    """``_hopeless_now``, memoised while usage is frozen. Most searches end here, and the verdict
    does not depend on the whole usage that makes the search's own memo key differ between the
    oracle's question and the final search for the same head; of the preemptor it reads the
    priority alone."""
    node = state.tree.queues.get(cq.name)
    if not state.frozen or node is None:
        return _hopeless_now(state, cq, preemptor, requests)
    key = ("hopeless", cq.name, preemptor.priority, tuple(sorted(requests.items())))
    frs = None if state.fair_sharing else sorted(requests)
    return state.memo.recall(key, node.root(), frs, _hopeless_now, state, cq, preemptor, requests)


def _hopeless_now(state: State, cq: ClusterQueue, preemptor: Pending, requests: dict[FR, int]) -> bool:
    """True when even evicting everything the policies allow could not make room. Two bounds;
    the one likelier to decide goes first. Under ``reclaimWithinCohort: Any`` the room counts
    everything the other queues borrow, which seldom falls short, while a queue at its nominal
    quota is stopped by its own."""
    if cq.preemption.reclaim == "Any" and _own_queue_cannot_make_room(state, cq, preemptor, requests):
        return True
    frs = sorted(requests)
    for fr, value in requests.items():
        if value > _room(state, cq, preemptor.priority, frs, fr):
            return True
    return cq.preemption.reclaim != "Any" and _own_queue_cannot_make_room(state, cq, preemptor, requests)


def _own_queue_cannot_make_room(state: State, cq: ClusterQueue, preemptor: Pending,
                                requests: dict[FR, int]) -> bool:
    """Without borrowWithinCohort and without the hierarchical advantage, the holders of other
    queues may only go in the "no borrowing" run (§5.4): the "borrowing allowed" run has the
    preemptor's own queue alone. True when neither run can succeed: the no-borrowing run
    because the queue is at its nominal quota or would still borrow after evicting its own
    lower-priority work, the other because that work alone is not enough. Upper bounds
    only (per-priority usage totals), so a search this ends would have found nothing."""
    if cq.preemption.borrow_policy not in ("", "Never") or state.fair_sharing:
        return False
    tree = state.tree
    node = tree.queues.get(cq.name)
    if node is None:
        return False
    own = _own_removable(state, cq, preemptor.priority, requests)
    at_nominal = _at_nominal(tree, cq.name, requests)
    if not at_nominal and not any([node.borrows_with(fr, value - own[fr]) for fr, value in requests.items()]):
        return False        # the "no borrowing" run may succeed
    for fr, value in requests.items():
        if value > available_after(tree, cq.name, fr, {cq.name: own[fr]}):
            break
    else:
        return False        # the queue's own lower-priority work may be enough
    return first_fitting_level(state, cq, requests) is None


def _own_removable(state: State, cq: ClusterQueue, priority: int, requests: dict[FR, int]) -> dict[FR, int]:
    """Per flavor/resource, the usage of ``cq``'s holders that ``withinClusterQueue`` lets a
    preemptor of ``priority`` evict (equal priorities counted when newer ones may go)."""
    within = cq.preemption.within
    if within in ("", "Never"):
        return {fr: 0 for fr in requests}
    inclusive = within == "LowerOrNewerEqualPriority"
    return {fr: state.usage_below(cq.name, fr, priority, inclusive) for fr in requests}


def _room(state: State, cq: ClusterQueue, priority: int, frs: list[FR], fr: FR) -> int:
    """What ``cq`` could have of ``fr`` once everything a preemptor of ``priority`` may evict
    (contesting ``frs``) is gone. It does not depend on the amount requested, so it is
    memoised while usage is frozen and shared by every request of that priority."""
    node = state.tree.queues.get(cq.name)
    if not state.frozen or node is None:
        return _room_now(state, cq, priority, frs, fr)
    key = ("room", cq.name, priority, tuple(frs), fr)
    return state.memo.recall(key, node.root(), frs, _room_now, state, cq, priority, frs, fr)


def _room_now(state: State, cq: ClusterQueue, priority: int, frs: list[FR], fr: FR) -> int:
    """Works on per-priority usage totals: a few operations per queue, not per workload."""
    removable: dict[str, int | None] = {}      # queue -> priority bound of what may go
    within = cq.preemption.within
    if within not in ("", "Never"):
        removable[cq.name] = priority
    node = state.tree.queues.get(cq.name)
    reclaim = cq.preemption.reclaim
    if node is not None and node.parent is not None and reclaim not in ("", "Never"):
        bound = None if reclaim == "Any" else priority
        for queue in _borrowing_reachable(state, node, frs):
            removable[queue] = bound
    inclusive = within == "LowerOrNewerEqualPriority"
    removals = {queue: state.usage_below(queue, fr, bound, inclusive and queue == cq.name)
                for queue, bound in removable.items()}
    return available_after(state.tree, cq.name, fr, removals)


def _borrowing_reachable(state: State, node: QuotaNode, frs: list[FR]) -> list[str]:
    """The other queues borrowing on one of ``frs`` (sorted) that the queue of ``node`` may
    reclaim from; memoised while usage is frozen (the heads of a queue ask it again)."""
    if not state.frozen:
        return _borrowing_now(node, frs)
    key = ("borrowing", node.name, tuple(frs))
    return state.memo.recall(key, node.root(), frs, _borrowing_now, node, frs)


def _borrowing_now(node: QuotaNode, frs: list[FR]) -> list[str]:
    """As Kueue's candidate search walks them: up from the queue, the borrowing queues below
    each ancestor's other children. A cohort on the way up is not skipped when it does not
    borrow itself: its queues may borrow from each other."""
    wanted = set(frs)
    found: list[str] = []
    previous = node
    for ancestor in node.path_to_root():
        for child in ancestor.children:
            if child is not previous:
                add_borrowing_queues(child, wanted, found)
        previous = ancestor
    return found


def _freed_by_run(state, cq, preemptor, frs, same, others, allow_borrowing) -> dict[str, dict[FR, int]]:
    """Queue -> contested usage of every workload a run may evict (``same``: the same-queue
    holders; ``others``: the other queues' (hierarchical, holders, their totals))."""
    freed = _freed_by_others(cq, preemptor, others, allow_borrowing, frs)
    if same and cq.preemption.within == "LowerPriority":
        # Exactly the queue's usage below the preemptor's priority: read off the per-priority
        # totals instead of adding up a few hundred holders at every search.
        freed[cq.name] = {fr: state.usage_below(cq.name, fr, preemptor.priority) for fr in frs}
    elif same:
        freed.update(_sum_by_queue(same, frs))
    return freed


def _sum_by_queue(workloads: list[Admitted], frs) -> dict[str, dict[FR, int]]:
    per_queue: dict[str, dict[FR, int]] = {}
    for workload in workloads:
        total = per_queue.setdefault(workload.cluster_queue, {})
        usage = workload.usage
        for fr in frs:
            total[fr] = total.get(fr, 0) + usage.get(fr, 0)
    return per_queue


def _fits_freed(state, cq, requests, per_queue: dict[str, dict[FR, int]], allow_borrowing) -> bool:
    """Cheap upper bound: would the request fit if all the run's candidates were gone? Their
    usage is counted as free without touching the tree."""
    node = state.tree.queues[cq.name]
    for fr, value in requests.items():
        freed = {queue: usage[fr] for queue, usage in per_queue.items()}
        if value > available_after(state.tree, cq.name, fr, freed):
            return False
        own_usage = node.usage.get(fr, 0) - freed.get(cq.name, 0)
        if not allow_borrowing and node.subtree.get(fr, 0) < own_usage + value:
            return False
    return True


def _still_borrowing(trial: Trial, ancestors: set[int], candidate: _Candidate, requests) -> bool:
    """A cross-queue candidate is only worth evicting while its queue, and its cohorts below the
    common ancestor with the preemptor (``ancestors``: ids of the preemptor's cohorts), still
    use more than their own quota."""
    node: QuotaNode | None = trial.tree.queues[candidate.workload.cluster_queue]
    while node is not None and id(node) not in ancestors:
        if not trial.borrowing(node, requests):
            return False
        node = node.parent
    return True
