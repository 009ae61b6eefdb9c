"""KQ420–KQ431: what Kueue's ResourceFlavor and Workload webhooks reject beyond the CRD schema.

Companion of structure.py (ClusterQueue and Cohort). The CRD's CEL rules on these kinds
(topologyName needs nodeLabels, taint effects, the toleration rules, minCount <= count, priority
with priorityClassRef) are the schema rules' findings and are not repeated here.
"""

from __future__ import annotations

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.kueue.label_syntax import label_key_problem, label_value_problem
from kueuelint.identify.objects import KObject

ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"


def _items(value) -> list:
    return value if isinstance(value, list) else []


# --- KQ420: ResourceFlavor label, taint and toleration syntax -----------------------------------

@rule("KQ420")
def flavor_node_fields(obj: KObject, ctx: RuleContext):
    labels = obj.spec.get("nodeLabels")
    for key, value in (labels.items() if isinstance(labels, dict) else ()):
        problem = label_key_problem(key)
        if problem:
            yield _flavor(("spec", "nodeLabels", key), f"nodeLabels key {problem}", False)
        elif label_value_problem(value):
            yield _flavor(("spec", "nodeLabels", key), f"nodeLabels[{key}]: "
                          f"{label_value_problem(value)}", True)
    for index, taint in enumerate(_items(obj.spec.get("nodeTaints"))):
        if not isinstance(taint, dict):
            continue
        key, value = taint.get("key"), taint.get("value")
        problem = label_key_problem(key) if isinstance(key, str) else None
        if problem:
            yield _flavor(("spec", "nodeTaints", index, "key"), f"nodeTaints key {problem}", True)
        if value is not None and label_value_problem(value):
            yield _flavor(("spec", "nodeTaints", index, "value"),
                          f"nodeTaints value {label_value_problem(value)}", True)
    for index, toleration in enumerate(_items(obj.spec.get("tolerations"))):
        key = toleration.get("key") if isinstance(toleration, dict) else None
        problem = label_key_problem(key) if isinstance(key, str) and key else None
        if problem:
            yield _flavor(("spec", "tolerations", index, "key"), f"tolerations key {problem}",
                          True)


def _flavor(path: tuple, problem: str, at_value: bool) -> Violation:
    return Violation(path=path, at_value=at_value, args={"detail": (
        f"{problem}; Kueue's webhook rejects the ResourceFlavor, and nodes could not carry such "
        "a label or taint anyway")})


# --- KQ421: duplicate taints ----------------------------------------------------------------

@rule("KQ421")
def flavor_duplicate_taint(obj: KObject, ctx: RuleContext):
    seen: dict[tuple, int] = {}
    for index, taint in enumerate(_items(obj.spec.get("nodeTaints"))):
        if not isinstance(taint, dict):
            continue
        pair = (taint.get("key"), taint.get("effect"))
        if not all(part is None or isinstance(part, str) for part in pair):
            continue    # a key or effect of the wrong type is the schema's finding (KQ110)
        if pair in seen:
            yield Violation(path=("spec", "nodeTaints", index), args={"detail": (
                f"nodeTaints[{index}] repeats key {pair[0]!r} with effect {pair[1]!r} "
                f"(first at nodeTaints[{seen[pair]}]); Kueue rejects it (\"taints must be unique "
                "by key and effect pair\"): keep one")})
        seen.setdefault(pair, index)


# --- KQ430: partial admission on a Workload -----------------------------------------------------

@rule("KQ430")
def workload_partial_admission(obj: KObject, ctx: RuleContext):
    with_min = [(index, pod_set) for index, pod_set in enumerate(_items(obj.spec.get("podSets")))
                if isinstance(pod_set, dict) and pod_set.get("minCount") is not None]
    for index, pod_set in with_min[1:]:
        yield Violation(path=("spec", "podSets", index, "minCount"), args={"detail": (
            f"pod set {pod_set.get('name', 'main')!r} also sets minCount, but at most one pod set "
            f"may (\"at most one podSet can use minCount\"; the first is "
            f"{with_min[0][1].get('name', 'main')!r})")})
    if with_min and obj.annotations.get(ELASTIC_JOB_ANNOTATION) == "true":
        index = with_min[0][0]
        yield Violation(path=("spec", "podSets", index, "minCount"), args={"detail": (
            "minCount (partial admission) and the kueue.x-k8s.io/elastic-job annotation cannot "
            "be used together; Kueue rejects the Workload")})


# --- KQ431: TAS slice settings on a Workload ------------------------------------------------

@rule("KQ431")
def workload_slice_topology(obj: KObject, ctx: RuleContext):
    for index, pod_set in enumerate(_items(obj.spec.get("podSets"))):
        request = pod_set.get("topologyRequest") if isinstance(pod_set, dict) else None
        if not isinstance(request, dict):
            continue
        path = ("spec", "podSets", index, "topologyRequest")
        has_topology = request.get("podSetSliceRequiredTopology") is not None
        has_size = request.get("podSetSliceSize") is not None
        if has_topology and not has_size:
            yield Violation(path=path + ("podSetSliceRequiredTopology",), args={"detail": (
                "podSetSliceSize must be set when podSetSliceRequiredTopology is specified")})
        elif has_size and not has_topology:
            yield Violation(path=path + ("podSetSliceSize",), args={"detail": (
                "podSetSliceSize may not be set when podSetSliceRequiredTopology is not "
                "specified")})
