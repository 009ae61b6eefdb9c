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
    if node.parent is None:
        return node.subtree.get(fr, 0) - usage
    from_parent = _available(node.parent, fr, shift)
    limit = node.borrowing_limit(fr)
    local = node.local.get(fr, 0)
    if limit is not None:
        cap = (node.subtree.get(fr, 0) - local) - max(0, usage - local) + limit
        from_parent = min(from_parent, cap)
    return max(0, local - usage) + from_parent
