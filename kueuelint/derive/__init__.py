"""Step 4: derive Kueue workloads and pod sets from job objects.

``workloads_of(obj, inventory)`` is the single entry point used by rules and the admission
solver; results are cached on the object.
"""

from __future__ import annotations

from kueuelint.derive.model import PodSet, Workload


def workloads_of(obj, inventory) -> list[Workload]:
    cached = obj.cache.get("workloads")
    if cached is None:
        from kueuelint.derive.podsets import derive_workloads

        cached = obj.cache["workloads"] = derive_workloads(obj, inventory)
    return cached


__all__ = ["PodSet", "Workload", "workloads_of"]
