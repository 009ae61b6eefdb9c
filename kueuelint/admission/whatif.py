"""Quota questions asked about hypothetical removals, answered without touching the tree.

Preemption keeps asking "would the request fit if these workloads were gone?". Charging the
removals to the tree and undoing them costs two walks per queue and dirties the tree; here the
usage changes are kept aside and applied only while reading, with the same bubbling rule as
``accounting.quota`` (usage reaches the parent only above the child's local quota).
"""

from __future__ import annotations

from kueuelint.accounting.quota import FR, QuotaNode, QuotaTree


def available_after(tree: QuotaTree, queue: str, fr: FR, removals: dict[str, int]) -> int:
    """``tree.available(queue, fr)`` as if ``removals`` (queue -> amount of ``fr``) were free."""
    if not removals:        # most fit checks of a cycle before its first victim
        return tree.available(queue, fr)
    shift: dict[QuotaNode, int] = {}
    for name, amount in removals.items():
        _bubble_aside(tree.queues[name], fr, -amount, shift)
    return max(0, _available(tree.queues[queue], fr, shift))


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
