"""Fair sharing (kueue-scheduler.md §4.5, §5.6), used when the Kueue Configuration enables it:
the dominant resource share of a node, the order in which a cycle's heads are processed, and
the victims of a fair-sharing preemption.

Usage is simulated the way Kueue does it, by charging the tree (which bubbles up through
lending limits exactly as the cache does), and shares are compared as Kueue compares them:
as floating-point ratios, so two shares that differ by less than a unit still differ.
"""

from __future__ import annotations

from kueuelint.accounting.quota import FR, QuotaNode, cell_of, potential_in
from kueuelint.admission.model import Admitted, ClusterQueue, Pending, PreemptionReason, Target
from kueuelint.admission.state import State, request_fits

IN_CQ = PreemptionReason.IN_CLUSTER_QUEUE
RECLAMATION = PreemptionReason.IN_COHORT_RECLAMATION
FAIR_SHARING = PreemptionReason.IN_COHORT_FAIR_SHARING

LESS_THAN_OR_EQUAL_TO_FINAL = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL, LESS_THAN_INITIAL)


class Share:
    """A node's dominant resource share. ``key`` orders shares as Kueue's CompareDRS does: a
    node of weight 0 that borrows ranks above all others (among themselves by their ratio)."""

    __slots__ = ("key", "borrowed")

    def __init__(self, key: tuple[bool, float], borrowed: tuple[FR, ...]) -> None:
        self.key, self.borrowed = key, borrowed

    @property
    def borrowing(self) -> bool:
        return bool(self.borrowed)

    def borrows_on(self, usage: dict[FR, int]) -> bool:
        return any(usage.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE = Share((False, -1.0), ())


def dominant_share(node: QuotaNode) -> Share:
    """The largest borrowed / lendable ratio (per mille) over the node's resources, over its
    weight. A root shares nothing with anyone: its share is zero."""
    if node.parent is None:
        return Share((False, 0.0), ())
    borrowed: dict[str, int] = {}
    frs = []
    for fr, quota in node.subtree.items():
        amount = node.usage.get(fr, 0) - quota
        if amount > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + amount
            frs.append(fr)
    if not borrowed:
        return Share((False, 0.0), ())
    lendable = _lendable(node.parent)
    ratio = 0.0
    for resource, amount in borrowed.items():
        if lendable.get(resource, 0) > 0:
            ratio = max(ratio, float(amount) * 1000.0 / float(lendable[resource]))
    if ratio == 0:
        return Share((False, 0.0), tuple(frs))
    if node.weight == 0:
        return Share((True, ratio), tuple(frs))
    return Share((False, ratio / node.weight), tuple(frs))


def _lendable(node: QuotaNode) -> dict[str, int]:
    """Per resource, what ``node`` could obtain at most, summed over the flavors of its tree."""
    totals: dict[str, int] = {}
    for fr in node.root().subtree:
        totals[fr[1]] = totals.get(fr[1], 0) + potential_in(cell_of(node, fr))
    return totals


# --- ordering of the heads of one cycle (the tournament) ---------------------------------------

def pick_next(state: State, entries: list):
    """The entry Kueue's fair-sharing iterator would process next: the winner of the
    tournament of the first tree (trees never interact, so their order does not matter)."""
    by_queue = {entry.cq.name: entry for entry in entries}
    for entry in entries:
        node = state.tree.queues.get(entry.cq.name)
        if node is None or node.parent is None:
            return entry
        root = node.root()
        shares = _tournament_shares(state, root, by_queue)
        winner = _tournament(root, by_queue, shares)
        if winner is not None:
            return winner
    return entries[0]


def _tournament_shares(state: State, root: QuotaNode, by_queue: dict) -> dict[tuple[int, str], Share]:
    """(id of a cohort, workload key) -> the share, with the head's usage added, of the child
    of that cohort on the way to the head's queue."""
    shares: dict[tuple[int, str], Share] = {}
    for node in _queues_below(root):
        entry = by_queue.get(node.name)
        if entry is None:
            continue
        with_head = state.ledger()
        with_head.add(node.name, _entry_usage(entry))
        child = node
        for ancestor in node.path_to_root():
            shares[id(ancestor), entry.workload.key] = dominant_share(child)
            child = ancestor
        with_head.restore()
    return shares


def _entry_usage(entry) -> dict[FR, int]:
    return entry.assignment.usage if entry.assignment else {}


def _queues_below(node: QuotaNode):
    if node.is_cluster_queue:
        yield node
        return
    for child in node.children:
        yield from _queues_below(child)


def _tournament(node: QuotaNode, by_queue: dict, shares: dict):
    """Kueue's runTournament: the child cohorts' winners, then the child queues' heads."""
    contenders = [winner for child in node.children if not child.is_cluster_queue
                  for winner in [_tournament(child, by_queue, shares)] if winner is not None]
    contenders += [by_queue[child.name] for child in node.children
                   if child.is_cluster_queue and child.name in by_queue]
    if not contenders:
        return None
    best = contenders[0]
    for current in contenders[1:]:
        if _less(current, best, id(node), shares):
            best = current
    return best


def _less(a, b, cohort: int, shares: dict) -> bool:
    """Does head ``a`` go before ``b`` at ``cohort``: not borrowing on what it asks first, then
    the lower share, the higher priority, the earlier queue timestamp."""
    share_a, share_b = shares[cohort, a.workload.key], shares[cohort, b.workload.key]
    borrows_a, borrows_b = share_a.borrows_on(_entry_usage(a)), share_b.borrows_on(_entry_usage(b))
    if borrows_a != borrows_b:
        return not borrows_a
    if share_a.key != share_b.key:
        return share_a.key < share_b.key
    wa, wb = a.workload, b.workload
    if wa.priority != wb.priority:
        return wa.priority > wb.priority
    return (wa.timestamp, wa.seq) < (wb.timestamp, wb.seq)


# --- preemption -------------------------------------------------------------------------------

def fair_targets(state: State, cq: ClusterQueue, preemptor: Pending, needed: set[FR],
                 usage: dict[FR, int], strategies=DEFAULT_STRATEGIES) -> list:
    """Kueue's fairPreemptions: the victims that let ``usage`` (the whole request; ``needed``:
    the flavor/resources that need preemption) fit in ``cq``, or [] when none do."""
    candidates = sorted(_fair_candidates(state, cq, preemptor, needed), key=lambda wl: _order(wl, cq.name))
    if not candidates:
        return []
    with_preemptor = state.ledger()     # shares are compared with the preemptor's usage in its queue
    with_preemptor.add(cq.name, usage)
    search = _Search(state, cq, needed, usage)
    fits, retry = search.first_strategy(candidates, strategies[0])
    if not fits and len(strategies) > 1:
        fits = search.second_strategy(retry)
    with_preemptor.restore()
    if not fits:
        search.trial.restore()
        return []
    chosen = search.fill_back()
    search.trial.restore()
    return chosen


def _fair_candidates(state: State, cq: ClusterQueue, preemptor: Pending, needed: set[FR]) -> list[Admitted]:
    """Kueue's findCandidates: the queue's own holders its withinClusterQueue policy lets go,
    and those of every queue of the tree that borrows on a needed flavor/resource."""
    from kueuelint.admission.candidates import same_queue_holders

    found = list(same_queue_holders(state, cq, preemptor, needed))
    node = state.tree.queues.get(cq.name)
    policy = cq.preemption.reclaim
    if node is None or node.parent is None or policy in ("", "Never"):
        return found
    for other in _queues_below(node.root()):
        if other is node or not any(other.is_borrowing(fr) for fr in needed):
            continue
        for wl in state.holders_in_order(other.name, needed):
            if policy == "Any" or wl.priority < preemptor.priority:
                found.append(wl)
    return found


class _Search:
    """One fair-sharing preemption search on ``state`` (charged with the preemptor's usage
    while the strategies run); removed candidates stay removed until ``trial.restore()``."""

    def __init__(self, state: State, cq: ClusterQueue, needed: set[FR], usage: dict[FR, int]) -> None:
        self.state, self.cq, self.needed, self.usage = state, cq, needed, usage
        self.node = state.tree.queues[cq.name]
        self.chosen: list = []
        self.trial = state.ledger()     # the victims taken out, all put back by its restore

    def first_strategy(self, candidates: list[Admitted], strategy: str) -> tuple[bool, list[Admitted]]:
        """Rule S2-a: returns whether the preemptor fits, and the candidates that failed the
        strategy (for rule S2-b)."""
        ordering = _TargetOrdering(self.state, self.node, candidates)
        retry: list[Admitted] = []
        within_nominal = not any(self.node.is_borrowing(fr) for fr in self.needed)
        for target in ordering:
            if target is self.node or within_nominal:
                if self._evict(ordering.pop(target), IN_CQ if target is self.node else RECLAMATION):
                    return True, []
                continue
            mine, theirs = _almost_common_ancestors(self.node, target)
            preemptor_share, target_old = dominant_share(mine), dominant_share(theirs)
            if preemptor_share.key[0] and not target_old.key[0]:
                retry.extend(ordering.pop_all(target))      # no candidate there can pass
                continue
            while ordering.has(target):
                wl = ordering.pop(target)
                if self._passes(strategy, preemptor_share, target_old, target, theirs, wl):
                    if self._evict(wl, FAIR_SHARING):
                        return True, []
                    break       # shares moved: the next target is chosen again
                retry.append(wl)
        return False, retry

    def second_strategy(self, retry: list[Admitted]) -> bool:
        """Rule S2-b: at most one more victim per queue, whose share before must exceed the
        preemptor's."""
        ordering = _TargetOrdering(self.state, self.node, retry)
        for target in ordering:
            mine, theirs = _almost_common_ancestors(self.node, target)
            passed = dominant_share(mine).key < dominant_share(theirs).key
            wl = ordering.pop(target)
            if passed and self._evict(wl, FAIR_SHARING):
                return True
            ordering.drop(target)
        return False

    def _passes(self, strategy: str, preemptor_share: Share, target_old: Share,
                target: QuotaNode, theirs: QuotaNode, wl: Admitted) -> bool:
        if strategy == LESS_THAN_INITIAL:
            return preemptor_share.key < target_old.key
        without_wl = self.state.ledger()
        without_wl.remove(target.name, wl.usage)
        target_new = dominant_share(theirs)
        without_wl.restore()
        return preemptor_share.key <= target_new.key

    def _evict(self, wl: Admitted, reason: str) -> bool:
        """Take ``wl`` out; does the preemptor fit now?"""
        self.trial.evict(wl, wl.usage)
        self.chosen.append(Target(wl, reason))
        # the fit is checked for the preemptor's usage, which the strategies held charged
        without_preemptor = self.state.ledger()
        without_preemptor.remove(self.cq.name, self.usage)
        fits = self._fits()
        without_preemptor.restore()
        return fits

    def _fits(self) -> bool:
        return request_fits(self.state, self.cq, self.usage, True)

    def fill_back(self) -> list:
        """Every victim but the last, newest first, goes back when the preemptor still fits."""
        kept = [self.chosen[-1]]
        for target in reversed(self.chosen[:-1]):
            self.trial.readmit(target.workload, target.workload.usage)
            if self._fits():
                continue
            self.trial.evict(target.workload, target.workload.usage)
            kept.append(target)
        order = {id(t): i for i, t in enumerate(self.chosen)}
        return sorted(kept, key=lambda t: order[id(t)])


def _almost_common_ancestors(mine: QuotaNode, theirs: QuotaNode) -> tuple[QuotaNode, QuotaNode]:
    """Below the lowest common ancestor of two queues, the nodes on either side of it (each
    queue itself when they share a parent)."""
    path = {id(node) for node in mine.path_to_root()}
    side_theirs = theirs
    for ancestor in theirs.path_to_root():
        if id(ancestor) in path:
            side_mine = mine
            for node in mine.path_to_root():
                if node is ancestor:
                    return side_mine, side_theirs
                side_mine = node
        side_theirs = ancestor
    raise AssertionError("two queues of one tree without a common ancestor")


class _TargetOrdering:
    """Kueue's TargetClusterQueueOrdering: which queue gives up a candidate next. Walking down
    from the root, the child with the highest share (cohorts win ties with queues); queues and
    cohorts that borrow nothing are pruned, except the preemptor's own queue and its cohorts."""

    def __init__(self, state: State, preemptor: QuotaNode, candidates: list[Admitted]) -> None:
        self.tree = state.tree
        self.preemptor = preemptor
        self.on_path = {id(node) for node in preemptor.path_to_root()}
        self.queued: dict[str, list[Admitted]] = {}
        for wl in candidates:
            self.queued.setdefault(wl.cluster_queue, []).append(wl)
        self.pruned: set[int] = set()

    def __iter__(self):
        node = self.preemptor
        if node.parent is None:
            while id(node) not in self.pruned and self.has(node):
                yield node
            return
        root = node.root()
        while id(root) not in self.pruned:
            target = self._next(root)
            if target is not None:
                yield target

    def has(self, queue: QuotaNode) -> bool:
        return bool(self.queued.get(queue.name))

    def pop(self, queue: QuotaNode) -> Admitted:
        return self.queued[queue.name].pop(0)

    def pop_all(self, queue: QuotaNode) -> list[Admitted]:
        return self.queued.pop(queue.name, [])

    def drop(self, queue: QuotaNode) -> None:
        self.pruned.add(id(queue))

    def _next(self, cohort: QuotaNode) -> QuotaNode | None:
        best_queue, queue_share = None, NEGATIVE
        best_cohort, cohort_share = None, NEGATIVE
        for child in cohort.children:
            if id(child) in self.pruned:
                continue
            share = dominant_share(child)
            if child.is_cluster_queue:
                if (not share.borrowing and child is not self.preemptor) or not self.has(child):
                    self.pruned.add(id(child))
                elif share.key > queue_share.key or (
                        share.key == queue_share.key and self._head_first(child, best_queue)):
                    best_queue, queue_share = child, share
            elif not share.borrowing and id(child) not in self.on_path:
                self.pruned.add(id(child))
            elif share.key >= cohort_share.key:
                best_cohort, cohort_share = child, share
        if best_queue is None and best_cohort is None:
            self.pruned.add(id(cohort))
            return None
        if best_cohort is not None and cohort_share.key >= queue_share.key:
            return self._next(best_cohort)
        return best_queue

    def _head_first(self, queue: QuotaNode, other: QuotaNode | None) -> bool:
        if other is None:
            return True
        cq = self.preemptor.name
        first, second = self.queued[queue.name][0], self.queued[other.name][0]
        return _order(first, cq) < _order(second, cq)


def _order(wl: Admitted, cq: str) -> tuple:
    """Kueue's CandidatesOrdering: evicted first, other queues' before the preemptor's own
    (``cq``), lower priority, most recently admitted, then UID."""
    return (not wl.evicted, wl.cluster_queue == cq, wl.priority, -wl.reserved_at, wl.uid)
