"""KQ202–KQ206, KQ211, KQ212: where the queue label sits, what it says and what it names.

KQ204 (is the value a LocalQueue name?) is written in CEL in its rule file.

Kueue reads ``kueue.x-k8s.io/queue-name`` from one place per kind (the object's own
``metadata.labels``; a CronJob's ``spec.jobTemplate.metadata.labels``). The same label on a pod
template or a nested object is not read, so the job runs without Kueue (kueue-validation.md §4,
formats.md §0 and §2).
"""

from __future__ import annotations

import difflib
from typing import Iterator

from kueuelint.checks.api import RuleContext, Violation, incomplete_note, rule, unless_complete
from kueuelint.derive.metadata import metadata_maps
from kueuelint.findings import Severity
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import Fact
from kueuelint.index.inventory import QUEUE_LABEL, explicit_namespace
from kueuelint.kueue.configuration import enabled_frameworks
from kueuelint.kueue.kinds import FRAMEWORK_OF, SPECS
from kueuelint.kueue.labels import DNS_SUBDOMAIN, dotted, home_label, label_homes, metadata_path

PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
KUEUE_PREFIX = "kueue.x-k8s.io/"
LOCAL_QUEUE = "kueue.x-k8s.io/LocalQueue"
WPC = "kueue.x-k8s.io/WorkloadPriorityClass"
DEFAULT_LOCAL_QUEUE = "default"
MAX_LABEL_VALUE = 63

CRONJOB = "batch/CronJob"
# Kinds whose own webhook copies the object's queue label into the pod template.
COPIES_DOWN = tuple(key for key, spec in SPECS.items() if spec.copies_queue_label)


def name_problem(value: str, what: str = "a LocalQueue name") -> str | None:
    """Why ``value`` cannot be ``what`` held in a label (None when it can)."""
    if len(value) > MAX_LABEL_VALUE:
        return f"is {len(value)} characters long; label values stop at {MAX_LABEL_VALUE}"
    if not DNS_SUBDOMAIN.match(value):
        hint = f" (did you mean {value.lower()!r}?)" if DNS_SUBDOMAIN.match(value.lower()) else ""
        return (f"is not {what}: use lowercase letters, digits, '-' and '.', starting and "
                f"ending with a letter or digit{hint}")
    return None


def _describe(value: object) -> str:
    return {str: "a string", list: "a list", int: "a number", float: "a number",
            bool: "a boolean"}.get(type(value), type(value).__name__)


# --- KQ202: labels and annotations Kueue reads must be maps of strings ---------------------------

@rule("KQ202")
def malformed_labels(obj: KObject, ctx: RuleContext):
    meta_path = metadata_path(obj)
    meta = obj.get(*meta_path)
    if meta is None:
        return
    if not isinstance(meta, dict):
        yield Violation(path=meta_path, at_value=True, args={"detail": (
            f"{dotted(meta_path)} is {_describe(meta)}, not a mapping, so it has no labels at all")})
        return
    judged = meta_path == ("metadata",) and _crd_judges(obj, ctx)
    for field in ("labels", "annotations"):
        values = meta.get(field)
        if values is None:
            continue
        where = dotted(meta_path + (field,))
        if not isinstance(values, dict):
            yield Violation(path=meta_path + (field,), at_value=True, args={"detail": (
                f"{where} is {_describe(values)} ({values!r}), not a mapping; the API server "
                f"rejects the object{_example(field, values)}")})
        elif not judged:
            yield from _non_string_values(values, meta_path + (field,))


def _example(field: str, value: object) -> str:
    if field == "labels" and isinstance(value, str) and DNS_SUBDOMAIN.match(value):
        return f"; write it as `labels: {{{QUEUE_LABEL}: {value}}}`"
    return "; write `key: value` pairs under it"


def _non_string_values(values: dict, path: tuple) -> Iterator[Violation]:
    for key, value in values.items():
        # null is read as an empty string, not refused
        if isinstance(key, str) and key.startswith(KUEUE_PREFIX) and not isinstance(value, (str, type(None))):
            yield Violation(path=path + (key,), at_value=True, args={"detail": (
                f"{dotted(path)}[{key}] is {_describe(value)} ({_yaml_text(value)}); label and annotation "
                f"values must be strings, so the API server rejects the object: quote it "
                f"(\"{_yaml_text(value)}\")")})


def _yaml_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _crd_judges(obj: KObject, ctx: RuleContext) -> bool:
    # KQ111 already reports non-string metadata values of objects a CRD in the run validates.
    from kueuelint.checks.crd_index import crd_index_for

    index = crd_index_for(ctx)
    return index is not None and index.has_kind(obj.group, obj.kind)


# --- KQ203: the queue label on an object Kueue does not read ----------------------------------

@rule("KQ203")
def queue_label_wrong_object(obj: KObject, ctx: RuleContext):
    homes = label_homes(obj)
    home_value, home_path = home_label(obj, QUEUE_LABEL)
    misplaced = [(path, labels[QUEUE_LABEL]) for path, labels in metadata_maps(obj)
                 if path not in homes and QUEUE_LABEL in labels]
    if not misplaced:
        return
    if home_path is None:
        yield from _only_misplaced(obj, ctx, misplaced, homes)
        return
    for path, value in misplaced:
        if value != home_value:
            yield Violation(path=path + (QUEUE_LABEL,), severity=Severity.WARNING, args={"detail": (
                f"sets {QUEUE_LABEL}={value} in {dotted(path)} but {home_value} in "
                f"{dotted(home_path[:-1])}; Kueue uses {home_value!r} and "
                f"{_overrides(obj)} the other value; remove it")})


def _only_misplaced(obj: KObject, ctx: RuleContext, misplaced: list, homes: list) -> Iterator[Violation]:
    pods_queued = _pod_integration_enabled(obj, ctx)
    in_templates = all("template" in path for path, _ in misplaced)
    if pods_queued and in_templates:
        return
    path, value = misplaced[0]
    others = f" (and {len(misplaced) - 1} more place(s))" if len(misplaced) > 1 else ""
    text = (f"sets {QUEUE_LABEL}={value} only in {dotted(path)}{others}, which Kueue does not "
            f"read for a {obj.kind}, so the {obj.kind} is not queued and runs without quota")
    if pods_queued is None and in_templates:
        yield Violation(path=path + (QUEUE_LABEL,), severity=Severity.WARNING, args={"detail": (
            f"{text}, unless the cluster's Kueue Configuration lists \"pod\" in "
            "integrations.frameworks: then each pod is queued on its own by this label. The run "
            f"has {_configuration_count(ctx)}, so this is not certain: put the Configuration that "
            f"applies in the run, or move the label to {dotted(homes[0])}{_hint(obj, path)}")})
        return
    yield Violation(path=path + (QUEUE_LABEL,), args={"detail": (
        f"{text}; move the label to {dotted(homes[0])}{_hint(obj, path)}")})


def _pod_integration_enabled(obj: KObject, ctx: RuleContext) -> bool | None:
    """Whether the pods a template makes are queued one by one by their own label: Kueue's pod
    webhook queues a labelled pod whose owners are not queued themselves, when "pod" is listed
    in integrations.frameworks (a pod integration that another framework only turns on
    implicitly skips pods its parent did not mark).  None when the Configuration is not known."""
    if obj.key not in FRAMEWORK_OF:
        return False
    config = ctx.inventory.kueue_configuration()
    if config is None:
        return None
    return "pod" in enabled_frameworks(config)


def _configuration_count(ctx: RuleContext) -> str:
    count = len(ctx.inventory.kueue_configurations())
    return "no Kueue Configuration" if count == 0 else f"{count} different Kueue Configurations"


def _hint(obj: KObject, path: tuple) -> str:
    if obj.key in COPIES_DOWN:
        return (f" (Kueue's {obj.kind} webhook copies the label from there into the pod "
                "template, so the template needs no copy)")
    if obj.key == CRONJOB and path == ("metadata", "labels"):
        return " (a CronJob's own labels are not copied to the Jobs it creates)"
    if obj.key == "tekton.dev/PipelineRun" and "podTemplate" in path:
        return " (Tekton's podTemplate has no metadata field; PipelineRun labels reach the pods)"
    return ""


def _overrides(obj: KObject) -> str:
    return "its webhook overwrites" if obj.key in COPIES_DOWN else "ignores"


# --- KQ204: the queue name must be a valid LocalQueue name --------------------------------------

# --- KQ205: the LocalQueue must exist in the object's namespace -----------------------------------

@rule("KQ205")
def local_queue_not_found(obj: KObject, ctx: RuleContext):
    value, path = home_label(obj, QUEUE_LABEL)
    if not isinstance(value, str) or not value or name_problem(value):
        return
    inventory = ctx.inventory
    if not inventory.has_kind(LOCAL_QUEUE):
        return
    explicit = _explicit_namespace(obj)
    # the common case is a queue that exists: answer it with index lookups, not a scan,
    # so the rule stays linear in the number of objects
    if explicit and inventory.get(LOCAL_QUEUE, value, obj.namespace) is not None:
        return
    if not explicit and value in _queue_names(inventory):
        return
    queues = inventory.of_kind(LOCAL_QUEUE)
    if not explicit:
        yield from _queue_in_any_namespace(obj, value, path, queues, inventory.require_complete)
        return
    here = sorted({lq.name for lq in queues if lq.namespace == obj.namespace})
    if value in here:
        return
    elsewhere = sorted({lq.namespace for lq in queues if lq.name == value and lq.namespace})
    if not (here or elsewhere or inventory.require_complete):
        return  # the run holds no queue of this namespace: it cannot know
    yield Violation(path=path, at_value=True, severity=unless_complete(inventory), args={
        "detail": _missing_queue_text(value, obj.namespace, here, elsewhere, len(queues))
        + incomplete_note(inventory, "LocalQueues")})


def _queue_names(inventory) -> set[str]:
    return LOCAL_QUEUE_NAMES.of(inventory)


LOCAL_QUEUE_NAMES = Fact("local-queue-names", lambda inventory: {lq.name for lq in inventory.of_kind(LOCAL_QUEUE)})


def _explicit_namespace(obj: KObject) -> bool:
    return explicit_namespace(obj) is not None


def _queue_in_any_namespace(obj: KObject, value: str, path: tuple, queues: list,
                            complete: bool) -> Iterator[Violation]:
    # Without metadata.namespace the object goes wherever `kubectl -n` sends it, so any
    # namespace's LocalQueue of that name may be the one; and if none is, the namespace's
    # queues may simply not be in the run: a warning unless the run is declared complete.
    if any(lq.name == value for lq in queues):
        return
    names = sorted({lq.name for lq in queues})
    text = (f"sets no namespace and is queued to LocalQueue {value!r}, which is not found among "
            f"the {len(queues)} LocalQueue(s) of this run in any namespace; where it does not "
            f"exist Kueue leaves the workload pending with \"LocalQueue {value} doesn't exist\"")
    close = difflib.get_close_matches(value, names, n=1, cutoff=0.75)
    if close:
        text += f"; did you mean {close[0]!r}?"
    if not complete:
        text += incomplete_note(None, "LocalQueues")
    yield Violation(path=path, at_value=True, args={"detail": text},
                    severity=None if complete else Severity.WARNING)


def _missing_queue_text(value: str, namespace: str | None, here: list[str], elsewhere: list[str],
                        total: int) -> str:
    text = (f"is queued to LocalQueue {value!r}, which is not found among the {len(here)} "
            f"LocalQueue(s) of namespace {namespace} ({total} in this run); Kueue leaves the "
            f"workload pending with \"LocalQueue {value} doesn't exist\"")
    close = difflib.get_close_matches(value, here, n=1, cutoff=0.75)
    if close:
        text += f"; did you mean {close[0]!r}?"
    if elsewhere:
        text += (f"; a LocalQueue {value!r} exists in namespace(s) {', '.join(elsewhere)}: "
                 "LocalQueues are per namespace, so create the object there or add one here")
    if DEFAULT_LOCAL_QUEUE in here and value != DEFAULT_LOCAL_QUEUE:
        text += (f"; namespace {namespace} has a LocalQueue named 'default', which Kueue uses "
                 "for objects without the label, so you can also drop the label")
    return text


# --- KQ206: the priority-class label must name a WorkloadPriorityClass ----------------------------

@rule("KQ206")
def priority_class_not_found(obj: KObject, ctx: RuleContext):
    value, path = home_label(obj, PRIORITY_LABEL)
    if not isinstance(value, str) or not value or not ctx.inventory.has_kind(WPC):
        return
    classes = ctx.inventory.of_kind(WPC)
    if any(wpc.name == value for wpc in classes):
        return
    text = (f"sets {PRIORITY_LABEL}={value}, but no WorkloadPriorityClass {value!r} is found among "
            f"the {len(classes)} in this run; Kueue then creates no Workload "
            "(event WorkloadPriorityClassNotFound) and the job stays suspended")
    close = difflib.get_close_matches(value, [wpc.name for wpc in classes], n=1, cutoff=0.6)
    if close:
        text += f"; did you mean {close[0]!r}?"
    if ctx.inventory.get("scheduling.k8s.io/PriorityClass", value) is not None:
        text += (f"; {value!r} is a PriorityClass (scheduling.k8s.io): set it as the pods' "
                 "priorityClassName, or create a WorkloadPriorityClass of that name")
    yield Violation(path=path, at_value=True, severity=unless_complete(ctx.inventory),
                    args={"detail": text + incomplete_note(ctx.inventory, "WorkloadPriorityClasses")})


# --- KQ211: `suspend: true` is not needed with Kueue ----------------------------------------------

@rule("KQ211")
def suspend_not_required(obj: KObject, ctx: RuleContext):
    spec = SPECS.get(obj.key)
    path = spec.suspend_path if spec is not None else None
    if path is None or obj.get(*path) is not True:
        return
    value, _ = home_label(obj, QUEUE_LABEL)
    if isinstance(value, str) and value:
        yield Violation(path=path, at_value=True, args={"detail": (
            f"sets {dotted(path)}: true; Kueue's webhook suspends a queued {obj.kind} itself "
            "and unsuspends it on admission, so this is not required (it is harmless)")})


# --- KQ212: another scheduler's queue, and no Kueue queue -----------------------------------------

FOREIGN_KEYS = {
    "volcano.sh/queue-name": "Volcano",
    "scheduling.volcano.sh/queue-name": "Volcano",
    "yunikorn.apache.org/queue": "YuniKorn",
    "scheduling.x-k8s.io/pod-group": "the scheduler-plugins coscheduling plugin",
}


@rule("KQ212")
def other_scheduler_queue(obj: KObject, ctx: RuleContext):
    # Another scheduler's queue is a mistake for Kueue only when it changes what Kueue does: the
    # value names one of the run's LocalQueues (so Kueue's label was meant), and Kueue would not
    # queue the object anyway (manageJobsWithoutQueueName, the namespace's "default" LocalQueue).
    if _queue_anywhere(obj) or _kueue_queues_it_anyway(obj, ctx):
        return
    queues = _local_queue_names(obj, ctx)
    for path, what, value in _foreign_fields(obj):
        if isinstance(value, str) and value in queues:
            yield Violation(path=path, args={"detail": (
                f"sets {what}={value}, which {_owner(what)} reads, not Kueue, although {value!r} "
                f"is a LocalQueue of this run; Kueue reads only the label {QUEUE_LABEL} in "
                f"{dotted(label_homes(obj)[0])}, so the object is not queued by Kueue: add that "
                "label (suppress this if the object is meant for the other scheduler)")})
            return


def _kueue_queues_it_anyway(obj: KObject, ctx: RuleContext) -> bool:
    config = ctx.inventory.kueue_configuration()
    if config is not None and config.get("manageJobsWithoutQueueName") is True:
        return True
    explicit = _explicit_namespace(obj)
    return any(lq.name == DEFAULT_LOCAL_QUEUE and (not explicit or lq.namespace == obj.namespace)
               for lq in ctx.inventory.of_kind(LOCAL_QUEUE))


def _local_queue_names(obj: KObject, ctx: RuleContext) -> set[str]:
    if _explicit_namespace(obj):
        return {lq.name for lq in ctx.inventory.of_kind(LOCAL_QUEUE) if lq.namespace == obj.namespace}
    return _queue_names(ctx.inventory)


def _queue_anywhere(obj: KObject) -> bool:
    return any(QUEUE_LABEL in labels for _, labels in metadata_maps(obj))


def _foreign_fields(obj: KObject) -> list[tuple[tuple, str, object]]:
    found = []
    queue = obj.get("spec", "runPolicy", "schedulingPolicy", "queue")
    if queue is not None:
        found.append((("spec", "runPolicy", "schedulingPolicy", "queue"),
                      "runPolicy.schedulingPolicy.queue", queue))
    for field in ("labels", "annotations"):
        for path, values in metadata_maps(obj, field):
            for key, value in values.items():
                if not isinstance(key, str):
                    continue
                if key in FOREIGN_KEYS or key.startswith("scheduling.x-k8s.io/"):
                    found.append((path + (key,), key, value))
                elif key == "queue" and field == "labels" and _yunikorn_queue(value):
                    found.append((path + (key,), "queue", value))
    return found


def _yunikorn_queue(value: object) -> bool:
    # YuniKorn's plain `queue` label holds a path under its root queue.
    return isinstance(value, str) and (value == "root" or value.startswith("root."))


def _owner(what: str) -> str:
    if what == "runPolicy.schedulingPolicy.queue":
        return "Volcano or scheduler-plugins (Kubeflow's gang scheduling)"
    if what == "queue":
        return "YuniKorn"
    return FOREIGN_KEYS.get(what, "the scheduler-plugins scheduler")
