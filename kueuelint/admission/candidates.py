"""Preemption candidates: which admitted workloads a preemptor could evict (its own queue's,
and the reachable holders of the borrowing queues of its cohorts), read in the order reachable."""

from __future__ import annotations

from kueuelint.accounting.quota import FR, QuotaNode
from kueuelint.admission.model import Admitted, ClusterQueue, Pending
from kueuelint.admission.state import State


def preemptor_identity(cq: ClusterQueue, preemptor: Pending) -> tuple:
    """What of the preemptor the search reads: its priority, and its queue order when equal
    priorities may be preempted."""
    if cq.preemption.within == "LowerOrNewerEqualPriority":
        return preemptor.priority, preemptor.timestamp, preemptor.uid
    return (preemptor.priority,)


def same_queue_holders(state: State, cq: ClusterQueue, preemptor: Pending, frs: set[FR]) -> list[Admitted]:
    """The preemptor's own queue's holders that ``withinClusterQueue`` lets it evict."""
    policy = cq.preemption.within
    if policy in ("", "Never"):
        return []
    equal_too = policy == "LowerOrNewerEqualPriority"
    found = []
    for wl in state.holders_in_order(cq.name, frs):
        if wl.priority > preemptor.priority or (wl.priority == preemptor.priority and not equal_too):
            if not wl.evicted:
                break       # holders come by priority once past the evicted ones
            continue
        newer_equal = (wl.priority == preemptor.priority
                       and (wl.timestamp, wl.uid) > (preemptor.timestamp, preemptor.uid))
        if wl.priority < preemptor.priority or newer_equal:
            found.append(wl)
    return found


def borrowing_holders(state: State, cq: ClusterQueue, preemptor: Pending,
                      frs: set[FR]) -> list[tuple[int, list[Admitted], dict[FR, int]]]:
    """The reachable holders of each borrowing queue, walking up from the preemptor's parent,
    with the level (0: the parent) at which they were found and their usage added up."""
    node = state.tree.queues.get(cq.name)
    if node is None or node.parent is None or cq.preemption.reclaim in ("", "Never"):
        return []
    bound = preemptor.priority if cq.preemption.reclaim == "LowerPriority" else None
    found, previous = [], node
    for level, ancestor in enumerate(node.path_to_root()):
        queues: list[str] = []
        for child in ancestor.children:
            if child is not previous:
                add_borrowing_queues(child, frs, queues)
        for queue in queues:
            holders, totals = _reachable_holders(state, queue, frs, bound)
            found.append((level, holders, totals))
        previous = ancestor
    return found


def first_fitting_level(state: State, cq: ClusterQueue, requests: dict[FR, int]) -> int | None:
    """The first level walking up where the request fits in the subtree holding the preemptor:
    candidates from there up have the hierarchical advantage. None when it never fits."""
    node = state.tree.queues[cq.name]
    remaining = dict(requests)
    previous = node
    for level, ancestor in enumerate(node.path_to_root()):
        if not any([previous.borrows_with(fr, remaining[fr]) for fr in requests]):
            return level
        for fr in requests:
            remaining[fr] -= previous.local_available(fr)
        previous = ancestor
    return None


# A queue with fewer candidates than this keeps them all when one of them is being evicted, as
# it always did: only a run that filters out an evicted candidate can reach past the prefix, and
# cutting there would change results. Without evicted candidates the cut changes nothing.
_SMALL = 8


def _reachable_holders(state: State, queue: str, frs: set[FR],
                       bound: int | None) -> tuple[list[Admitted], dict[FR, int]]:
    """The holders of one other queue that the removal loop can reach (below ``bound`` when
    only lower priorities may go), and their usage per flavor/resource added up (what every
    search's bound on the run counts as freed); memoised while usage is frozen, as every head
    of the cohort asks about the same borrowing queues."""
    if not state.frozen:
        return _reachable_and_totals(state, queue, frs, bound)
    node = state.tree.queues[queue]
    ordered = sorted(frs)
    key = ("reachable", queue, tuple(ordered), bound)
    return state.memo.recall(key, node.root(), ordered, _reachable_and_totals, state, queue, frs, bound)


def _reachable_and_totals(state: State, queue: str, frs: set[FR],
                          bound: int | None) -> tuple[list[Admitted], dict[FR, int]]:
    holders = _walk_reachable(state, queue, frs, bound)
    return holders, _usage_totals(holders)


def _usage_totals(holders: list[Admitted]) -> dict[FR, int]:
    """Usage per flavor/resource of ``holders`` together."""
    totals: dict[FR, int] = {}
    for wl in holders:
        for fr, amount in wl.usage.items():
            totals[fr] = totals.get(fr, 0) + amount
    return totals


def _walk_reachable(state: State, queue: str, frs: set[FR], bound: int | None) -> list[Admitted]:
    """The loop skips a queue's candidates once the queue no longer borrows on any contested
    resource, and within one queue the global candidate order is the local one. So only the
    leading candidates whose usage covers what the queue borrows can ever be evicted; the
    holders are read in that order, and the walk stops as soon as the rest cannot matter.
    """
    node = state.tree.queues[queue]
    borrowed = {fr: node.usage.get(fr, 0) - node.subtree.get(fr, 0) for fr in frs}
    found: list[Admitted] = []
    reach = None
    for wl in state.holders_in_order(queue, frs):
        if bound is not None and wl.priority >= bound:
            if not wl.evicted:
                break       # holders come by priority once past the evicted ones
            continue
        found.append(wl)
        if reach is None:
            for fr in frs:
                borrowed[fr] -= wl.usage.get(fr, 0)
            if all([v <= 0 for v in borrowed.values()]):
                reach = len(found)
        if reach is not None and (len(found) >= _SMALL or not found[0].evicted):
            return found[:reach]
    return found


def add_borrowing_queues(node: QuotaNode, frs, found: list[str]) -> None:
    """Add to ``found`` the ClusterQueues of a subtree that borrow on a contested resource,
    pruning lenders."""
    # Every preemption search walks the cohort tree here: is_borrowing spelled out, and a
    # list filled instead of generators nested as deep as the tree.
    subtree, usage = node.subtree, node.usage
    for fr in frs:
        if subtree.get(fr, 0) < usage.get(fr, 0):
            break
    else:
        return
    if node.is_cluster_queue:
        found.append(node.name)
        return
    for child in node.children:
        add_borrowing_queues(child, frs, found)
