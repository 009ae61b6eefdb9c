"""The ResourceFlavors Kueue may choose for a queued pod set (kueue-scheduler.md §2.2).

A workload names a LocalQueue, the LocalQueue a ClusterQueue, and each resource group of the
ClusterQueue lists flavors; Kueue picks one flavor per group the pod set needs. The placement
rules (KQ701, KQ702, KQ704) and the gang rule (KQ320) all start from that chain, so it is
resolved once per object (``queued``) and each ClusterQueue's groups, with their flavors'
nodeLabels, taints and tolerations, once per run. Whether a flavor accepts a pod set is
``flavor_matching``'s question.

This layer sits below the objects it reads: objects, inventories and rule contexts are used
through their attributes (``spec``, ``local_queue_for``, ``workloads``...), never imported.
"""

from __future__ import annotations

from typing import NamedTuple

from kueuelint.kueue.facts import Fact, ObjectFact

# Objects that are not jobs of their own: compute configs have their own rules (KQ807, KQ855),
# and Kueue's Workload objects are what a job becomes, not something users write.
SKIPPED_KINDS = ("anyscale.com/ComputeConfig", "skypilot.co/Task", "kueue.x-k8s.io/Workload")
PODS = "pods"

# The records are NamedTuples: a run that reaches this module defines them, and a dataclass
# compiles its methods then (8 million instructions for these five).


class Target(NamedTuple):
    """Where a workload is queued: its LocalQueue and the ClusterQueue behind it."""

    local_queue: object
    cluster_queue: object

    def describe(self) -> str:
        lq, cq = self.local_queue, self.cluster_queue
        return f"ClusterQueue {cq.name} (via LocalQueue {lq.namespace}/{lq.name})"  # type: ignore[attr-defined]


class FlavorNodes(NamedTuple):
    """A ResourceFlavor as the scheduler matches it: it stands in for the nodes it names."""

    name: str
    node_labels: dict     # spec.nodeLabels as written (messages show the values as written)
    taints: list
    tolerations: list


class FlavorGroup(NamedTuple):
    """One resource group of a ClusterQueue; ``flavors`` is None when one of them is not in the
    run (its labels and taints are unknown), ``names`` are the well-formed flavor names."""

    resources: list[str]
    flavors: list[FlavorNodes] | None
    names: list[str]

    def used_by(self, requested: set[str]) -> bool:
        """Does a pod set requesting ``requested`` (resources with an amount above 0) need it?"""
        return PODS in self.resources or not requested.isdisjoint(self.resources)


class PodPlacement(NamedTuple):
    """A pod template's nodeSelector, required node affinity terms and tolerations."""

    node_selector: dict
    affinity_terms: list | None
    tolerations: list

    @property
    def constrained(self) -> bool:
        return bool(self.node_selector or self.affinity_terms)


class QueuedPodSet(NamedTuple):
    """A pod set of a queued workload, with where it goes and what its template asks of nodes."""

    workload: object
    pod_set: object
    target: Target
    placement: PodPlacement
    groups: list[FlavorGroup]    # the ClusterQueue's resource groups the pod set uses, in order


# --- per object --------------------------------------------------------------------------------

def managed_workloads(obj, ctx) -> list:
    """The derived workloads of ``obj`` that carry a queue name."""
    if obj.key in SKIPPED_KINDS:
        return []
    return [w for w in ctx.workloads(obj) if w.queue_name]


def queued_workloads(obj, ctx) -> list[tuple[object, Target]]:
    """(workload, target) of every managed workload whose queues the run shows; once per object."""
    return QUEUED_WORKLOADS.of(obj, ctx)


def _queued_workloads(obj, ctx) -> list[tuple[object, Target]]:
    return [(workload, target) for workload in managed_workloads(obj, ctx)
            if (target := target_of(obj, workload, ctx.inventory)) is not None]


QUEUED_WORKLOADS: ObjectFact[list[tuple[object, Target]]] = ObjectFact("queued-workloads", _queued_workloads)


def queued(obj, ctx) -> list[QueuedPodSet]:
    """Every pod set of ``obj``'s queued workloads with its candidate flavors; once per object."""
    return QUEUED_POD_SETS.of(obj, ctx)


def _queued(obj, ctx) -> list[QueuedPodSet]:
    return [QueuedPodSet(workload, pod_set, target, pod_placement(pod_set.template),
                         _used_groups(flavor_groups(target.cluster_queue, ctx.inventory), pod_set))
            for workload, target in queued_workloads(obj, ctx) for pod_set in workload.pod_sets]


def _used_groups(groups: list[FlavorGroup], pod_set) -> list[FlavorGroup]:
    requested = {name for name, amount in pod_set.requests.items() if amount > 0}
    return [group for group in groups if group.used_by(requested)]


QUEUED_POD_SETS: ObjectFact[list[QueuedPodSet]] = ObjectFact("queued-pod-sets", _queued)


def target_of(obj, workload, inventory) -> Target | None:
    """The queues behind a workload; None when the run does not show both (other rules report
    missing queues) or holds different objects of the same name (then which one the cluster
    has is unknown: a kustomize base and overlay, or unrelated examples checked together)."""
    local_queue = inventory.local_queue_for(obj, workload.queue_name)
    cluster_queue = inventory.cluster_queue_of(local_queue)
    if local_queue is None or cluster_queue is None:
        return None
    if ambiguous(inventory, local_queue) or ambiguous(inventory, cluster_queue):
        return None
    return Target(local_queue, cluster_queue)


def ambiguous(inventory, obj) -> bool:
    """True when the run defines ``obj``'s kind/namespace/name more than once, differently."""
    known = CONFLICTING_DEFINITIONS.of(inventory)
    if obj.key not in known:
        specs: dict[tuple, list] = {}
        for other in inventory.of_kind(obj.key):
            specs.setdefault((other.namespace, other.name), []).append(other.data.get("spec"))
        known[obj.key] = {identity for identity, found in specs.items()
                          if any(spec != found[0] for spec in found[1:])}
    return (obj.namespace, obj.name) in known[obj.key]


# kind -> the (namespace, name) pairs defined more than once with different specs
CONFLICTING_DEFINITIONS: Fact[dict[str, set]] = Fact("conflicting-definitions", lambda inventory: {})


def pod_placement(template) -> PodPlacement:
    spec = template.get("spec") if isinstance(template, dict) else None
    spec = spec if isinstance(spec, dict) else {}
    selector, tolerations = spec.get("nodeSelector"), spec.get("tolerations")
    return PodPlacement(dict(selector) if isinstance(selector, dict) else {},
                        required_terms(spec.get("affinity")),
                        list(tolerations) if isinstance(tolerations, list) else [])


def required_terms(affinity) -> list | None:
    """The nodeSelectorTerms of a required node affinity; None when there are none."""
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") \
        if isinstance(node_affinity, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    return list(terms) if isinstance(terms, list) else None


# --- per ClusterQueue ----------------------------------------------------------------------------

def flavor_groups(cluster_queue, inventory) -> list[FlavorGroup]:
    """The ClusterQueue's resource groups with their flavors, read once per run."""
    known = FLAVOR_GROUPS.of(inventory)
    groups = known.get(cluster_queue)   # objects hash by identity
    if groups is None:
        groups = known[cluster_queue] = [
            FlavorGroup(group_resources(group), _flavors(group, flavors_by_name(inventory)), _names(group))
            for group in resource_groups(cluster_queue)]
    return groups


# ClusterQueue -> its resource groups with their flavors
FLAVOR_GROUPS: Fact[dict[object, list[FlavorGroup]]] = Fact("flavor-groups", lambda inventory: {})


def resource_groups(cluster_queue) -> list[dict]:
    groups = cluster_queue.spec.get("resourceGroups")
    return [g for g in groups if isinstance(g, dict)] if isinstance(groups, list) else []


def group_resources(group: dict) -> list[str]:
    names = group.get("coveredResources")
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _names(group: dict) -> list[str]:
    flavors = group.get("flavors") if isinstance(group.get("flavors"), list) else []
    return [f["name"] for f in flavors if isinstance(f, dict) and isinstance(f.get("name"), str)]


def _flavors(group: dict, known: dict[str, FlavorNodes]) -> list[FlavorNodes] | None:
    found = []
    for entry in group.get("flavors") if isinstance(group.get("flavors"), list) else []:
        name = entry.get("name") if isinstance(entry, dict) else None
        flavor = known.get(name) if isinstance(name, str) else None
        if flavor is None:
            return None
        found.append(flavor)
    return found


def flavors_by_name(inventory, last: bool = False) -> dict[str, FlavorNodes]:
    """The run's ResourceFlavors by name: the first definition of a name, as the inventory finds
    it, or the ``last`` one; read once per run."""
    return (LAST_FLAVORS_BY_NAME if last else FLAVORS_BY_NAME).of(inventory)


def _flavors_by_name(inventory, last: bool) -> dict[str, FlavorNodes]:
    found = inventory.kueue_of_kind("ResourceFlavor")
    return {flavor.name: flavor_nodes(flavor) for flavor in (found if last else reversed(found))}


FLAVORS_BY_NAME: Fact[dict[str, FlavorNodes]] = Fact(
    "flavors-by-name", lambda inventory: _flavors_by_name(inventory, last=False))
LAST_FLAVORS_BY_NAME: Fact[dict[str, FlavorNodes]] = Fact(
    "flavors-by-name-last", lambda inventory: _flavors_by_name(inventory, last=True))


def flavor_nodes(flavor) -> FlavorNodes:
    spec = flavor.spec
    labels, taints, tolerations = spec.get("nodeLabels"), spec.get("nodeTaints"), spec.get("tolerations")
    return FlavorNodes(flavor.name, dict(labels) if isinstance(labels, dict) else {},
                       list(taints) if isinstance(taints, list) else [],
                       list(tolerations) if isinstance(tolerations, list) else [])
