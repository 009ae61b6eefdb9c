"""Quota, usage and placement changes per ClusterQueue and cohort between two setups.

Usage is what a simulation ends with: the snapshot's holders plus what it admitted. The
arithmetic is the quota tree of ``kueuelint.accounting.quota`` (Kueue's resource nodes).
"""

from __future__ import annotations

from dataclasses import dataclass

from kueuelint.accounting.quota import FR
from kueuelint.review.setup import QueueSetup


@dataclass
class QuotaRow:
    kind: str                       # ClusterQueue | Cohort
    name: str
    flavor: str
    resource: str
    before: dict[str, int | None] | None
    after: dict[str, int | None] | None


@dataclass
class Placement:
    kind: str
    name: str
    before: str | None              # parent cohort (None: none, or absent)
    after: str | None
    present: tuple[bool, bool]


def _limits(setup: QueueSetup, kind: str, name: str, fr: FR, used: int, tree) -> dict[str, int | None] | None:
    owners = setup.cluster_queues if kind == "ClusterQueue" else setup.cohorts
    if name not in owners:
        return None
    quota = owners[name].quotas().get(fr)
    node = (tree.queues if kind == "ClusterQueue" else tree.cohorts)[name]
    found = {"nominal": quota.nominal if quota else 0,
             "borrowingLimit": quota.borrowing_limit if quota else None,
             "lendingLimit": quota.lending_limit if quota else None,
             "usage": used}
    if kind == "ClusterQueue":
        found["maxCapacity"] = tree.potential_available(name, fr)
    else:
        found["subtreeQuota"] = node.subtree.get(fr, 0)
    return found


def quota_rows(setup_b: QueueSetup, setup_a: QueueSetup, totals_b, totals_a) -> list[QuotaRow]:
    trees = [_tree_with_usage(setup_b, totals_b), _tree_with_usage(setup_a, totals_a)]
    rows = []
    for kind, attr in (("ClusterQueue", "cluster_queues"), ("Cohort", "cohorts")):
        for name in sorted(set(getattr(setup_b, attr)) | set(getattr(setup_a, attr))):
            for fr in sorted(_pairs(kind, name, (setup_b, setup_a), trees)):
                sides = [_limits(setup, kind, name, fr, _used(tree, kind, name, fr), tree)
                         for setup, tree in zip((setup_b, setup_a), trees)]
                if sides[0] != sides[1]:
                    rows.append(QuotaRow(kind, name, fr[0], fr[1], sides[0], sides[1]))
    return rows


def _pairs(kind: str, name: str, setups, trees) -> set[FR]:
    pairs: set[FR] = set()
    for setup, tree in zip(setups, trees):
        owners = setup.cluster_queues if kind == "ClusterQueue" else setup.cohorts
        if name in owners:
            node = (tree.queues if kind == "ClusterQueue" else tree.cohorts)[name]
            pairs |= set(owners[name].quotas()) | set(node.usage) | set(node.subtree)
    return pairs


def _used(tree, kind: str, name: str, fr: FR) -> int:
    nodes = tree.queues if kind == "ClusterQueue" else tree.cohorts
    return nodes[name].usage.get(fr, 0) if name in nodes else 0


def _tree_with_usage(setup: QueueSetup, totals: dict[str, dict[FR, int]]):
    tree = setup.tree()
    for name, used in totals.items():
        if name in tree.queues:
            tree.add_usage(name, used)
    return tree


def placements(setup_b: QueueSetup, setup_a: QueueSetup) -> list[Placement]:
    moved = []
    for kind, attr in (("ClusterQueue", "cluster_queues"), ("Cohort", "cohorts")):
        old, new = getattr(setup_b, attr), getattr(setup_a, attr)
        for name in sorted(set(old) | set(new)):
            parents = (old[name].parent if name in old else None, new[name].parent if name in new else None)
            present = (name in old, name in new)
            if parents[0] != parents[1] or present[0] != present[1]:
                moved.append(Placement(kind, name, parents[0], parents[1], present))
    return moved


def over_admitted(setup: QueueSetup, totals: dict[str, dict[FR, int]]) -> list[tuple[str, str, str]]:
    """Queues and root cohorts holding more than they could be admitted now: Kueue admits
    nothing more there, for that flavor/resource, until usage drops (no eviction)."""
    tree = _tree_with_usage(setup, totals)
    found = []
    for name, node in sorted(tree.queues.items()):
        for fr, used in sorted(node.usage.items()):
            if used > tree.potential_available(name, fr):
                found.append(("ClusterQueue", name, f"{fr[0]}/{fr[1]}"))
    for name, node in sorted(tree.cohorts.items()):
        if node.parent is None:
            found += [("Cohort", name, f"{fr[0]}/{fr[1]}") for fr, used in sorted(node.usage.items())
                      if used > node.subtree.get(fr, 0)]
    return found
