"""Pod groups: plain Pods Kueue admits together because they share a group name.

Objects are read through ``get`` and ``namespace``; the run's Pods through the rule context's
inventory, so any layer's objects will do.
"""

from __future__ import annotations

from kueuelint.kueue.facts import Fact

GROUP_KEY = "kueue.x-k8s.io/pod-group-name"


def group_of(pod) -> tuple[str | None, tuple | None]:
    """The pod group name (label, or the annotation Kueue also reads) and where it is set."""
    for field in ("labels", "annotations"):
        values = pod.get("metadata", field)
        value = values.get(GROUP_KEY) if isinstance(values, dict) else None
        if isinstance(value, str) and value:
            return value, ("metadata", field, GROUP_KEY)
    return None, None


def group_members(ctx, pod) -> list:
    """Every Pod of the run in ``pod``'s group (checked files and context), in run order."""
    name, _ = group_of(pod)
    return POD_GROUPS.of(ctx.inventory).get((pod.namespace, name), [])


def _pod_groups(inventory) -> dict[tuple, list]:
    groups: dict[tuple, list] = {}
    for other in inventory.of_kind("Pod"):
        name, _ = group_of(other)
        if name:
            groups.setdefault((other.namespace, name), []).append(other)
    return groups


POD_GROUPS = Fact("pod-groups", _pod_groups)   # (namespace, group name) -> its Pods
