"""Which ClusterQueues a change of the queue setup can affect at all.

Kueue's cohort trees never share quota: a workload's fate depends only on the tree of its
ClusterQueue (the dry admission relies on the same fact to simulate trees apart). A change
therefore reaches the trees holding a changed ClusterQueue or Cohort, the target of a changed
LocalQueue, and the users of a changed ResourceFlavor, AdmissionCheck or Topology. A tree
that a ClusterQueue leaves and the one it joins count as one. Any other changed object
(priority classes, Namespaces, LimitRanges, the Kueue Configuration) may reach every workload.
"""

from __future__ import annotations

from kueuelint.review.setup import QueueSetup

KUEUE = "kueue.x-k8s.io"
SCOPED_KINDS = ("ClusterQueue", "Cohort", "LocalQueue", "ResourceFlavor", "AdmissionCheck", "Topology")


def changed_objects(before: list, after: list) -> set[tuple] | None:
    """Identities (kind, namespace, name) of the setup objects whose data differ; None when
    an object outside the queue kinds changed."""
    data_b = {_identity(obj): obj.doc.data for obj in before}
    data_a = {_identity(obj): obj.doc.data for obj in after}
    changed = {key for key in set(data_b) | set(data_a) if data_b.get(key) != data_a.get(key)}
    if any(key[0] not in SCOPED_KINDS for key in changed):
        return None
    return {key[1:] for key in changed}


def _identity(obj) -> tuple:
    kind = obj.kind if obj.group == KUEUE else f"{obj.group}/{obj.kind}"
    return kind, obj.kind, obj.namespace, obj.name


def touched_queues(changed: set[tuple], setups: tuple[QueueSetup, QueueSetup]) -> set[str]:
    """The ClusterQueues of every cohort tree a changed object reaches, in either setup."""
    trees = _Trees()
    for setup in setups:
        for name, cq in setup.cluster_queues.items():
            trees.join(("cq", name), _root(setup, cq.parent) if cq.parent else ("cq", name))
        for name in setup.cohorts:
            trees.join(("cohort", name), _root(setup, name))
    reached = set()
    for kind, namespace, name in changed:
        reached |= _reached(kind, namespace, name, setups)
    roots = {trees.find(node) for node in reached}
    return {name for kind, name in trees.nodes() if kind == "cq" and trees.find((kind, name)) in roots}


def _root(setup: QueueSetup, cohort: str) -> tuple[str, str]:
    return "cohort", setup.root_of(cohort) or cohort


def _reached(kind: str, namespace: str | None, name: str, setups) -> set[tuple[str, str]]:
    if kind == "ClusterQueue":
        return {("cq", name)}
    if kind == "Cohort":
        return {("cohort", name)}
    found = set()
    for setup in setups:
        if kind == "LocalQueue" and (namespace or "default", name) in setup.local_queues:
            found.add(("cq", setup.local_queues[namespace or "default", name]))
        for cq_name, cq in setup.cluster_queues.items():
            uses = {
                "ResourceFlavor": name in cq.flavor_names(),
                "AdmissionCheck": name in cq.admission_checks,
                "Topology": any(setup.flavors.get(f) == name for f in cq.flavor_names()),
            }
            if uses.get(kind):
                found.add(("cq", cq_name))
    return found


class _Trees:
    """Union-find over ClusterQueues and cohorts."""

    def __init__(self) -> None:
        self._parent: dict[tuple[str, str], tuple[str, str]] = {}

    def nodes(self):
        return list(self._parent)

    def find(self, node: tuple[str, str]) -> tuple[str, str]:
        self._parent.setdefault(node, node)
        while self._parent[node] != node:
            self._parent[node] = self._parent[self._parent[node]]
            node = self._parent[node]
        return node

    def join(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self._parent[self.find(a)] = self.find(b)


def workload_queues(obj, setups: tuple[QueueSetup, QueueSetup]) -> set[str]:
    """The ClusterQueues a snapshot Workload belongs to on either side: the one its admission
    names, and those its LocalQueue points at."""
    data = obj.doc.data if isinstance(obj.doc.data, dict) else {}
    status = data.get("status") if isinstance(data.get("status"), dict) else {}
    admission = status.get("admission") if isinstance(status.get("admission"), dict) else {}
    found = {admission["clusterQueue"]} if isinstance(admission.get("clusterQueue"), str) else set()
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
    queue = spec.get("queueName") if isinstance(spec.get("queueName"), str) and spec.get("queueName") else "default"
    for setup in setups:
        target = setup.local_queues.get((obj.namespace or "default", queue))
        if target:
            found.add(target)
    return found
