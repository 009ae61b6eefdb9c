"""The mutable state of a simulation: quota tree with usage, and who holds quota where."""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.accounting.quota import QuotaTree
from kueuelint.admission.model import Admitted, ClusterQueue, Flavor


@dataclass
class State:
    tree: QuotaTree
    queues: dict[str, ClusterQueue]
    flavors: dict[str, Flavor]
    admitted_by_cq: dict[str, dict[str, Admitted]] = field(default_factory=dict)
    ignore_undeclared: bool = False
    fair_sharing: bool = False

    def add(self, workload: Admitted) -> None:
        """Record a workload holding quota and charge its usage."""
        self.admitted_by_cq.setdefault(workload.cluster_queue, {})[workload.key] = workload
        if workload.cluster_queue in self.tree.queues:
            self.tree.add_usage(workload.cluster_queue, workload.usage)

    def remove(self, workload: Admitted) -> None:
        held = self.admitted_by_cq.get(workload.cluster_queue, {})
        if held.pop(workload.key, None) is not None and workload.cluster_queue in self.tree.queues:
            self.tree.add_usage(workload.cluster_queue, workload.usage, sign=-1)

    def charge(self, queue: str, usage: dict, sign: int = 1) -> None:
        """Change usage without recording a holder (trial removals, reservations)."""
        self.tree.add_usage(queue, usage, sign)

    def holders(self, queue: str) -> list[Admitted]:
        return list(self.admitted_by_cq.get(queue, {}).values())
