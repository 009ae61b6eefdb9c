"""The mutable state of a simulation: quota tree with usage, and who holds quota where."""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.accounting.quota import FR, QuotaTree
from kueuelint.admission.model import Admitted, ClusterQueue, Flavor


@dataclass
class State:
    tree: QuotaTree
    queues: dict[str, ClusterQueue]
    flavors: dict[str, Flavor]
    admitted_by_cq: dict[str, dict[str, Admitted]] = field(default_factory=dict)
    ignore_undeclared: bool = False
    fair_sharing: bool = False
    fair_strategies: tuple[str, ...] = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
    # Memo of preemption searches; a dict only while usage is frozen (see find_targets).
    target_cache: dict | None = None
    # queue -> flavor/resource -> holders using it: preemption only looks at contested resources.
    _by_resource: dict[str, dict[FR, dict[str, Admitted]]] = field(default_factory=dict)
    # queue -> flavor/resource -> priority -> usage: bounds what preemption could ever free.
    _by_priority: dict[str, dict[FR, dict[int, int]]] = field(default_factory=dict)

    def add(self, workload: Admitted) -> None:
        """Record a workload holding quota and charge its usage."""
        queue = workload.cluster_queue
        self.admitted_by_cq.setdefault(queue, {})[workload.key] = workload
        index = self._by_resource.setdefault(queue, {})
        for fr, amount in workload.usage.items():
            if amount > 0:
                index.setdefault(fr, {})[workload.key] = workload
        self._count_priority(workload, 1)
        if queue in self.tree.queues:
            self.tree.add_usage(queue, workload.usage)

    def remove(self, workload: Admitted) -> None:
        queue = workload.cluster_queue
        held = self.admitted_by_cq.get(queue, {})
        if held.pop(workload.key, None) is None:
            return
        index = self._by_resource.get(queue, {})
        for fr in workload.usage:
            index.get(fr, {}).pop(workload.key, None)
        self._count_priority(workload, -1)
        if queue in self.tree.queues:
            self.tree.add_usage(queue, workload.usage, sign=-1)

    def _count_priority(self, workload: Admitted, sign: int) -> None:
        per_fr = self._by_priority.setdefault(workload.cluster_queue, {})
        for fr, amount in workload.usage.items():
            buckets = per_fr.setdefault(fr, {})
            buckets[workload.priority] = buckets.get(workload.priority, 0) + sign * amount

    def usage_below(self, queue: str, fr: FR, priority: int | None, inclusive: bool = False) -> int:
        """Usage of ``queue`` held by workloads under ``priority`` (all of it when None)."""
        buckets = self._by_priority.get(queue, {}).get(fr, {})
        if priority is None:
            return sum(buckets.values())
        return sum(v for p, v in buckets.items() if p < priority or (inclusive and p == priority))

    def holders_using(self, queue: str, frs) -> list[Admitted]:
        """Holders of ``queue`` with a positive usage of any of ``frs``, each once."""
        index = self._by_resource.get(queue, {})
        if len(frs) == 1:
            return list(index.get(next(iter(frs)), {}).values())
        found: dict[str, Admitted] = {}
        for fr in frs:
            found.update(index.get(fr, {}))
        return list(found.values())

    def charge(self, queue: str, usage: dict, sign: int = 1) -> None:
        """Change usage without recording a holder (trial removals, reservations)."""
        self.tree.add_usage(queue, usage, sign)

    def holders(self, queue: str) -> list[Admitted]:
        return list(self.admitted_by_cq.get(queue, {}).values())
