"""Topology-Aware Scheduling's data: a pod set's topology request, a TAS flavor's tree of
domains over its nodes, what a pod set asks of a flavor, and where its pods were placed.
Kueue's placement algorithm is in ``tas_placement``, its first phase in ``tas_counts``."""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.admission.model import as_dict, as_list


HOSTNAME = "kubernetes.io/hostname"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_LEVEL = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
NO_NODES = "topology not checked: no nodes in the snapshot"


@dataclass(frozen=True)
class TopologyRequest:
    """A pod set's topology request (Workload ``spec.podSets[].topologyRequest``, or the pod
    template's annotations that Kueue's job integrations turn into it)."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False
    slice_level: str | None = None
    slice_size: int | None = None

    @property
    def explicit(self) -> bool:
        return bool(self.required or self.preferred or self.unconstrained or self.slice_level)


def topology_request(template: object, stated: object = None) -> TopologyRequest | None:
    """The request of a pod set; ``stated`` is a Workload's ``topologyRequest``, which wins."""
    if isinstance(stated, dict) and stated:
        return _request(stated.get("required"), stated.get("preferred"), stated.get("unconstrained"),
                        stated.get("podSetSliceRequiredTopology"), stated.get("podSetSliceSize"))
    metadata = template.get("metadata") if isinstance(template, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return None
    found = _request(annotations.get(REQUIRED), annotations.get(PREFERRED),
                     str(annotations.get(UNCONSTRAINED, "")).lower() == "true",
                     annotations.get(SLICE_LEVEL), annotations.get(SLICE_SIZE))
    return found if found.explicit else None


def _request(required, preferred, unconstrained, slice_level, slice_size) -> TopologyRequest:
    size = None
    if isinstance(slice_size, int) and not isinstance(slice_size, bool):
        size = slice_size
    elif isinstance(slice_size, str) and slice_size.strip().lstrip("-").isdigit():
        size = int(slice_size)
    return TopologyRequest(required if isinstance(required, str) and required else None,
                           preferred if isinstance(preferred, str) and preferred else None,
                           unconstrained is True, slice_level if isinstance(slice_level, str) and slice_level else None,
                           size)


# --- the topology tree of one flavor ----------------------------------------------------------

class Domain:
    __slots__ = ("values", "children", "parent", "node", "key", "rank")

    def __init__(self, values: tuple[str, ...], parent: Domain | None) -> None:
        self.values = values
        self.children: list[Domain] = []
        self.parent = parent
        self.node = None           # the Node of a leaf, when the lowest level is the hostname
        self.key = ""              # a leaf's domain ID, under which its usage is kept
        self.rank = 0              # its place among its level's domains in order of values


@dataclass
class TasFlavor:
    """A ResourceFlavor with a ``topologyName`` whose Topology exists, and its nodes' tree.
    ``counts`` keeps phase 1 per pod shape, brought up to date as usage changes (tas_counts)."""

    name: str
    topology: str
    levels: tuple[str, ...]
    tolerations: list
    levels_by_depth: list[dict[tuple, Domain]] = field(default_factory=list)
    leaves: list[Domain] = field(default_factory=list)
    ranked: list[list[Domain]] = field(default_factory=list)          # per level, its domains by values
    leaf_of: dict[str, Domain] = field(default_factory=dict)          # leaf key -> leaf
    free: dict[str, dict[str, int]] = field(default_factory=dict)     # leaf key -> capacity
    counts: dict[tuple, object] = field(default_factory=dict)         # shape -> tas_counts.Counts
    plans: dict[object, object] = field(default_factory=dict)         # request -> tas_placement._plan
    # (leaf key -> amounts, +1 or -1) as usage changes (tas_counts.usage_changed)
    changed: list[tuple[dict[str, dict[str, int]], int]] = field(default_factory=list)

    @property
    def by_host(self) -> bool:
        return self.levels[-1] == HOSTNAME

    @property
    def usage_bucket(self) -> str:
        """Where its TAS usage is kept: hostname-level flavors share one bucket, as nodes are
        the same whichever flavor placed the pods (TASHandleOverlappingFlavors, beta)."""
        return "" if self.by_host else self.name

    def has_levels(self, request: TopologyRequest | None) -> bool:
        """Kueue's ``HasLevel``: the flavor's topology has every level the request names."""
        if request is None:
            return False
        main = request.required or request.preferred
        if main is None and request.slice_level:
            main = self.levels[0]
        if main is None and request.unconstrained:
            main = self.levels[-1]
        if main is None:
            return False
        return main in self.levels and (request.slice_level or self.levels[-1]) in self.levels

    def add_node(self, node) -> None:
        values = tuple(node.labels[level] for level in self.levels)
        key = values[-1] if self.by_host else ",".join(values)
        parent = None
        for depth in range(len(values)):
            known = self.levels_by_depth[depth].get(values[:depth + 1])
            if known is None:
                known = self.levels_by_depth[depth][values[:depth + 1]] = Domain(values[:depth + 1], parent)
                if parent is not None:
                    parent.children.append(known)
            parent = known
        leaf = parent
        assert leaf is not None
        if not leaf.key:
            leaf.key, leaf.node = key, node
            self.leaves.append(leaf)
            self.leaf_of[key] = leaf
            self.free[key] = {}
        free = self.free[key]
        for resource, amount in node.free().items():
            free[resource] = free.get(resource, 0) + amount


def build_flavor(name: str, topology: str, levels: tuple[str, ...], node_labels: dict, tolerations: list,
                 nodes) -> TasFlavor:
    flavor = TasFlavor(name, topology, levels, tolerations, [{} for _ in levels])
    for node in nodes:
        if all(node.labels.get(k) == str(v) for k, v in node_labels.items()) and all(
                level in node.labels for level in levels):
            flavor.add_node(node)
    flavor.ranked = [sorted(level.values(), key=lambda domain: domain.values) for level in flavor.levels_by_depth]
    for domains in flavor.ranked:
        for rank, domain in enumerate(domains):
            domain.rank = rank
    return flavor


# --- placement ----------------------------------------------------------------------------------

@dataclass
class Placement:
    levels: tuple[str, ...]
    domains: list[tuple[tuple[str, ...], int]]       # (values at ``levels``, pods)

    def usage(self, flavor: TasFlavor, per_pod: dict[str, int]) -> dict[str, dict[str, int]]:
        """Leaf key -> what the placed pods use there (their requests plus one pod each)."""
        used = {}
        for values, count in self.domains:
            key = values[-1] if flavor.by_host else ",".join(values)
            amounts = {resource: amount * count for resource, amount in per_pod.items()}
            amounts["pods"] = amounts.get("pods", 0) + count
            used[key] = amounts
        return used

    def as_json(self) -> dict:
        return {"levels": list(self.levels),
                "domains": [{"values": list(values), "count": count} for values, count in self.domains]}


@dataclass
class PodSetAsk:
    """What one pod set asks of a TAS flavor."""

    name: str
    count: int
    per_pod: dict[str, int]
    request: TopologyRequest | None      # None: implied TAS (a TAS-only ClusterQueue)
    tolerations: list
    node_selector: dict
    affinity_terms: list | None
    shape: tuple = field(default=(), init=False, repr=False, compare=False)     # tas_counts.shape_of
    memo_id: int = field(default=-1, init=False, repr=False, compare=False)    # topology.Topologies._place


# --- recorded placements ---------------------------------------------------------------------

def decode_assignment(data: dict) -> list[tuple[tuple[str, ...], int]]:
    """(values per level, pods) of a v1beta2 TopologyAssignment (compressed into slices of
    domains sharing a prefix and suffix), or of the v1beta1 form with a plain domain list."""
    if isinstance(data.get("domains"), list):
        return [(tuple(str(v) for v in as_list(d.get("values"))), _count(d.get("count")))
                for d in data["domains"] if isinstance(d, dict)]
    found = []
    for piece in as_list(data.get("slices")):
        if not isinstance(piece, dict):
            continue
        size = _count(piece.get("domainCount"))
        columns = [_level_values(v, size) for v in as_list(piece.get("valuesPerLevel"))]
        counts = _counts(as_dict(piece.get("podCounts")), size)
        for index in range(size):
            found.append((tuple(column[index] for column in columns), counts[index]))
    return found


def _level_values(values, size: int) -> list[str]:
    values = as_dict(values)
    if "universal" in values:
        return [str(values["universal"])] * size
    individual = as_dict(values.get("individual"))
    prefix, suffix = str(individual.get("prefix") or ""), str(individual.get("suffix") or "")
    roots = [str(r) for r in as_list(individual.get("roots"))]
    return [prefix + root + suffix for root in roots] + [""] * (size - len(roots))


def _counts(counts: dict, size: int) -> list[int]:
    if "universal" in counts:
        return [_count(counts["universal"])] * size
    listed = [_count(c) for c in as_list(counts.get("individual"))]
    return listed + [0] * (size - len(listed))


def _count(value) -> int:
    """A pod count as recorded; anything but a non-negative integer counts no pod (the API
    server would have refused it)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
