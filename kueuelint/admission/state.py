"""The mutable state of a simulation: quota tree with usage, and who holds quota where."""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field
from itertools import count
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator

from kueuelint.accounting.quota import FR, QuotaTree
from kueuelint.admission.memo import UsageMemo
from kueuelint.admission.model import Admitted, ClusterQueue, Flavor

_first = itemgetter(0)


class UsageLedger:
    """Usage added or removed for a while without a holder: the quota one cycle's heads reserve,
    the victims a preemption search takes away to see what fits. Kueue does the same on its
    cycle's snapshot (``AddUsage``, ``RemoveWorkload`` / ``AddWorkload``, then restoring it);
    the ledger remembers each change so that ``restore`` undoes them all, newest first. A
    workload taken out with ``evict`` also frees its nodes when a TAS preemptor is being fitted
    (``topology``)."""

    def __init__(self, tree: QuotaTree, topology: Any = None) -> None:
        self.tree, self.topology = tree, topology
        # (queue, usage, sign that undoes the change, the workload whose nodes were set aside)
        self.changes: list[tuple[str, dict[FR, int], int, str | None]] = []

    def add(self, queue: str, usage: dict[FR, int]) -> None:
        self.tree.add_usage(queue, usage, 1)
        self.changes.append((queue, usage, -1, None))

    def remove(self, queue: str, usage: dict[FR, int]) -> None:
        self.tree.add_usage(queue, usage, -1)
        self.changes.append((queue, usage, 1, None))

    def evict(self, workload: Admitted, usage: dict[FR, int]) -> None:
        """Take ``usage`` (all or the checked part of ``workload``'s) and its nodes out."""
        self._move(workload, usage, -1)

    def readmit(self, workload: Admitted, usage: dict[FR, int]) -> None:
        """Put back what ``evict`` took out."""
        self._move(workload, usage, 1)

    def _move(self, workload: Admitted, usage: dict[FR, int], sign: int) -> None:
        self.tree.add_usage(workload.cluster_queue, usage, sign)
        if self.topology is not None:
            self.topology.set_aside(workload.key, sign < 0)
        self.changes.append((workload.cluster_queue, usage, -sign, workload.key))

    def restore(self) -> None:
        changes, tree, topology = self.changes, self.tree, self.topology
        while changes:
            queue, usage, sign, key = changes.pop()
            tree.add_usage(queue, usage, sign)
            if key is not None and topology is not None:
                topology.set_aside(key, sign < 0)


@dataclass
class State:
    tree: QuotaTree
    queues: dict[str, ClusterQueue]
    flavors: dict[str, Flavor]
    _held: dict[str, dict[str, Admitted]] = field(default_factory=dict)    # queue -> key -> holder
    ignore_undeclared: bool = False
    fair_sharing: bool = False
    fair_strategies: tuple[str, ...] = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
    topology: Any = None      # topology.Topologies when the snapshot has a TAS flavor
    # Feature gate FlavorFungibilityPreserveScanProgress (settings.GATE_DEFAULTS).
    preserve_scan: bool = True
    # True while heads are nominated: usage does not change, so ``memo`` may answer.
    frozen: bool = False
    memo: UsageMemo = field(default_factory=UsageMemo)
    # (resource groups, count, requests per pod) -> the flavor assigner's plan for pod sets without
    # placement constraints (flavors.FlavorAssigner._shared_or_new_plan)
    plans: dict[tuple, tuple] = field(default_factory=dict)
    # queue -> flavor/resource -> key -> (rank, seq, holder) of the holders using it: preemption
    # only looks at contested resources.
    _by_resource: dict[str, dict[FR, dict[str, tuple]]] = field(default_factory=dict)
    # The same entries as lists kept sorted, so that preemption reads the first candidates in
    # order instead of sorting every holder; seq breaks ties as insertion order did.
    _ranked: dict[str, dict[FR, list[tuple]]] = field(default_factory=dict)
    _counter: count = field(default_factory=count)
    # queue -> flavor/resource -> priority -> usage: bounds what preemption could ever free.
    _by_priority: dict[str, dict[FR, dict[int, int]]] = field(default_factory=dict)
    # Queues whose holders were replaced by ``adopt_holders``: indexed again on first use.
    _unindexed: set[str] = field(default_factory=set)
    # queue -> snapshot holders not read yet, in ``_reader``'s terms: a tree's holders are read
    # when it is first simulated, so that two processes each read only the trees they take.
    _unread: dict[str, list] = field(default_factory=dict)
    _reader: Callable[[str, list], list[Admitted]] | None = None
    # queue -> (keys removed, holders added) that another process reported for an unread queue
    _changes: dict[str, tuple[list[str], list[Admitted]]] = field(default_factory=dict)

    @property
    def admitted_by_cq(self) -> dict[str, dict[str, Admitted]]:
        """Queue -> key -> holder, for every queue (holders not read yet are read now)."""
        self.read_holders(list(self._unread))
        return self._held

    def defer_holders(self, unread: dict[str, list], reader: Callable[[str, list], list[Admitted]]) -> None:
        """Record the snapshot's holders per queue, to be made by ``reader`` (a queue and its
        items in, their records out) and charged when ``read_holders`` asks for their queue.
        The lists are kept, not copied: each is dropped when its queue is read, by the process
        that simulates it (a copy left to the caller was freed all at once at the end, 20 ms
        for 50,000)."""
        for queue, items in unread.items():
            mine = self._unread.get(queue)
            if mine is None:
                self._unread[queue] = items
            else:
                mine.extend(items)
        self._reader = reader

    def read_holders(self, queues: Iterable[str]) -> None:
        for queue in queues:
            if queue in self._unread:
                self._read(queue)

    def read_unadopted(self) -> None:
        """Read the holders whose usage no other process reported: trees nobody simulated."""
        self.read_holders([queue for queue in self._unread if queue not in self._changes])

    def _read(self, queue: str) -> None:
        reader = self._reader
        assert reader is not None
        held = reader(queue, self._unread.pop(queue))
        changes = self._changes.pop(queue, None)
        if changes is None:
            self.add_all(held)
            return
        # Another process simulated this queue and reported its usage: holders only.
        holders = self._held.setdefault(queue, {})
        for workload in held:
            holders[workload.key] = workload
        self._apply_changes(queue, *changes)

    def _settle(self, queue: str) -> None:
        """Make ``queue``'s holders and indexes current before they are read or changed."""
        if queue in self._unread:
            self._read(queue)
        if queue in self._unindexed:
            self._reindex(queue)

    def add(self, workload: Admitted) -> None:
        """Record a workload holding quota and charge its usage."""
        queue = workload.cluster_queue
        if self._unindexed or self._unread:
            self._settle(queue)
        self._held.setdefault(queue, {})[workload.key] = workload
        self._index_holder(queue, workload)
        self._usage_changed(workload, 1)

    def _index_holder(self, queue: str, workload: Admitted) -> None:
        entry = (workload.preemption_rank(), next(self._counter), workload)
        for fr, amount in workload.usage.items():
            if amount > 0:
                self._index(queue, fr, workload.key, entry)
        self._count_priority(workload, 1)

    def _usage_changed(self, workload: Admitted, sign: int) -> None:
        node = self.tree.queues.get(workload.cluster_queue)
        if node is not None:
            self.tree.add_usage(node.name, workload.usage, sign)
            self.memo.changed(node.root(), workload.usage)

    def add_all(self, workloads: list[Admitted]) -> None:
        """``add`` for each of the snapshot's holders, queue by queue (keeping their order within
        a queue, the only order the indexes keep), with usage charged once per queue and each
        ranked list sorted once: the end state is the same, tens of thousands of tree walks,
        insertions and dictionary look-ups cheaper."""
        by_queue: dict[str, list[Admitted]] = {}
        for workload in workloads:
            by_queue.setdefault(workload.cluster_queue, []).append(workload)
        for queue, held in by_queue.items():
            self._add_to_queue(queue, held)

    def _add_to_queue(self, queue: str, workloads: list[Admitted]) -> None:
        holders = self._held.setdefault(queue, {})
        by_resource = self._by_resource.setdefault(queue, {})
        ranked = self._ranked.setdefault(queue, {})
        by_priority = self._by_priority.setdefault(queue, {})
        total: dict[FR, int] = {}
        replaced, added = [], []
        for workload in workloads:
            key = workload.key
            if key in holders:
                replaced.append(workload)     # replacing a holder finds the old entry by bisection
                continue
            holders[key] = workload
            added.append((workload.preemption_rank(), workload))
            priority = workload.priority
            for fr, amount in workload.usage.items():
                total[fr] = total.get(fr, 0) + amount
                buckets = by_priority.get(fr)
                if buckets is None:
                    buckets = by_priority[fr] = {}
                buckets[priority] = buckets.get(priority, 0) + amount
        # Every ranked list of a queue follows one order: sorting the holders once costs a
        # third of sorting each flavor/resource's list (stable: equal ranks keep their order).
        merge = any(ranked.values())
        added.sort(key=_first)
        counter = self._counter
        for rank, workload in added:
            key, entry = workload.key, (rank, next(counter), workload)
            for fr, amount in workload.usage.items():
                if amount > 0:
                    # get, not setdefault: setdefault would build a new empty container
                    # for each of the snapshot's tens of thousands of usage entries
                    keyed, listed = by_resource.get(fr), ranked.get(fr)
                    if keyed is None:
                        keyed = by_resource[fr] = {}
                    if listed is None:
                        listed = ranked[fr] = []
                    keyed[key] = entry
                    listed.append(entry)
        if merge:
            for entries in ranked.values():
                entries.sort()
        node = self.tree.queues.get(queue)
        if node is not None and total:
            self.tree.add_usage(queue, total)
            self.memo.changed(node.root(), total)
        for workload in replaced:
            self.add(workload)

    def remove(self, workload: Admitted) -> None:
        queue = workload.cluster_queue
        if self._unindexed or self._unread:
            self._settle(queue)
        held = self._held.get(queue, {})
        if held.pop(workload.key, None) is None:
            return
        for fr in workload.usage:
            self._index(queue, fr, workload.key, None)
        self._count_priority(workload, -1)
        self._usage_changed(workload, -1)

    def _index(self, queue: str, fr: FR, key: str, entry: tuple | None) -> None:
        """Set (or drop, when ``entry`` is None) the holder ``key`` of ``queue`` using ``fr``."""
        by_key = self._by_resource.setdefault(queue, {}).setdefault(fr, {})
        ranked = self._ranked.setdefault(queue, {}).setdefault(fr, [])
        old = by_key.pop(key, None)
        if old is not None:
            del ranked[bisect.bisect_left(ranked, old[:2])]
        if entry is not None:
            by_key[key] = entry
            bisect.insort(ranked, entry)

    def _count_priority(self, workload: Admitted, sign: int) -> None:
        per_fr = self._by_priority.setdefault(workload.cluster_queue, {})
        for fr, amount in workload.usage.items():
            buckets = per_fr.setdefault(fr, {})
            buckets[workload.priority] = buckets.get(workload.priority, 0) + sign * amount

    def usage_below(self, queue: str, fr: FR, priority: int | None, inclusive: bool = False) -> int:
        """Usage of ``queue`` held by workloads under ``priority`` (all of it when None)."""
        if self._unindexed or self._unread:
            self._settle(queue)
        buckets = self._by_priority.get(queue, {}).get(fr, {})
        if priority is None:
            return sum(buckets.values())
        total = 0
        for bucket, usage in buckets.items():     # a loop: half the time of sum() over a generator
            if bucket < priority or (inclusive and bucket == priority):
                total += usage
        return total

    def holders_in_order(self, queue: str, frs) -> Iterator[Admitted]:
        """Holders of ``queue`` using any of ``frs``, each once, in ``preemption_rank`` order.
        Nearly always one flavor/resource has holders: its ranked list is then read through
        an iterator made in C, where a generator would be resumed through the interpreter for
        each of the hundred thousand holders the searches of a large run read."""
        if self._unindexed or self._unread:
            self._settle(queue)
        ranked = self._ranked.get(queue, {})
        lists = [ranked[fr] for fr in frs if ranked.get(fr)]
        if len(lists) == 1:
            return map(_HOLDER_OF_ENTRY, lists[0])
        return _merged_holders(lists)

    def ledger(self) -> UsageLedger:
        """Temporary usage changes, undone together by the ledger's ``restore``."""
        return UsageLedger(self.tree, self.topology)

    def adopt_holders(self, queues: list[str], removed: list[tuple[str, str]], added: list[Admitted]) -> None:
        """Take the holders another process reached for ``queues`` (whose tree usage the caller
        sets): ``removed`` (queue, key) left, ``added`` came. Their indexes are rebuilt only
        if something reads them again (after a simulation nothing usually does); holders this
        process never read stay unread, with the changes kept for when they are."""
        removed_from: dict[str, list[str]] = {}
        for queue, key in removed:
            removed_from.setdefault(queue, []).append(key)
        added_to: dict[str, list[Admitted]] = {}
        for workload in added:
            added_to.setdefault(workload.cluster_queue, []).append(workload)
        for queue in set(queues) | set(removed_from) | set(added_to):
            changes = (removed_from.get(queue, []), added_to.get(queue, []))
            if queue in self._unread:
                self._changes[queue] = changes
            else:
                self._apply_changes(queue, *changes)

    def _apply_changes(self, queue: str, removed: list[str], added: list[Admitted]) -> None:
        holders = self._held.setdefault(queue, {})
        for key in removed:
            holders.pop(key, None)
        for workload in added:
            holders[workload.key] = workload
        self._by_resource.pop(queue, None)
        self._ranked.pop(queue, None)
        self._by_priority.pop(queue, None)
        self._unindexed.add(queue)

    def _reindex(self, queue: str) -> None:
        if queue not in self._unindexed:
            return
        self._unindexed.discard(queue)
        for workload in self._held.get(queue, {}).values():
            self._index_holder(queue, workload)

    def holders(self, queue: str) -> list[Admitted]:
        return list(self.held(queue).values())

    def held(self, queue: str) -> dict[str, Admitted]:
        """Key -> holder of one queue (read first if it was not yet)."""
        if queue in self._unread:
            self._read(queue)
        return self._held.get(queue, {})


_HOLDER_OF_ENTRY = itemgetter(2)      # an entry of a ranked list: (rank, sequence, holder)


def _merged_holders(lists: list[list[tuple]]) -> Iterator[Admitted]:
    """The holders of several ranked lists in rank order, each once (a holder using several
    of the flavor/resources has one entry in each list, with the same sequence number)."""
    last = None
    for entry in heapq.merge(*lists):
        if entry[1] != last:
            last = entry[1]
            yield entry[2]


def request_fits(state: State, cq: ClusterQueue, requests: dict[FR, int], allow_borrowing: bool) -> bool:
    """Does ``requests`` fit in ``cq`` now (and, for a TAS preemptor, on the nodes)?"""
    tree = state.tree
    node = tree.queues[cq.name]
    for fr, value in requests.items():
        if value > tree.available(cq.name, fr):
            return False
        if not allow_borrowing and node.borrows_with(fr, value):
            return False
    return state.topology is None or state.topology.preemptor_fits()
