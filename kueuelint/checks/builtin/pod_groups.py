"""KQ601–KQ610: what Kueue needs before it manages a workload at all (the integration and the
namespace), plain pods and pod groups, the `managed` label, and serving workloads that must
not be preempted (kueue-validation.md §3.7 Pod/Deployment/StatefulSet/LWS, §5, §6).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kueuelint.index.selectors import NAME_LABEL, matches
from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.derive.metadata import metadata_maps
from kueuelint.identify.kinds import KUEUE_GROUP
from kueuelint.identify.objects import KObject
from kueuelint.kueue.configuration import enabled_frameworks
from kueuelint.kueue.facts import Fact
from kueuelint.kueue.kinds import FRAMEWORK_OF as FRAMEWORKS, JOB_SPECS
from kueuelint.kueue.labels import DNS_SUBDOMAIN, dotted, home_label
from kueuelint.kueue.pod_groups import GROUP_KEY, group_members, group_of
from kueuelint.index.inventory import QUEUE_LABEL, cluster_queue_name, explicit_namespace

LOCAL_QUEUE = f"{KUEUE_GROUP}/LocalQueue"
CLUSTER_QUEUE = f"{KUEUE_GROUP}/ClusterQueue"

TOTAL_KEY = "kueue.x-k8s.io/pod-group-total-count"
FAST_ADMISSION_KEY = "kueue.x-k8s.io/pod-group-fast-admission"
MANAGED_LABEL = "kueue.x-k8s.io/managed"
GO_INT = re.compile(r"^[+-]?\d+$")
# Kinds whose labels reach the pods even when the owning integration is off: with "pod" on,
# the pods are then queued one by one (upstream Notebooks copy labels only to the pod template).
POD_FALLBACK = tuple(spec.key for spec in JOB_SPECS if spec.pods_queue_alone)
# Frameworks that need the pod integration (listed before 0.15, implied since), and with "pod" itself
# the frameworks whose jobs Kueue meets through their pods.
POD_INTEGRATION = tuple(dict.fromkeys(spec.framework for spec in JOB_SPECS if spec.pod_integration))
POD_BASED = POD_INTEGRATION + ("pod",)
IMPLICIT_POD_SINCE = (0, 15)          # pod-based frameworks stopped needing "pod" listed
SELECTOR_ALWAYS_RESPECTED = (0, 19)   # managedJobsNamespaceSelector filters every kind (GA)
NON_SUSPENDABLE = tuple(spec.key for spec in JOB_SPECS if not spec.suspendable)


def _queue(obj: KObject) -> tuple[str | None, tuple | None]:
    value, path = home_label(obj, QUEUE_LABEL)
    return (value, path) if isinstance(value, str) and value else (None, None)


# --- KQ601: the integration for the kind must be enabled -----------------------------------------

@rule("KQ601")
def integration_not_enabled(obj: KObject, ctx: RuleContext):
    config = ctx.inventory.kueue_configuration()
    queue, path = _queue(obj)
    if config is None or queue is None or obj.key not in FRAMEWORKS:
        return
    enabled = enabled_frameworks(config)
    needed = [FRAMEWORKS[obj.key]]
    if needed[0] in POD_INTEGRATION and ctx.kueue_version < IMPLICIT_POD_SINCE:
        needed.append("pod")
    if "pod" in enabled and (obj.key in POD_FALLBACK or _template_queued(obj)):
        return  # the pods carry the label and the pod integration queues them one by one
    missing = [name for name in needed if name not in enabled and not _external(config, obj)]
    if missing:
        yield Violation(path=path, args={"detail": (
            f"is queued to {queue!r}, but the Kueue Configuration's integrations.frameworks "
            f"({', '.join(enabled)}) lacks {', '.join(repr(m) for m in missing)}, so Kueue ignores "
            f"the {obj.kind} and it runs without quota{_pod_note(obj, missing)}; add "
            f"{' and '.join(repr(m) for m in missing)} to integrations.frameworks")})


def _template_queued(obj: KObject) -> bool:
    return any(QUEUE_LABEL in labels and "template" in path for path, labels in metadata_maps(obj))


def _external(config: dict, obj: KObject) -> bool:
    integrations = config.get("integrations")
    external = integrations.get("externalFrameworks") if isinstance(integrations, dict) else None
    wanted = f"{obj.kind}.{obj.version}.{obj.group}"
    return isinstance(external, list) and any(
        (entry.get("name") if isinstance(entry, dict) else entry) == wanted for entry in external)


def _pod_note(obj: KObject, missing: list[str]) -> str:
    if "pod" in missing and obj.key == "Pod":
        return (" (enabling deployment, statefulset or leaderworkerset turns on pod handling "
                "only for their own pods; plain pods need \"pod\" itself)")
    if obj.key in POD_FALLBACK:
        return " (or \"pod\", which queues its pods one by one)"
    if obj.key == "tekton.dev/PipelineRun":
        return " (Tekton runs every task as a plain pod, which Kueue queues one by one)"
    if "pod" in missing:
        return f" (before Kueue 0.15 a {obj.kind} also needs \"pod\" listed)"
    return ""


# --- KQ602: the namespace must be one Kueue manages ----------------------------------------------

@rule("KQ602")
def namespace_not_managed(obj: KObject, ctx: RuleContext):
    config = ctx.inventory.kueue_configuration()
    queue, path = _queue(obj)
    if config is None or queue is None or explicit_namespace(obj) is None or obj.key not in FRAMEWORKS:
        return  # without a namespace of its own the object may land in any namespace
    if FRAMEWORKS[obj.key] not in POD_BASED and ctx.kueue_version < SELECTOR_ALWAYS_RESPECTED:
        return  # before 0.19 the selector only filtered jobs without a queue label
    labels = _namespace_labels(ctx, obj.namespace)
    for where, selector in _selectors(config, obj):
        decided = _decide(selector, labels, obj.namespace)
        if decided is False:
            yield Violation(path=path, args={"detail": (
                f"is queued to {queue!r} in namespace {obj.namespace}, which the Kueue "
                f"Configuration's {where} ({_show(selector)}) does not match, so Kueue never "
                "manages it and it runs without quota; move it to a namespace the selector "
                "matches, label its namespace to match, or widen the selector")})
            return


def _selectors(config: dict, obj: KObject) -> list[tuple[str, dict]]:
    selector = config.get("managedJobsNamespaceSelector")
    if not isinstance(selector, dict):
        kueue_ns = config.get("namespace") if isinstance(config.get("namespace"), str) else "kueue-system"
        selector = {"matchExpressions": [{"key": NAME_LABEL, "operator": "NotIn",
                                          "values": ["kube-system", kueue_ns]}]}
        found = [("default managedJobsNamespaceSelector", selector)]
    else:
        found = [("managedJobsNamespaceSelector", selector)]
    options = (config.get("integrations") or {}).get("podOptions") if isinstance(
        config.get("integrations"), dict) else None
    legacy = options.get("namespaceSelector") if isinstance(options, dict) else None
    if obj.key == "Pod" and isinstance(legacy, dict):
        found.append(("integrations.podOptions.namespaceSelector", legacy))
    return found


def _namespace_labels(ctx: RuleContext, namespace: str) -> dict | None:
    """The namespace's labels, or None when only its name label is known."""
    found = ctx.inventory.get("Namespace", namespace)
    if found is None:
        return None
    return {**{k: str(v) for k, v in found.labels.items()}, NAME_LABEL: namespace}


def _decide(selector: dict, labels: dict | None, namespace: str) -> bool | None:
    match_labels, expressions = selector.get("matchLabels"), selector.get("matchExpressions")
    if not isinstance(match_labels, (dict, type(None))) or not isinstance(expressions, (list, type(None))) \
            or not all(isinstance(expr, dict) for expr in expressions or ()):
        return None  # a malformed selector is the Configuration rules' to report
    if labels is None:
        keys = set((selector.get("matchLabels") or {}).keys()) | {
            expr.get("key") for expr in selector.get("matchExpressions") or () if isinstance(expr, dict)}
        if keys - {NAME_LABEL}:
            return None  # depends on labels of a Namespace the run does not show
        labels = {NAME_LABEL: namespace}
    return matches(selector, labels)


def _show(selector: dict) -> str:
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for expr in selector.get("matchExpressions") or ():
        if isinstance(expr, dict):
            values = ",".join(str(v) for v in expr.get("values") or ())
            parts.append(f"{expr.get('key')} {expr.get('operator')} [{values}]" if values
                         else f"{expr.get('key')} {expr.get('operator')}")
    return "; ".join(parts) or "{}"


# --- pod groups ---------------------------------------------------------------------------------

def _total_text(pod: KObject) -> str | None:
    value = pod.get("metadata", "annotations", TOTAL_KEY)
    return value if isinstance(value, str) else None


def _total(pod: KObject) -> int | None:
    text = _total_text(pod)
    return int(text) if text is not None and GO_INT.match(text) else None


def _majority(values: list) -> object:
    counts = Counter(values)
    best = max(counts.values())
    return next(value for value in values if counts[value] == best)


@rule("KQ603")
def pod_group_metadata_incomplete(obj: KObject, ctx: RuleContext):
    group, group_path = group_of(obj)
    annotations = obj.get("metadata", "annotations")
    has_total = isinstance(annotations, dict) and TOTAL_KEY in annotations
    if group and not has_total:
        yield Violation(path=group_path, args={"detail": (
            f"is in pod group {group!r} but has no {TOTAL_KEY} annotation; Kueue rejects it: both "
            f"the '{TOTAL_KEY}' annotation and the '{GROUP_KEY}' label should be set")})
    elif has_total and not group:
        yield Violation(path=("metadata", "annotations", TOTAL_KEY), args={"detail": (
            f"sets {TOTAL_KEY} but no {GROUP_KEY} label; Kueue rejects it: both the "
            f"'{TOTAL_KEY}' annotation and the '{GROUP_KEY}' label should be set")})


@rule("KQ604")
def pod_group_metadata_invalid(obj: KObject, ctx: RuleContext):
    group, group_path = group_of(obj)
    if group and (len(group) > 253 or not DNS_SUBDOMAIN.match(group)):
        yield Violation(path=group_path, at_value=True, args={"detail": (
            f"names pod group {group!r}, which is not a valid Workload name (DNS-1123 subdomain: "
            "lowercase letters, digits, '-' and '.'); Kueue rejects the pod")})
    text = _total_text(obj)
    if text is None or not group:
        return
    if not GO_INT.match(text):
        reason = f"{text!r} is not an integer"
    elif int(text) < 1:
        reason = "group total count should be greater than zero"
    else:
        return
    yield Violation(path=("metadata", "annotations", TOTAL_KEY), at_value=True, args={"detail": (
        f"sets {TOTAL_KEY}: {reason}; Kueue rejects the pod. Give the number of pods in group "
        f"{group!r} as a string, e.g. \"2\"")})


@rule("KQ605")
def pod_group_inconsistent(obj: KObject, ctx: RuleContext):
    group, _ = group_of(obj)
    members = group_members(ctx, obj) if group else []
    if len(members) < 2:
        return
    for what, read, path in _compared(ctx):
        mine = read(obj)
        usual_and_agree = _usual(ctx, (obj.namespace, group), members, what, read)
        if usual_and_agree is None or (mine is None and what == "total count"):
            continue
        usual, agree = usual_and_agree
        if mine != usual:
            yield Violation(path=path if mine is not None else path[:2], args={"detail": (
                f"is in pod group {group!r} with {what} {_say(mine)}, but {agree} other pod(s) of "
                f"the group have {_say(usual)}; Kueue refuses a group whose pods disagree, so "
                f"none of them starts: give every pod the same {what}")})


# (namespace, group, what) -> the group's usual value and how many pods have it; computed once
# per group, not once per pod (a group of n pods would cost n^2)
GROUP_MAJORITIES: Fact[dict[tuple, Any]] = Fact("pod-group-majorities", lambda inventory: {})


def _usual(ctx: RuleContext, group: tuple, members: list, what: str, read) -> tuple | None:
    memo = GROUP_MAJORITIES.of(ctx.inventory)
    key = group + (what,)
    if key not in memo:
        values = [read(member) for member in members]
        if what == "total count":  # pods without a count are KQ603's
            values = [value for value in values if value is not None]
        usual = _majority(values) if values else None
        memo[key] = (usual, sum(1 for value in values if value == usual)) if values else None
    return memo[key]


def _compared(ctx: RuleContext) -> list:
    """(what, reader, path) of every value the pods of a group must share: the queue, the total
    count, and the labels the Kueue Configuration copies from the pods to the Workload."""
    compared = [("queue", _pod_queue, ("metadata", "labels", QUEUE_LABEL)),
                ("total count", _total_text, ("metadata", "annotations", TOTAL_KEY))]
    config = ctx.inventory.kueue_configuration() or {}
    integrations = config.get("integrations") if isinstance(config.get("integrations"), dict) else {}
    keys = integrations.get("labelKeysToCopy")
    for key in keys if isinstance(keys, list) else ():
        if isinstance(key, str):
            compared.append((f"label {key}", lambda pod, key=key: _label(pod, key),
                             ("metadata", "labels", key)))
    return compared


def _label(pod: KObject, key: str) -> str | None:
    labels = pod.get("metadata", "labels")
    value = labels.get(key) if isinstance(labels, dict) else None
    return value if isinstance(value, str) else None


def _pod_queue(pod: KObject) -> str | None:
    return _label(pod, QUEUE_LABEL)


def _say(value: object) -> str:
    return "none" if value is None else repr(value)


def _group_summary(obj: KObject, ctx: RuleContext):
    """(group, expected count, pods seen) when ``obj`` is the first checked pod of its group."""
    group, _ = group_of(obj)
    if not group:
        return None
    members = group_members(ctx, obj)
    memo = GROUP_MAJORITIES.of(ctx.inventory)
    key = (obj.namespace, group, "summary")
    if key not in memo:
        counts = [count for count in (_total(m) for m in members) if count is not None and count >= 1]
        first = next((m for m in members if not m.is_context), None)
        memo[key] = (_majority(counts) if counts else None, first)
    expected, first = memo[key]
    if expected is None or obj is not first:
        return None
    return group, expected, members


@rule("KQ606")
def pod_group_count_too_small(obj: KObject, ctx: RuleContext):
    summary = _group_summary(obj, ctx)
    if summary and len(summary[2]) > summary[1]:
        group, expected, members = summary
        yield Violation(path=("metadata", "annotations", TOTAL_KEY), at_value=True, args={"detail": (
            f"is one of {len(members)} pods of pod group {group!r} in this run, but the group's "
            f"{TOTAL_KEY} is {expected}; Kueue admits only {expected} of them and the group never "
            f"matches its count: set the count to {len(members)} or remove the extra pods")})


@rule("KQ607")
def pod_group_fewer_pods(obj: KObject, ctx: RuleContext):
    summary = _group_summary(obj, ctx)
    if not summary or len(summary[2]) >= summary[1]:
        return
    group, expected, members = summary
    if any(m.get("metadata", "annotations", FAST_ADMISSION_KEY) == "true" for m in members):
        return
    yield Violation(path=("metadata", "annotations", TOTAL_KEY), at_value=True, args={"detail": (
        f"belongs to pod group {group!r}, which expects {expected} pods, but this run holds only "
        f"{len(members)}; Kueue waits until all {expected} exist (\"group has fewer runnable pods "
        f"than expected\"): create the others too, or set {FAST_ADMISSION_KEY}: \"true\"")})


# --- KQ608/KQ609: the `managed` label belongs to Kueue --------------------------------------------

def _managed_labels(obj: KObject) -> list[tuple[tuple, object]]:
    """Where a `managed` label would land on pods: a Pod's own labels, or pod templates."""
    found = []
    for path, labels in metadata_maps(obj):
        if MANAGED_LABEL in labels and (obj.key == "Pod" or path != ("metadata", "labels")):
            found.append((path + (MANAGED_LABEL,), labels[MANAGED_LABEL]))
    return found


@rule("KQ608")
def managed_label_invalid(obj: KObject, ctx: RuleContext):
    for path, value in _managed_labels(obj):
        if value != "true" and not (path[:2] == ("metadata", "labels") and not isinstance(value, str)):
            yield Violation(path=path, at_value=True, args={"detail": (
                f"sets {MANAGED_LABEL}={value!r} in {dotted(path[:-1])}; Kueue's pod webhook "
                "rejects every such pod: managed label value can only be 'true'. Remove the label")})


@rule("KQ609")
def managed_label_set_by_hand(obj: KObject, ctx: RuleContext):
    for path, value in _managed_labels(obj):
        if value == "true":
            queue, _ = _queue(obj)
            why = ("Kueue's pod webhook adds it, with a scheduling gate and a finalizer, to the pods "
                   "it queues, so it is redundant here, and on pods of a Kueue-managed owner Kueue "
                   "warns \"label 'kueue.x-k8s.io/managed=true' might lead to unexpected behaviour\""
                   if queue else
                   "nothing queues these pods (no queue label where Kueue reads it), yet the label "
                   "marks them as Kueue's, so Kueue's pod controller may track pods it never gated")
            yield Violation(path=path, args={"detail": (
                f"sets {MANAGED_LABEL}=true by hand in {dotted(path[:-1])}; {why}: remove it"
                f"{'' if queue else f' and queue the object with {QUEUE_LABEL}'}")})


# --- KQ610: serving workloads must not be preempted -----------------------------------------------

@rule("KQ610")
def non_suspendable_preemption(obj: KObject, ctx: RuleContext):
    queue, path = _queue(obj)
    how = f"its LocalQueue {queue!r} feeds"
    if queue is None and _has_default_queue(ctx, obj):
        queue, path = "default", ("metadata",)
        how = ("having no queue label, it goes to the namespace's LocalQueue 'default', and that "
               "feeds")
    if queue is None or obj.key not in NON_SUSPENDABLE:
        return
    found = _preempting_queues(ctx, obj.namespace, queue)
    if found:
        cluster_queue, settings = found[0]
        yield Violation(path=path, args={"detail": (
            f"cannot be suspended (Kueue can only evict its pods), but {how} ClusterQueue "
            f"{cluster_queue.name!r}, which preempts ({', '.join(settings)}); "
            f"a preempted {obj.kind} loses its running pods and may not come back while the "
            "queue is full. Use a ClusterQueue whose preemption policies are all Never")})


def _has_default_queue(ctx: RuleContext, obj: KObject) -> bool:
    # Kueue defaults the label to "default" when that LocalQueue exists in the namespace; an
    # object without metadata.namespace may land anywhere, so only explicit namespaces count.
    return explicit_namespace(obj) is not None and bool(ctx.inventory.named(LOCAL_QUEUE, "default", obj.namespace))


def _preempting_queues(ctx: RuleContext, namespace: str | None, queue: str) -> list:
    """(ClusterQueue, non-Never settings) for each candidate; [] if any candidate is safe."""
    inventory = ctx.inventory
    names = {cluster_queue_name(lq) for lq in inventory.named(LOCAL_QUEUE, queue, namespace)} - {None}
    candidates = inventory.named_any(CLUSTER_QUEUE, names)
    found = []
    for cluster_queue in candidates:
        settings = _preemption_settings(cluster_queue)
        if not settings:
            return []  # the run holds a safe definition of this queue: do not guess
        found.append((cluster_queue, settings))
    return found


def _preemption_settings(cluster_queue: KObject) -> list[str]:
    preemption = cluster_queue.spec.get("preemption")
    preemption = preemption if isinstance(preemption, dict) else {}
    borrow = preemption.get("borrowWithinCohort")
    settings = {"withinClusterQueue": preemption.get("withinClusterQueue"),
                "reclaimWithinCohort": preemption.get("reclaimWithinCohort"),
                "borrowWithinCohort.policy": borrow.get("policy") if isinstance(borrow, dict) else None}
    return [f"{key}: {value}" for key, value in settings.items() if value not in (None, "Never")]
