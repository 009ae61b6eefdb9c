"""Quota questions asked about hypothetical removals, answered without touching the tree.

Preemption keeps asking "would the request fit if these workloads were gone?". Charging the
removals to the tree and undoing them costs two walks per queue and dirties the tree; here the
usage changes are kept aside and applied only while reading, with the same bubbling rule as
``accounting.quota`` (usage reaches the parent only above the child's local quota).
"""

from __future__ import annotations

from typing import Any

from kueuelint.accounting.quota import FR, QuotaCell, QuotaNode, QuotaTree, cell_of
from kueuelint.admission.model import Admitted


def available_after(tree: QuotaTree, queue: str, fr: FR, removals: dict[str, int]) -> int:
    """``tree.available(queue, fr)`` as if ``removals`` (queue -> amount of ``fr``) were free."""
    if not removals:        # most fit checks of a cycle before its first victim
        return tree.available(queue, fr)
    shift: dict[QuotaCell, int] = {}
    for name, amount in removals.items():
        _bubble_aside(cell_of(tree.queues[name], fr), -amount, shift)
    free = _free_after(cell_of(tree.queues[queue], fr), shift)
    return free if free > 0 else 0      # hot path: not max() (kueuelint.admission's notes)


class Trial:
    """Workloads taken out for a while to see what fits (preemption's minimal set): their usage
    is kept beside the tree, per cell (node and flavor/resource), and read with it. The tree is never
    charged, so undoing a trial costs nothing, where charging and uncharging it cost a walk to
    the root per victim and flavor/resource each way. Only the nodes set aside for a TAS
    preemptor (``topology``) are put back by ``restore``."""

    def __init__(self, tree: QuotaTree, topology: Any = None) -> None:
        self.tree, self.topology = tree, topology
        self.shift: dict[QuotaCell, int] = {}
        self._set_aside: list[tuple[str, bool]] = []      # (workload, aside) as set, in order

    def evict(self, workload: Admitted, usage: dict[FR, int]) -> None:
        """Count ``usage`` (all or the checked part of ``workload``'s) and its nodes as free."""
        self._move(workload, usage, -1)

    def readmit(self, workload: Admitted, usage: dict[FR, int]) -> None:
        """Count again what ``evict`` freed."""
        self._move(workload, usage, 1)

    def _move(self, workload: Admitted, usage: dict[FR, int], sign: int) -> None:
        node = self.tree.queues[workload.cluster_queue]
        shift = self.shift
        for fr, amount in usage.items():
            if amount:
                cell = node.cells.get(fr)
                _bubble_aside(cell if cell is not None else cell_of(node, fr), sign * amount, shift)
        if self.topology is not None:
            self.topology.set_aside(workload.key, sign < 0)
            self._set_aside.append((workload.key, sign < 0))

    def borrowing(self, node: QuotaNode, frs) -> bool:
        """Does ``node`` borrow (``is_borrowing``) on any of ``frs`` with the trial's workloads out?"""
        shift = self.shift
        for fr in frs:
            cell = cell_of(node, fr)
            if cell.subtree < cell.usage + shift.get(cell, 0):
                return True
        return False

    def fits(self, queue: str, requests: dict[FR, int], allow_borrowing: bool) -> bool:
        """``state.request_fits`` with the trial's workloads out."""
        node, shift = self.tree.queues[queue], self.shift
        for fr, value in requests.items():
            cell = node.cells.get(fr)
            if cell is None:
                cell = cell_of(node, fr)
            free = _free_after(cell, shift)      # hot path: not max() (kueuelint.admission's notes)
            if value > (free if free > 0 else 0):
                return False
            if not allow_borrowing and cell.subtree < cell.usage + shift.get(cell, 0) + value:
                return False
        return self.topology is None or self.topology.preemptor_fits()

    def restore(self) -> None:
        """Put the nodes set aside back, newest first (the usage needs nothing)."""
        while self._set_aside:
            key, aside = self._set_aside.pop()
            self.topology.set_aside(key, not aside)


def _bubble_aside(cell: QuotaCell | None, delta: int, shift: dict[QuotaCell, int]) -> None:
    while cell is not None and delta:
        before = shift.get(cell, 0)
        old = cell.usage + before
        shift[cell] = before + delta
        local = cell.local
        new = old + delta
        delta = (new - local if new > local else 0) - (old - local if old > local else 0)     # as quota._bubble
        cell = cell.parent


def _free_after(cell: QuotaCell, shift: dict[QuotaCell, int]) -> int:
    """``quota.free_in`` with the usage set aside in ``shift``."""
    usage = cell.usage + shift.get(cell, 0)
    parent = cell.parent
    if parent is None:
        return cell.subtree - usage
    from_parent = _free_after(parent, shift)
    local = cell.local
    limit = cell.borrowing_limit
    if limit is not None:      # as quota.free_in
        cap = (cell.subtree - local) - (usage - local if usage > local else 0) + limit
        if cap < from_parent:
            from_parent = cap
    return (local - usage if local > usage else 0) + from_parent
