"""The queue setup as a tree to draw: cohort trees with their ClusterQueues, quota rows per
flavor and resource, LocalQueues by namespace, admission checks and topologies; with a
snapshot, usage and waiting workloads per ClusterQueue."""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.accounting.quota import FR
from kueuelint.review.setup import QueueSetup, QuotaOwner


@dataclass
class QuotaRow:
    flavor: str
    resource: str
    nominal: int | None
    borrowing_limit: int | None
    lending_limit: int | None
    usage: int | None = None        # None: no snapshot


@dataclass
class QueueNode:
    name: str
    rows: list[QuotaRow]
    admission_checks: list[str] = field(default_factory=list)
    topologies: dict[str, str] = field(default_factory=dict)   # flavor -> Topology
    pending: int | None = None
    stopped: bool = False


@dataclass
class CohortNode:
    name: str
    rows: list[QuotaRow]
    cohorts: list[CohortNode] = field(default_factory=list)
    queues: list[QueueNode] = field(default_factory=list)

    def all_queues(self) -> list[QueueNode]:
        return self.queues + [q for c in self.cohorts for q in c.all_queues()]


@dataclass
class QueueMap:
    cohorts: list[CohortNode]                   # roots
    queues: list[QueueNode]                     # ClusterQueues in no cohort
    local_queues: dict[str, list[tuple[str, str]]]  # namespace -> [(LocalQueue, ClusterQueue)]
    admission_checks: dict[str, str]
    topologies: dict[str, list[str]]

    def all_queues(self) -> list[QueueNode]:
        return self.queues + [q for c in self.cohorts for q in c.all_queues()]


def build_map(setup: QueueSetup, usage: dict[str, dict[FR, int]] | None = None,
              pending: dict[str, int] | None = None, roots: set[str] | None = None) -> QueueMap:
    """``usage``/``pending`` per ClusterQueue come from a snapshot (None: not known); ``roots``
    keeps only these cohort trees (a ClusterQueue in no cohort is its own root)."""
    tree = setup.tree()
    queues = {name: _queue_node(setup, cq, usage, pending) for name, cq in sorted(setup.cluster_queues.items())}
    children: dict[str | None, list[str]] = {}
    for name, cohort in sorted(setup.cohorts.items()):
        parent = None if tree.in_cycle(name) else cohort.parent
        children.setdefault(parent, []).append(name)
    members: dict[str | None, list[QueueNode]] = {}
    for name, cq in sorted(setup.cluster_queues.items()):
        cohort = None if cq.parent and tree.in_cycle(cq.parent) else cq.parent
        members.setdefault(cohort, []).append(queues[name])
    cohorts = [_cohort_node(setup, name, children, members) for name in children.get(None, [])]
    alone = members.get(None, [])
    if roots is not None:
        cohorts = [c for c in cohorts if c.name in roots]
        alone = [q for q in alone if q.name in roots]
    shown = {q.name for q in alone} | {q.name for c in cohorts for q in c.all_queues()}
    local_queues: dict[str, list[tuple[str, str]]] = {}
    for (namespace, name), cq in sorted(setup.local_queues.items()):
        if roots is None or cq in shown:
            local_queues.setdefault(namespace, []).append((name, cq))
    return QueueMap(cohorts, alone, local_queues, dict(sorted(setup.admission_checks.items())),
                    dict(sorted(setup.topologies.items())))


def _cohort_node(setup: QueueSetup, name: str, children, members) -> CohortNode:
    node = CohortNode(name, _rows(setup.cohorts[name], None))
    node.cohorts = [_cohort_node(setup, child, children, members) for child in children.get(name, [])]
    node.queues = members.get(name, [])
    return node


def _queue_node(setup: QueueSetup, cq: QuotaOwner, usage, pending) -> QueueNode:
    used = None if usage is None else usage.get(cq.name, {})
    node = QueueNode(cq.name, _rows(cq, used), list(cq.admission_checks), stopped=cq.stopped)
    node.topologies = {f: setup.flavors[f] for f in cq.flavor_names() if setup.flavors.get(f)}
    node.pending = None if pending is None else pending.get(cq.name, 0)
    return node


def _rows(owner: QuotaOwner, used: dict[FR, int] | None) -> list[QuotaRow]:
    rows = []
    for group in owner.groups:
        for flavor in group.flavors:
            for resource, limits in flavor.limits.items():
                amount = None if used is None else used.get((flavor.flavor, resource), 0)
                rows.append(QuotaRow(flavor.flavor, resource, limits["nominalQuota"], limits["borrowingLimit"],
                                     limits["lendingLimit"], amount))
    quoted = {(r.flavor, r.resource) for r in rows}
    for fr, amount in sorted((used or {}).items()):
        if fr not in quoted and amount:     # usage of a flavor the queue no longer has
            rows.append(QuotaRow(fr[0], fr[1], None, None, None, amount))
    return rows


def pending_per_queue(setup: QueueSetup, waiting: dict[tuple[str, str], int]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for where, count in waiting.items():
        cq = setup.local_queues.get(where)
        if cq:
            counts[cq] = counts.get(cq, 0) + count
    return counts
