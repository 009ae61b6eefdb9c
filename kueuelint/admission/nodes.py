"""Nodes and running Pods of a snapshot (`kubectl get nodes,pods -A -o json`) as free capacity
per node, in Kueue units: what topology-aware scheduling and check-capacity admission checks
place pods on.

A node counts only when it is Ready and not cordoned: Kueue's TAS cache drops the others
(pkg/cache/scheduler/tas_nodes_cache.go, ``sync``). A running Pod uses its requests plus one
``pods`` on its node, unless it is a TAS pod (its Workload's topology assignment counts it) or
has finished (pkg/controller/tas/non_tas_usage_controller.go, ``belongsToNonTASCache``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from kueuelint.accounting.quantity import safe_parse, to_kueue_units
from kueuelint.kueue.facts import Fact
from kueuelint.kueue.flavor_matching import BLOCKING_EFFECTS, expression_matches, tolerates

TAS_POD_ANNOTATIONS = (
    "kueue.x-k8s.io/podset-required-topology",
    "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-unconstrained-topology",
    "kueue.x-k8s.io/podset-slice-required-topology",
)
TERMINATED_PHASES = ("Succeeded", "Failed")


@dataclass
class Node:
    name: str
    labels: dict[str, str]
    taints: list[dict]
    allocatable: dict[str, int]
    used: dict[str, int] = field(default_factory=dict)     # by non-TAS pods, plus one pod each

    def free(self) -> dict[str, int]:
        """Allocatable minus what running non-TAS pods use (negative when overcommitted)."""
        free = dict(self.allocatable)
        for resource, amount in self.used.items():
            free[resource] = free.get(resource, 0) - amount
        return free


def read_nodes(inventory, count_tas_pods: bool = False) -> dict[str, Node] | None:
    """The snapshot's schedulable nodes by name, with their pods' usage; None when the
    snapshot holds no Node at all (nothing about placement can be said then). TAS pods are
    left out unless ``count_tas_pods`` (Kueue counts them through their Workloads; the
    cluster autoscaler sees every pod). Read once per inventory: nothing changes them."""
    return (NODES_WITH_TAS_PODS if count_tas_pods else NODES).of(inventory)


def _read_nodes(inventory, count_tas_pods: bool) -> dict[str, Node] | None:
    listed = inventory.of_kind("Node")
    if not listed:
        return None
    nodes = {}
    for obj in listed:
        node = _node(obj)
        if node is not None and obj.name not in nodes:
            nodes[obj.name] = node
    for obj in inventory.of_kind("Pod"):
        _charge_pod(obj, nodes, count_tas_pods)
    return nodes


NODES = Fact("nodes", lambda inventory: _read_nodes(inventory, False))
NODES_WITH_TAS_PODS = Fact("nodes-with-tas-pods", lambda inventory: _read_nodes(inventory, True))


def _node(obj) -> Node | None:
    if obj.get("spec", "unschedulable") is True or not _ready(obj.get("status", "conditions")):
        return None
    allocatable = obj.get("status", "allocatable")
    amounts = {}
    if isinstance(allocatable, dict):
        for resource, value in allocatable.items():
            units = _units(str(resource), value)
            if units is not None:
                amounts[str(resource)] = units
    taints = obj.get("spec", "taints")
    labels = {str(k): str(v) for k, v in obj.labels.items()}
    return Node(obj.name, labels, [t for t in taints if isinstance(t, dict)] if isinstance(taints, list) else [],
                amounts)


def _ready(conditions) -> bool:
    if not isinstance(conditions, list):
        return False
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _charge_pod(obj, nodes: dict[str, Node], count_tas_pods: bool) -> None:
    # Tens of thousands of pods: their data is read straight, with the checks spelled out.
    data = obj.doc.data
    spec = data.get("spec") if isinstance(data, dict) else None
    if not isinstance(spec, dict):
        return
    node = nodes.get(str(spec.get("nodeName") or ""))
    status = data.get("status")
    if node is None or (isinstance(status, dict) and status.get("phase") in TERMINATED_PHASES):
        return
    if not count_tas_pods and any(key in obj.annotations for key in TAS_POD_ANNOTATIONS):
        return
    used = node.used
    for resource, amount in pod_usage(spec).items():
        used[resource] = used.get(resource, 0) + amount
    used["pods"] = used.get("pods", 0) + 1


def pod_usage(spec: dict) -> dict[str, int]:
    """Per-pod requests in Kueue units. Most running pods name plain container requests, and
    thousands repeat a few shapes: those are summed from cached quantities; any other pod
    (init containers, limits only, overhead, pod-level resources) follows Kubernetes' rules."""
    simple = _simple_requests(spec)
    if simple is not None:
        return simple
    from kueuelint.accounting.requests import pod_requests

    requests = pod_requests(spec).requests
    return {name: to_kueue_units(name, value) for name, value in requests.items()}


def _simple_requests(spec: dict) -> dict[str, int] | None:
    if any(spec.get(key) for key in ("initContainers", "overhead", "resources")):
        return None
    containers = spec.get("containers")
    if not isinstance(containers, list):
        return {}
    total: dict[str, int] = {}
    for container in containers:
        resources = container.get("resources") if isinstance(container, dict) else None
        if not resources:
            continue
        if not isinstance(resources, dict) or set(resources) - {"requests"}:
            return None
        requests = resources.get("requests")
        if not isinstance(requests, dict):
            return None
        for resource, value in requests.items():
            units = _units(str(resource), value)
            if units is None:
                return None
            total[str(resource)] = total.get(str(resource), 0) + units
    return total


@lru_cache(maxsize=4096)
def _cached_units(resource: str, value: str) -> int | None:
    quantity, _ = safe_parse(value)
    return None if quantity is None else to_kueue_units(resource, quantity)


def _units(resource: str, value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return _cached_units(resource, str(value))


# --- does a pod go on a node ---------------------------------------------------------------------

def untolerated_taint(node: Node, tolerations: list) -> dict | None:
    """The first NoSchedule/NoExecute taint of the node that no toleration covers."""
    for taint in node.taints:
        if taint.get("effect") in BLOCKING_EFFECTS and not any(
                isinstance(t, dict) and tolerates(t, taint) for t in tolerations):
            return taint
    return None


def selects(node: Node, selector: dict) -> bool:
    return all(node.labels.get(str(k)) == str(v) for k, v in selector.items())


def affinity_allows(node: Node, terms: list | None) -> bool:
    """Required node affinity: some term whose expressions all hold (no terms: any node)."""
    return not terms or any(_term_matches(term, node.labels) for term in terms)


def _term_matches(term, labels: dict) -> bool:
    expressions = term.get("matchExpressions") if isinstance(term, dict) else None
    return isinstance(expressions, list) and bool(expressions) and all(
        isinstance(e, dict) and expression_matches(e, labels) for e in expressions)
