"""Placement: where pods of a Kueue-managed workload may run is the ResourceFlavors' business.

Kueue chooses a flavor per resource group and then adds the flavor's ``nodeLabels`` and
``tolerations`` to the pods. A nodeSelector or required node affinity in the pod template takes
part in that choice: a flavor is skipped when the selector disagrees with one of the flavor's own
labels (kueue-scheduler.md §2.2; label keys the flavor does not define are ignored, so an
unlabeled flavor matches everything). Which flavors a pod set may get is resolved once per object
by kueuelint.kueue.flavor_candidates; whether one accepts it is kueuelint.kueue.flavor_matching's.
"""

from __future__ import annotations

from typing import NamedTuple

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import ObjectFact
from kueuelint.kueue.flavor_candidates import FlavorNodes, QueuedPodSet, Target, queued
from kueuelint.kueue.flavor_matching import matches_node_labels, taint_text, untolerated_taint

REQUIRED = ("requiredDuringSchedulingIgnoredDuringExecution",)
AFFINITY = ("affinity", "nodeAffinity") + REQUIRED
# Tolerations are not among them: they never narrow the flavors Kueue may choose, and a flavor
# with nodeTaints needs them (KQ704 reports the opposite case, a pod set no flavor accepts).
FIELDS = {"nodeSelector": ("nodeSelector",), "required node affinity": AFFINITY}
# Label keys that name node properties; a flavor carrying them in metadata.labels meant nodeLabels.
NODE_LABEL_PREFIXES = (
    "node.kubernetes.io/", "topology.kubernetes.io/", "kubernetes.io/arch", "kubernetes.io/os",
    "kubernetes.io/hostname", "beta.kubernetes.io/", "failure-domain.beta.kubernetes.io/",
    "node-role.kubernetes.io/", "feature.node.kubernetes.io/", "cloud.google.com/", "topology.gke.io/",
    "eks.amazonaws.com/", "k8s.amazonaws.com/", "karpenter.sh/", "karpenter.k8s.aws/",
    "kubernetes.azure.com/", "node.openshift.io/", "nvidia.com/", "amd.com/")
NODE_LABEL_NAMES = frozenset({
    "instance-type", "instance_type", "instancetype", "node-type", "nodetype", "machine-type",
    "nodepool", "node-pool", "agentpool", "pool", "accelerator", "gpu", "gpu-type", "gpu-model",
    "cpu-type", "capacity-type", "lifecycle", "spot", "preemptible", "zone", "region", "arch"})


class Conflict(NamedTuple):
    """A pod set whose selector or required affinity rules out every flavor of a group."""

    pod_set: object
    path: tuple
    field: str                # "nodeSelector" or "required node affinity"
    what: str                 # the selector text, e.g. "pool=small"
    flavors: list[FlavorNodes]
    resources: list[str]
    target: Target


# --- KQ702: no flavor can ever match ----------------------------------------------------------------

def conflicts(obj: KObject, ctx: RuleContext) -> list[Conflict]:
    return PLACEMENT_CONFLICTS.of(obj, ctx)


def _find_conflicts(obj: KObject, ctx: RuleContext) -> list[Conflict]:
    found, seen = [], set()
    for queued_set in queued(obj, ctx):
        conflict = _pod_set_conflict(queued_set)
        if conflict is not None and conflict.path not in seen:
            seen.add(conflict.path)
            found.append(conflict)
    return found


PLACEMENT_CONFLICTS: ObjectFact[list[Conflict]] = ObjectFact("placement-conflicts", _find_conflicts)


def _pod_set_conflict(queued_set: QueuedPodSet) -> Conflict | None:
    spec = queued_set.placement
    if not spec.constrained:
        return None
    for group in queued_set.groups:
        if not group.flavors or any(matches_node_labels(flavor, spec) for flavor in group.flavors):
            continue
        return _describe(queued_set.pod_set, spec, group.flavors, group.resources, queued_set.target)
    return None


def _describe(pod_set, spec, flavors, resources, target) -> Conflict:
    selector_only = spec._replace(affinity_terms=None)
    if spec.node_selector and not any(matches_node_labels(flavor, selector_only) for flavor in flavors):
        key = _conflicting_key(spec.node_selector, flavors[0])
        path = pod_set.spec_path + ("nodeSelector",) + ((key,) if key is not None else ())
        shown = {key: spec.node_selector[key]} if key is not None else spec.node_selector
        what = ", ".join(f"{k}={v}" for k, v in shown.items())
        return Conflict(pod_set, path, "nodeSelector", what, flavors, resources, target)
    return Conflict(pod_set, pod_set.spec_path + AFFINITY, "required node affinity",
                    "its nodeSelectorTerms", flavors, resources, target)


def _conflicting_key(selector: dict, flavor: FlavorNodes):
    labels = flavor.node_labels
    return next((k for k, v in selector.items() if k in labels and str(labels[k]) != str(v)), None)


def _node_labels(flavor: KObject) -> dict:
    labels = flavor.spec.get("nodeLabels")
    return labels if isinstance(labels, dict) else {}


def _flavor_text(flavor: FlavorNodes) -> str:
    labels = flavor.node_labels
    shown = ", ".join(f"{k}={v}" for k, v in labels.items()) if labels else "no nodeLabels"
    return f"{flavor.name} ({shown})"


@rule("KQ702")
def placement_matches_no_flavor(obj: KObject, ctx: RuleContext):
    for conflict in conflicts(obj, ctx):
        # this error says more about the field than a KQ701 warning would
        field = conflict.path[:len(conflict.pod_set.spec_path) + 1]
        placed = conflict.pod_set.spec_path + (AFFINITY if field[-1] == "affinity" else ("nodeSelector",))
        yield Violation(path=conflict.path, replaces=(("KQ701", placed),), args={
            "pod_set": conflict.pod_set.name, "field": conflict.field, "what": conflict.what,
            "target": conflict.target.describe(), "resources": ", ".join(conflict.resources),
            "flavors": "; ".join(_flavor_text(f) for f in conflict.flavors),
            "first": conflict.flavors[0].name})


# --- KQ701: placement in the pod template at all -----------------------------------------------------

@rule("KQ701")
def placement_in_pod_template(obj: KObject, ctx: RuleContext):
    # A selector on keys the flavors define takes part in Kueue's choice of flavor (KQ702 when it
    # rules out every one). Only keys no flavor of the group defines escape it: Kueue ignores
    # them when it picks the flavor, so quota is charged to a flavor whose nodes the pods may
    # never use. Without the flavors in the run nothing can be told.
    reported = {c.path[:len(c.pod_set.spec_path) + 1] for c in conflicts(obj, ctx)}
    seen = set()
    for queued_set in queued(obj, ctx):
        pod_set, target = queued_set.pod_set, queued_set.target
        if not queued_set.placement.constrained:
            continue   # neither field is set (nor usable)
        spec = pod_set.template.get("spec") if isinstance(pod_set.template, dict) else None
        flavor_keys = _flavor_label_keys(queued_set)
        for field, relative in FIELDS.items():
            value = _follow(spec, relative)
            path = pod_set.spec_path + relative
            if not value or flavor_keys is None or path in seen \
                    or path[:len(pod_set.spec_path) + 1] in reported:
                continue   # KQ702 already reports this field as a hard error
            keys = _selector_keys(field, value)
            if keys and not keys & flavor_keys:
                seen.add(path)
                yield Violation(path=path, args={
                    "pod_set": pod_set.name, "field": field, "what": _summary(field, value),
                    "target": target.describe()})


def _flavor_label_keys(queued_set: QueuedPodSet) -> set | None:
    """The nodeLabels keys of every flavor the pod set may get; None when a flavor is unknown."""
    keys: set = set()
    for group in queued_set.groups:
        if group.flavors is None:
            return None
        keys.update(key for flavor in group.flavors for key in flavor.node_labels)
    return keys


def _selector_keys(field: str, value) -> set:
    if field == "nodeSelector":
        return {key for key in value} if isinstance(value, dict) else set()
    terms = value.get("nodeSelectorTerms") if isinstance(value, dict) else None
    return {str(e.get("key")) for t in terms if isinstance(t, dict)
            for e in t.get("matchExpressions") or () if isinstance(e, dict)} \
        if isinstance(terms, list) else set()


def _value_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, (str, int, float)) else "?"


def _follow(node, path: tuple):
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _summary(field: str, value) -> str:
    # sorted, and values shown as the rule's CEL form (exported by `export vap`) shows them
    if field == "nodeSelector" and isinstance(value, dict):
        return ", ".join(f"{k}={_value_text(value[k])}" for k in sorted(k for k in value if isinstance(k, str)))
    keys = sorted(_selector_keys(field, value))
    return "on " + ", ".join(keys) if keys else "set"


# --- KQ704: every flavor of a group has a taint the pod set does not tolerate ---------------------

@rule("KQ704")
def flavor_taints_not_tolerated(obj: KObject, ctx: RuleContext):
    seen = set()
    for queued_set in queued(obj, ctx):
        pod_set, target = queued_set.pod_set, queued_set.target
        refusal = _untolerated_everywhere(queued_set)
        if refusal is None or pod_set.spec_path in seen:
            continue
        seen.add(pod_set.spec_path)
        spec = pod_set.template.get("spec") if isinstance(pod_set.template, dict) else None
        has_tolerations = isinstance(spec, dict) and "tolerations" in spec
        path = pod_set.spec_path + (("tolerations",) if has_tolerations else ())
        resources, taints = refusal
        yield Violation(path=path, args={
            "pod_set": pod_set.name, "target": target.describe(),
            "resources": ", ".join(resources), "taints": "; ".join(taints)})


def _untolerated_everywhere(queued_set: QueuedPodSet):
    """(resources, "taint in flavor" texts) of the first group the pod set needs whose every
    flavor keeps a blocking taint the pod set and the flavor's own tolerations leave untolerated;
    None when some flavor accepts it or a flavor is not in the run."""
    for group in queued_set.groups:
        if not group.flavors or not all(flavor.taints for flavor in group.flavors):
            continue   # a flavor without taints accepts every pod set
        taints = [(flavor.name, untolerated_taint(flavor, queued_set.placement)) for flavor in group.flavors]
        if all(taint is not None for _, taint in taints):
            return group.resources, [f"untolerated taint {taint_text(taint)} in flavor {name}"
                                     for name, taint in taints]
    return None


# --- KQ703: node labels written as the flavor's own labels ---------------------------------------------

@rule("KQ703")
def flavor_labels_in_metadata(obj: KObject, ctx: RuleContext):
    node_labels = _node_labels(obj)
    for key, value in obj.labels.items():
        if not isinstance(key, str) or key in node_labels or not _looks_like_node_label(key):
            continue
        unsteered = "" if node_labels else "; with no spec.nodeLabels the flavor matches every node"
        yield Violation(path=("metadata", "labels", key), args={
            "label": f"{key}={value}", "key": key, "unsteered": unsteered})


def _looks_like_node_label(key: str) -> bool:
    return key.lower() in NODE_LABEL_NAMES or key.startswith(NODE_LABEL_PREFIXES)
