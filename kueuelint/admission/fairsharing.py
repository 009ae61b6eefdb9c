"""Fair sharing (kueue-scheduler.md §4.5, §5.6), used when the Kueue Configuration enables it.

Simplifications, on purpose and documented: the dominant resource share of a cohort treats the
extra usage of a candidate as if it all bubbled up (lending limits inside the subtree are not
re-applied), and preemption visits target ClusterQueues by their own share rather than walking
the cohort tree level by level.
"""

from __future__ import annotations

import math

from kueuelint.accounting.quota import FR, QuotaNode
from kueuelint.admission.model import Admitted, ClusterQueue, Pending
from kueuelint.admission.state import State

LESS_THAN_OR_EQUAL_TO_FINAL = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL, LESS_THAN_INITIAL)


def share(node: QuotaNode, extra: dict[FR, int] | None = None) -> float:
    """Dominant resource share: the largest borrowed / lendable ratio (x1000), over the weight."""
    if node.parent is None:
        return 0
    borrowed: dict[str, int] = {}
    for fr, quota in node.subtree.items():
        amount = node.usage.get(fr, 0) + (extra or {}).get(fr, 0) - quota
        if amount > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + amount
    if not borrowed:
        return 0
    if node.weight <= 0:
        return math.inf
    lendable = _lendable(node.parent)
    ratios = [amount * 1000 // lendable[r] for r, amount in borrowed.items() if lendable.get(r, 0) > 0]
    return (max(ratios) if ratios else 0) * 1000 // max(1, int(node.weight * 1000))


def _lendable(node: QuotaNode) -> dict[str, int]:
    from kueuelint.accounting.quota import _potential

    totals: dict[str, int] = {}
    for fr in node.subtree:
        totals[fr[1]] = totals.get(fr[1], 0) + _potential(node, fr)
    return totals


# --- ordering of the heads of one cycle (the tournament) ---------------------------------------

def pick_next(state: State, entries: list):
    """The entry Kueue's fair-sharing iterator would process next."""
    by_queue = {entry.cq.name: entry for entry in entries}
    roots = []
    for entry in entries:
        node = state.tree.queues.get(entry.cq.name)
        root = node.root() if node is not None else None
        if root is not None and root not in roots:
            roots.append(root)
    roots.sort(key=lambda n: (n.is_cluster_queue, n.name))
    for root in roots:
        winner = _tournament(root, by_queue)
        if winner is not None:
            return winner
    return entries[0]


def _tournament(node: QuotaNode, by_queue: dict):
    if node.is_cluster_queue:
        return by_queue.get(node.name)
    best, best_key = None, None
    for child in node.children:
        entry = _tournament(child, by_queue)
        if entry is None:
            continue
        key = _contest_key(child, entry)
        if best is None or key < best_key:
            best, best_key = entry, key
    return best


def _contest_key(child: QuotaNode, entry) -> tuple:
    usage = entry.assignment.usage if entry.assignment else {}
    borrows = any(child.borrows_with(fr, value) for fr, value in usage.items())
    wl = entry.workload
    return (borrows, share(child, usage), -wl.priority, wl.timestamp, wl.seq)


# --- preemption -------------------------------------------------------------------------------

def fair_targets(state: State, cq: ClusterQueue, preemptor: Pending, requests: dict[FR, int],
                 candidates: list, strategies=DEFAULT_STRATEGIES) -> list:
    """Targets under fair sharing; ``candidates`` come ordered from the classical generator."""
    from kueuelint.admission.preemption import FAIR_SHARING, IN_CQ, RECLAMATION, Target

    own = state.tree.queues[cq.name]
    state.charge(cq.name, requests)
    within_nominal = not any(own.is_borrowing(fr) for fr in requests)
    chosen: list[Target] = []
    remaining = list(candidates)
    for strategy in strategies:
        progress = True
        while remaining and progress and not _fits_now(state, cq, requests):
            progress = False
            for candidate in _by_target_share(state, remaining):
                reason = _admissible(state, cq, candidate.workload, strategy, within_nominal)
                if reason is None:
                    continue
                remaining.remove(candidate)
                state.charge(candidate.workload.cluster_queue, _part(candidate.workload, requests), -1)
                chosen.append(Target(candidate.workload, {"same": IN_CQ, "fair": FAIR_SHARING}.get(reason, RECLAMATION)))
                progress = True
                break
    fits = _fits_now(state, cq, requests)
    state.charge(cq.name, requests, -1)
    if not fits:
        for target in chosen:
            state.charge(target.workload.cluster_queue, _part(target.workload, requests), 1)
        return []
    chosen = _fill_back(state, cq, requests, chosen)
    for target in chosen:
        state.charge(target.workload.cluster_queue, _part(target.workload, requests), 1)
    return chosen


def _part(wl: Admitted, requests) -> dict[FR, int]:
    return {fr: wl.usage[fr] for fr in requests if fr in wl.usage}


def _fits_now(state: State, cq: ClusterQueue, requests) -> bool:
    """With the preemptor's usage already charged: is nothing over capacity on its path?"""
    from kueuelint.accounting.quota import _available

    node = state.tree.queues[cq.name]
    return all(_available(node, fr) >= 0 for fr in requests)


def _by_target_share(state: State, candidates: list) -> list:
    """Candidates of the ClusterQueue with the highest share first, keeping their order."""
    shares = {}
    for candidate in candidates:
        queue = candidate.workload.cluster_queue
        if queue not in shares:
            shares[queue] = share(state.tree.queues[queue])
    return sorted(candidates, key=lambda c: -shares[c.workload.cluster_queue])


def _admissible(state: State, cq: ClusterQueue, wl: Admitted, strategy: str, within_nominal: bool):
    """Why ``wl`` may be preempted now ("same", "nominal" or "fair"), or None."""
    if wl.cluster_queue == cq.name:
        return "same"
    if not any(state.tree.queues[wl.cluster_queue].is_borrowing(fr) for fr in wl.usage):
        return None     # its queue no longer borrows: nothing left to reclaim there
    if within_nominal:
        return "nominal"
    mine, theirs = _sides(state, cq.name, wl.cluster_queue)
    preemptor_share, target_old = share(mine), share(theirs)
    target_new = share(theirs, {fr: -v for fr, v in wl.usage.items()})
    if strategy == LESS_THAN_OR_EQUAL_TO_FINAL:
        return "fair" if preemptor_share <= target_new else None
    return "fair" if preemptor_share < target_old else None


def _sides(state: State, mine: str, theirs: str) -> tuple[QuotaNode, QuotaNode]:
    """The children of the lowest common ancestor on the preemptor's and the target's side."""
    a, b = state.tree.queues[mine], state.tree.queues[theirs]
    path_a = [a] + list(a.path_to_root())
    ids = {id(n): i for i, n in enumerate(path_a)}
    previous_b = b
    node = b
    while node is not None and id(node) not in ids:
        previous_b, node = node, node.parent
    if node is None:
        return a, b
    index = ids[id(node)]
    return (path_a[index - 1] if index > 0 else a), previous_b


def _fill_back(state: State, cq: ClusterQueue, requests, chosen: list) -> list:
    """Give back, newest choice first except the last, every victim that is not needed."""
    from kueuelint.admission.preemption import _fits

    if not chosen:
        return chosen
    kept = [chosen[-1]]
    for target in reversed(chosen[:-1]):
        state.charge(target.workload.cluster_queue, _part(target.workload, requests), 1)
        if _fits(state, cq, requests, True):
            continue
        state.charge(target.workload.cluster_queue, _part(target.workload, requests), -1)
        kept.append(target)
    order = {id(t): i for i, t in enumerate(chosen)}
    return sorted(kept, key=lambda t: order[id(t)])
