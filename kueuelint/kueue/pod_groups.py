"""Pod groups: plain Pods Kueue admits together because they share a group name.

Objects are read through ``get`` and ``namespace``; the run's Pods through the rule context's
inventory, so any layer's objects will do.
"""

from __future__ import annotations

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
    cache = ctx.inventory.cache.setdefault("kueuelint.pod-groups", {})
    if not cache:
        for other in ctx.inventory.of_kind("Pod"):
            name, _ = group_of(other)
            if name:
                cache.setdefault((other.namespace, name), []).append(other)
        cache.setdefault(None, [])
    name, _ = group_of(pod)
    return cache.get((pod.namespace, name), [])
