"""Kueue's quota arithmetic: ClusterQueues and cohorts as a tree of resource nodes.

All amounts are integers in Kueue units (milli-cpu, bytes, whole units) and are keyed by a
flavor/resource pair ``(flavor, resource)``. The rules follow Kueue's resource-node model:

* a node's *local quota* is the part of its quota hidden from the parent by a lending limit;
* a cohort's *subtree quota* is its own quota plus what every child lends it;
* usage bubbles up to the parent only above the child's local quota;
* ``available`` is what a ClusterQueue could still take now, ``potential_available`` what it
  could take if nothing at all were in use (the "most a CQ could ever get").

The tree is pure data: no Kubernetes objects, so lint rules and the admission simulator share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# (flavor, resource). Typed as a variable-length tuple on purpose: the compiled build (mypyc)
# keeps a fixed-length tuple unboxed and boxes a new tuple object each time one is used as a
# dictionary key, which would undo ``flavor_resource`` and hash and compare afresh every time.
FR = tuple[str, ...]

_PAIRS: dict[FR, FR] = {}


def flavor_resource(flavor: str, resource: str) -> FR:
    """The one tuple standing for a flavor/resource pair. Dictionaries keyed by these pairs are
    read millions of times in a simulation; when every key is the same object, a look-up
    matches by identity instead of comparing both strings."""
    pair = (flavor, resource)
    return _PAIRS.setdefault(pair, pair)


@dataclass(frozen=True)
class ResourceQuota:
    """The limits a node declares for one flavor/resource."""

    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(eq=False)
class QuotaNode:
    """A ClusterQueue (leaf) or a cohort (inner node)."""

    name: str
    is_cluster_queue: bool
    quotas: dict[FR, ResourceQuota] = field(default_factory=dict)
    parent: QuotaNode | None = None
    children: list[QuotaNode] = field(default_factory=list)
    subtree: dict[FR, int] = field(default_factory=dict)
    local: dict[FR, int] = field(default_factory=dict)
    usage: dict[FR, int] = field(default_factory=dict)
    height: int = 0
    weight: float = 1.0
    # flavor/resource -> its cell (``cell_of``), made on the first walk that needs it
    cells: dict[FR, QuotaCell] = field(default_factory=dict, repr=False)

    def borrowing_limit(self, fr: FR) -> int | None:
        quota = self.quotas.get(fr)
        return quota.borrowing_limit if quota else None

    def local_available(self, fr: FR) -> int:
        free = self.local.get(fr, 0) - self.usage.get(fr, 0)
        return free if free > 0 else 0      # max(0, free), spelled out in this hot path

    def borrows_with(self, fr: FR, value: int) -> bool:
        """True when ``value`` more would take this node above its own subtree quota."""
        return self.subtree.get(fr, 0) < self.usage.get(fr, 0) + value

    def is_borrowing(self, fr: FR) -> bool:
        return self.borrows_with(fr, 0)

    def path_to_root(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def root(self) -> QuotaNode:
        node = self
        while node.parent is not None:
            node = node.parent
        return node


class QuotaCell:
    """One node's numbers for one flavor/resource, linked to the same flavor/resource of its
    parent. The walks to the root that the scheduler makes hundreds of thousands of times
    (``_bubble``, ``free_in``, ``borrowing_level_in``, the what-if walks of preemption)
    read attributes here: on the node's dictionaries they cost four look-ups per level, each
    hashing the flavor/resource tuple afresh. The quota numbers are fixed once the tree is
    finalized; ``usage`` is kept equal to the node's own ``usage`` entry by ``_bubble``, and
    ``QuotaTree.replace_usage`` drops the cells when usage is put in place from outside."""

    __slots__ = ("node", "quota", "usage", "local", "subtree", "borrowing_limit", "potential", "parent")

    def __init__(self, node: QuotaNode, quota: ResourceQuota | None, usage: int, local: int, subtree: int,
                 parent: QuotaCell | None) -> None:
        self.node = node
        self.quota = quota
        self.usage = usage
        self.local = local
        self.subtree = subtree
        self.borrowing_limit: int | None = quota.borrowing_limit if quota is not None else None
        self.potential: int | None = None       # potential_in's answer, once asked
        self.parent = parent


def cell_of(node: QuotaNode, fr: FR) -> QuotaCell:
    """The node's cell for ``fr`` (made, with its ancestors', the first time it is asked). The
    hottest callers look in ``node.cells`` themselves and call this only for a missing cell: a
    call costs about as much as the look-up."""
    cell = node.cells.get(fr)
    if cell is None:
        parent = node.parent
        cell = node.cells[fr] = QuotaCell(node, node.quotas.get(fr), node.usage.get(fr, 0), node.local.get(fr, 0),
                                          node.subtree.get(fr, 0), cell_of(parent, fr) if parent is not None else None)
    return cell


class QuotaTree:
    """The cohort forest of one snapshot. Build it, call ``finalize``, then account usage."""

    def __init__(self) -> None:
        self.queues: dict[str, QuotaNode] = {}
        self.cohorts: dict[str, QuotaNode] = {}
        self._cohort_parent: dict[str, str | None] = {}
        self._queue_cohort: dict[str, str | None] = {}
        self.cyclic_cohorts: set[str] = set()

    # --- building -------------------------------------------------------------------------

    def add_cohort(self, name: str, parent: str | None = None,
                   quotas: dict[FR, ResourceQuota] | None = None, weight: float = 1.0) -> None:
        node = self._cohort(name)
        node.quotas = dict(quotas or {})
        node.weight = weight
        self._cohort_parent[name] = parent or None
        if parent:
            self._cohort(parent)

    def add_cluster_queue(self, name: str, cohort: str | None,
                          quotas: dict[FR, ResourceQuota], weight: float = 1.0) -> QuotaNode:
        node = QuotaNode(name, True, dict(quotas), weight=weight)
        self.queues[name] = node
        self._queue_cohort[name] = cohort or None
        if cohort:
            self._cohort(cohort)
        return node

    def _cohort(self, name: str) -> QuotaNode:
        node = self.cohorts.get(name)
        if node is None:
            node = self.cohorts[name] = QuotaNode(name, False)
            self._cohort_parent.setdefault(name, None)
        return node

    def finalize(self) -> None:
        """Link parents (dropping cohorts caught in a cycle) and compute subtree quotas."""
        self.cyclic_cohorts = self._find_cycles()
        for name, parent in self._cohort_parent.items():
            if parent and name not in self.cyclic_cohorts and parent not in self.cyclic_cohorts:
                self._link(self.cohorts[name], self.cohorts[parent])
        for name, cohort in self._queue_cohort.items():
            if cohort and not self.in_cycle(cohort):
                self._link(self.queues[name], self.cohorts[cohort])
        for node in self._roots():
            _compute_subtree(node)
        self._drop_cells()

    def _drop_cells(self) -> None:
        for node in [*self.queues.values(), *self.cohorts.values()]:
            node.cells = {}

    def in_cycle(self, cohort: str) -> bool:
        """True when the cohort, or one of its ancestors, is part of a parent cycle."""
        seen: set[str] = set()
        name: str | None = cohort
        while name and name not in seen:
            if name in self.cyclic_cohorts:
                return True
            seen.add(name)
            name = self._cohort_parent.get(name)
        return False

    def _find_cycles(self) -> set[str]:
        cyclic: set[str] = set()
        for start in self._cohort_parent:
            path: list[str] = []
            name: str | None = start
            while name and name not in path:
                path.append(name)
                name = self._cohort_parent.get(name)
            if name:
                cyclic.update(path[path.index(name):])
        return cyclic

    @staticmethod
    def _link(child: QuotaNode, parent: QuotaNode) -> None:
        child.parent = parent
        parent.children.append(child)

    def _roots(self) -> list[QuotaNode]:
        nodes = list(self.cohorts.values()) + list(self.queues.values())
        return [node for node in nodes if node.parent is None]

    # --- usage ----------------------------------------------------------------------------

    def add_usage(self, queue: str, usage: dict[FR, int], sign: int = 1) -> None:
        """Add (``sign`` = 1) or remove (-1) a workload's usage, bubbling up the tree."""
        node = self.queues[queue]
        for fr, amount in usage.items():
            if amount:
                _bubble(node, fr, sign * amount)

    def replace_usage(self, queues: dict[str, dict[FR, int]], cohorts: dict[str, dict[FR, int]]) -> None:
        """Put in place the usage of these nodes reached elsewhere (by a forked simulation)."""
        for name, usage in queues.items():
            self.queues[name].usage = usage
        for name, usage in cohorts.items():
            self.cohorts[name].usage = usage
        self._drop_cells()

    # --- the numbers the scheduler uses ----------------------------------------------------

    def available(self, queue: str, fr: FR) -> int:
        free = free_in(cell_of(self.queues[queue], fr))
        return free if free > 0 else 0

    def potential_available(self, queue: str, fr: FR) -> int:
        return potential_in(cell_of(self.queues[queue], fr))

    def max_obtainable(self, queue: str, flavor: str, resource: str) -> int:
        """The most a ClusterQueue could ever hold of ``resource`` in ``flavor``."""
        return self.potential_available(queue, (flavor, resource))

    def borrowing_level(self, queue: str, fr: FR, value: int) -> tuple[int, bool]:
        """The height of the lowest subtree where ``value`` more fits, and whether that subtree
        lies below the root (then the queue "may reclaim in the hierarchy")."""
        return borrowing_level_in(cell_of(self.queues[queue], fr), value)

    def nominal(self, queue: str, fr: FR) -> int:
        quota = self.queues[queue].quotas.get(fr)
        return quota.nominal if quota else 0

    def usage(self, queue: str, fr: FR) -> int:
        return self.queues[queue].usage.get(fr, 0)

    def borrowed(self, queue: str, fr: FR) -> int:
        """How much of the queue's usage lies above its nominal quota."""
        return max(0, self.usage(queue, fr) - self.nominal(queue, fr))


def borrowing_level_in(cell: QuotaCell, value: int) -> tuple[int, bool]:
    """``QuotaTree.borrowing_level`` for the queue's own cell. Asked at every flavor tried:
    ``borrows_with`` and ``local_available`` spelled out."""
    ancestor = cell.parent
    if ancestor is None:
        return 0, False
    usage = cell.usage
    if cell.subtree >= usage + value:
        return 0, True
    local = cell.local
    remaining = value - (local - usage if local > usage else 0)
    while True:
        usage = ancestor.usage
        if ancestor.subtree >= usage + remaining:
            return ancestor.node.height, ancestor.parent is not None
        local = ancestor.local
        remaining -= local - usage if local > usage else 0
        if ancestor.parent is None:
            return ancestor.node.height, False
        ancestor = ancestor.parent


def potential_in(cell: QuotaCell) -> int:
    """``QuotaTree.potential_available`` for the cell's node: quotas alone decide it, so it is
    worked out once."""
    found = cell.potential
    if found is None:
        parent = cell.parent
        if parent is None:
            found = cell.subtree
        else:
            found = cell.local + potential_in(parent)
            limit = cell.borrowing_limit
            if limit is not None and cell.subtree + limit < found:
                found = cell.subtree + limit
        cell.potential = found
    return found


def _compute_subtree(node: QuotaNode) -> None:
    totals = {fr: quota.nominal for fr, quota in node.quotas.items()}
    height = 0
    for child in node.children:
        _compute_subtree(child)
        height = max(height, child.height + 1)
        for fr, amount in child.subtree.items():
            totals[fr] = totals.get(fr, 0) + amount - child.local.get(fr, 0)
    node.height = height if node.children or node.is_cluster_queue else 1
    node.subtree = totals
    node.local = {}
    for fr, quota in node.quotas.items():
        if quota.lending_limit is not None:
            node.local[fr] = max(0, totals.get(fr, 0) - quota.lending_limit)


def _bubble(node: QuotaNode, fr: FR, delta: int) -> None:
    cell: QuotaCell | None = node.cells.get(fr)
    if cell is None:
        cell = cell_of(node, fr)
    while cell is not None and delta:
        old = cell.usage
        new = old + delta
        cell.usage = new
        cell.node.usage[fr] = new
        local = cell.local
        # What the parent sees: usage above the local quota (max(0, ...) spelled out, as this
        # runs half a million times in a simulation and a call to max costs more than the rest).
        delta = (new - local if new > local else 0) - (old - local if old > local else 0)
        cell = cell.parent


def free_in(cell: QuotaCell) -> int:
    """What the cell's node could still take of its flavor/resource (may be below zero).
    The scheduler's most asked question, once per tree level: the node's own methods are
    spelled out here, as each call would cost more than its arithmetic."""
    usage = cell.usage
    parent = cell.parent
    if parent is None:
        return cell.subtree - usage
    from_parent = free_in(parent)
    local = cell.local
    limit = cell.borrowing_limit
    if limit is not None:
        cap = (cell.subtree - local) - (usage - local if usage > local else 0) + limit
        if cap < from_parent:
            from_parent = cap
    return (local - usage if local > usage else 0) + from_parent
