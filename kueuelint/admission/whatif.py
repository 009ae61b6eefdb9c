"""Quota questions asked about hypothetical removals, answered without touching the tree.

Preemption keeps asking "would the request fit if these workloads were gone?". Charging the
removals to the tree and undoing them costs two walks per queue and dirties the tree; here the
usage changes are kept aside and applied only while reading, with the same bubbling rule as
``accounting.quota`` (usage reaches the parent only above the child's local quota).
"""

from __future__ import annotations

from typing import Any

from kueuelint.accounting.quota import FR, QuotaNode, QuotaTree
from kueuelint.admission.model import Admitted

_UNSHIFTED: dict[QuotaNode, int] = {}


def available_after(tree: QuotaTree, queue: str, fr: FR, removals: dict[str, int]) -> int:
    """``tree.available(queue, fr)`` as if ``removals`` (queue -> amount of ``fr``) were free."""
    if not removals:        # most fit checks of a cycle before its first victim
        return tree.available(queue, fr)
    shift: dict[QuotaNode, int] = {}
    for name, amount in removals.items():
        _bubble_aside(tree.queues[name], fr, -amount, shift)
    return max(0, _available(tree.queues[queue], fr, shift))


class Trial:
    """Workloads taken out for a while to see what fits (preemption's minimal set): their usage
    is kept beside the tree, per flavor/resource and node, and read with it. The tree is never
    charged, so undoing a trial costs nothing, where charging and uncharging it cost a walk to
    the root per victim and flavor/resource each way. Only the nodes set aside for a TAS
    preemptor (``topology``) are put back by ``restore``."""

    def __init__(self, tree: QuotaTree, topology: Any = None) -> None:
        self.tree, self.topology = tree, topology
        self.shift: dict[FR, dict[QuotaNode, int]] = {}
        self._set_aside: list[tuple[str, bool]] = []      # (workload, aside) as set, in order

    def evict(self, workload: Admitted, usage: dict[FR, int]) -> None:
        """Count ``usage`` (all or the checked part of ``workload``'s) and its nodes as free."""
        self._move(workload, usage, -1)

    def readmit(self, workload: Admitted, usage: dict[FR, int]) -> None:
        """Count again what ``evict`` freed."""
        self._move(workload, usage, 1)

    def _move(self, workload: Admitted, usage: dict[FR, int], sign: int) -> None:
        node = self.tree.queues[workload.cluster_queue]
        shifts = self.shift
        for fr, amount in usage.items():
            if amount:
                shift = shifts.get(fr)
                if shift is None:
                    shift = shifts[fr] = {}
                _bubble_aside(node, fr, sign * amount, shift)
        if self.topology is not None:
            self.topology.set_aside(workload.key, sign < 0)
            self._set_aside.append((workload.key, sign < 0))

    def borrowing(self, node: QuotaNode, frs) -> bool:
        """Does ``node`` borrow (``is_borrowing``) on any of ``frs`` with the trial's workloads out?"""
        shifts, subtree, usage = self.shift, node.subtree, node.usage
        for fr in frs:
            shift = shifts.get(fr)
            if subtree.get(fr, 0) < usage.get(fr, 0) + (shift.get(node, 0) if shift else 0):
                return True
        return False

    def fits(self, queue: str, requests: dict[FR, int], allow_borrowing: bool) -> bool:
        """``state.request_fits`` with the trial's workloads out."""
        node = self.tree.queues[queue]
        for fr, value in requests.items():
            shift = self.shift.get(fr, _UNSHIFTED)
            if value > max(0, _available(node, fr, shift)):
                return False
            if not allow_borrowing and node.subtree.get(fr, 0) < node.usage.get(fr, 0) + shift.get(node, 0) + value:
                return False
        return self.topology is None or self.topology.preemptor_fits()

    def restore(self) -> None:
        """Put the nodes set aside back, newest first (the usage needs nothing)."""
        while self._set_aside:
            key, aside = self._set_aside.pop()
            self.topology.set_aside(key, not aside)


def _bubble_aside(node: QuotaNode | None, fr: FR, delta: int, shift: dict[QuotaNode, int]) -> None:
    while node is not None and delta:
        before = shift.get(node, 0)
        old = node.usage.get(fr, 0) + before
        shift[node] = before + delta
        local = node.local.get(fr, 0)
        new = old + delta
        delta = (new - local if new > local else 0) - (old - local if old > local else 0)     # as quota._bubble
        node = node.parent


def _available(node: QuotaNode, fr: FR, shift: dict[QuotaNode, int]) -> int:
    usage = node.usage.get(fr, 0) + shift.get(node, 0)
    parent = node.parent
    if parent is None:
        return node.subtree.get(fr, 0) - usage
    from_parent = _available(parent, fr, shift)
    local = node.local.get(fr, 0)
    quota = node.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:      # as quota._available
        cap = (node.subtree.get(fr, 0) - local) - (usage - local if usage > local else 0) + quota.borrowing_limit
        if cap < from_parent:
            from_parent = cap
    return (local - usage if local > usage else 0) + from_parent
