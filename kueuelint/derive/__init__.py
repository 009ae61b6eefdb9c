"""Step 4: derive Kueue workloads and pod sets from job objects.

``workloads_of(obj, inventory)`` is the single entry point used by rules and the admission
solver; results are kept per inventory (``WORKLOADS``): the LimitRanges, RuntimeClasses and
Kueue Configuration of the run shape them.
"""

from __future__ import annotations

from kueuelint.derive.model import PodSet, Workload
from kueuelint.kueue.facts import ObjectFact


def _derive(obj, inventory) -> list[Workload]:
    from kueuelint.derive.podsets import derive_workloads

    return derive_workloads(obj, inventory)


WORKLOADS: ObjectFact[list[Workload]] = ObjectFact("workloads", _derive)


def workloads_of(obj, inventory) -> list[Workload]:
    return WORKLOADS.of(obj, inventory)


__all__ = ["PodSet", "Workload", "WORKLOADS", "workloads_of"]
