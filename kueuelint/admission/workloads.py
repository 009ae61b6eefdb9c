"""Turn Kueue Workload objects and jobs into the simulator's Pending / Admitted records."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any, Callable

from kueuelint.accounting.quantity import safe_parse, to_kueue_units
from kueuelint.accounting.requests import adjusted_container, container_defaults, greater_keys, limit_range_bounds
from kueuelint.accounting.quota import FR, flavor_resource
from kueuelint.admission.model import Admitted, Pending, PodSetSpec, as_dict, as_list
from kueuelint.admission.tas import topology_request
from kueuelint.identify.objects import dig

PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
# Jobs named on the command line without a creation time come after everything in the snapshot.
INCOMING_TIME = 4.0e9


def epoch(value) -> float | None:
    if isinstance(value, datetime):
        return value.timestamp()
    if not isinstance(value, str) or not value:
        return None
    return _epoch_of_text(value)


@lru_cache(maxsize=65536)
def _epoch_of_text(value: str) -> float | None:
    # Snapshots repeat timestamps a lot (one per object and condition); parse each text once.
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class Priorities:
    """Priority values from WorkloadPriorityClasses and PriorityClasses (§4.1)."""

    def __init__(self, inventory) -> None:
        self.workload_classes = {o.name: _int(o.get("value")) for o in inventory.kueue_of_kind("WorkloadPriorityClass")}
        self.pod_classes = {o.name: _int(o.get("value")) for o in inventory.of_kind("scheduling.k8s.io/PriorityClass")}
        defaults = [o for o in inventory.of_kind("scheduling.k8s.io/PriorityClass") if o.get("globalDefault") is True]
        self.global_default = _int(defaults[0].get("value")) if defaults else 0

    def resolve(self, workload_class: str | None, pod_class: str | None) -> int:
        if workload_class and workload_class in self.workload_classes:
            return self.workload_classes[workload_class]
        if pod_class and pod_class in self.pod_classes:
            return self.pod_classes[pod_class]
        return self.global_default


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def pod_set_spec(name: str, count: int, min_count, per_pod: dict[str, int], template: dict,
                 stated_topology: object = None) -> PodSetSpec:
    # Made for every pending workload before the work is split: the checks are spelled out.
    spec = template.get("spec") if isinstance(template, dict) else None
    if not isinstance(spec, dict):
        spec = {}
    affinity = spec.get("affinity")
    tolerations, selector = spec.get("tolerations"), spec.get("nodeSelector")
    return PodSetSpec(name, count, min_count, dict(per_pod), list(tolerations) if isinstance(tolerations, list) else [],
                      dict(selector) if isinstance(selector, dict) else {},
                      _required_terms(affinity) if affinity else None,
                      topology_request(template, stated_topology))


def _required_terms(affinity) -> list | None:
    """The nodeSelectorTerms of a required node affinity; None when there are none."""
    node_affinity = as_dict(as_dict(affinity).get("nodeAffinity"))
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    return list(terms) if isinstance(terms, list) else None


def resource_violation(pod_sets, limit_ranges: list) -> str | None:
    """Kueue's message when the scheduler refuses the pod templates (``ValidateAdmissibility``):
    a container whose requests exceed its limits once LimitRange defaults are applied, else a
    container outside the LimitRange's max or min."""
    if not limit_ranges and not _any_limits(pod_sets):
        return None     # the usual workload: nothing to compare (checked for every pending one)
    defaults = container_defaults(limit_ranges) if limit_ranges else None
    bounds = limit_range_bounds(limit_ranges) if limit_ranges else ({}, {})
    over_limits: list[str] = []
    out_of_range: list[str] = []
    for index, pod_set in enumerate(pod_sets):
        spec = as_dict(as_dict(pod_set.template).get("spec"))
        for key in ("initContainers", "containers"):
            for number, container in enumerate(as_list(spec.get(key))):
                if not isinstance(container, dict) or (defaults is None and not _has_limits(container)):
                    continue        # the usual container: nothing to compare
                where = f"spec.podSets[{index}].template.spec.{key}[{number}]"
                requests, limits = adjusted_container(container, defaults)
                _note(over_limits, where, greater_keys(requests, limits), "requests must not exceed its limits")
                if bounds[0] or bounds[1]:
                    _note_range(out_of_range, where, requests, limits, bounds)
    if over_limits:
        return f"resources validation failed: {_aggregate(over_limits)}"
    if out_of_range:
        return f"resources didn't satisfy LimitRange constraints: {_aggregate(out_of_range)}"
    return None


def _any_limits(pod_sets) -> bool:
    """Does a container of ``pod_sets`` state limits? Asked for every pending workload: the
    loops and checks are spelled out."""
    for pod_set in pod_sets:
        template = pod_set.template
        spec = template.get("spec") if isinstance(template, dict) else None
        if not isinstance(spec, dict):
            continue
        for key in ("initContainers", "containers"):
            listed = spec.get(key)
            if not isinstance(listed, list):
                continue
            for container in listed:
                resources = container.get("resources") if isinstance(container, dict) else None
                if isinstance(resources, dict) and resources.get("limits"):
                    return True
    return False


def _has_limits(container: dict) -> bool:
    resources = container.get("resources")
    return isinstance(resources, dict) and bool(resources.get("limits"))


def _note_range(errors: list[str], where: str, requests: dict, limits: dict, bounds: tuple) -> None:
    highest, lowest = dict(requests), dict(requests)
    for name, amount in limits.items():
        highest[name] = max(amount, highest.get(name, amount))
        lowest[name] = min(amount, lowest.get(name, amount))
    _note(errors, where, greater_keys(highest, bounds[0]), "requests must not be above the limitRange max")
    _note(errors, where, greater_keys(bounds[1], lowest), "requests must not be below the limitRange min")


def _note(errors: list[str], where: str, names: list[str], text: str) -> None:
    if names:
        listed = ",".join(f'"{n}"' for n in names)
        errors.append(f"{where}: Invalid value: [{listed}]: {text}")


def _aggregate(errors: list[str]) -> str:
    """An error list as Kubernetes' ``ToAggregate`` prints it."""
    return errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"


def source_of(obj) -> dict:
    doc = obj.doc
    return {"file": doc.source.path, "line": doc.line, "kind": obj.kind, "name": obj.name}


def mapping_at(obj, key: str) -> dict:
    """``obj.metadata`` or ``obj.spec`` without the property (a call costs more than the read;
    every pending workload is read before the work is split)."""
    data = obj.doc.data
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def pending_from_derived(obj, derived, seq: int, priorities: Priorities,
                         priority: int | None = None, limit_ranges: list | None = None) -> list[Pending]:
    """Pending records for one derived workload (several for per-pod kinds like Deployments);
    ``priority`` when the object states it (a Workload), else from the priority classes;
    ``limit_ranges``: the LimitRanges of its namespace."""
    data = obj.doc.data
    status = data.get("status") if isinstance(data, dict) else None
    listed = status.get("reclaimablePods") if isinstance(status, dict) else None
    reclaimable = _reclaimable(listed) if listed else None
    pod_sets = []
    for ps in derived.pod_sets:
        count = ps.count
        if reclaimable:     # finished pods of a pending Workload need no quota (podSetsCountsAfterReclaim)
            count -= min(max(0, reclaimable.get(ps.name, 0)), count)
        pod_sets.append(pod_set_spec(ps.name, count, ps.min_count, ps.requests, ps.template,
                                     _stated_topology(data, ps)))
    if priority is None:
        priority = priorities.resolve(derived.priority_class, _pod_priority_class(derived.pod_sets))
    namespace = derived.namespace or obj.namespace or "default"
    metadata = data.get("metadata") if isinstance(data, dict) else None
    if not isinstance(metadata, dict):
        metadata = {}
    name = derived.group_name or _object_name(obj, metadata, seq)
    created = epoch(metadata.get("creationTimestamp"))
    timestamp = created if created is not None else INCOMING_TIME + seq
    copies = max(1, derived.replicas) if derived.per_pod else 1
    invalid = resource_violation(derived.pod_sets, limit_ranges or [])
    uid, source = metadata.get("uid"), source_of(obj)
    records = []
    for index in range(copies):
        suffix = f"/pod-{index}" if copies > 1 else ""
        key = f"{namespace}/{name}{suffix}"
        records.append(Pending(key, namespace, name, derived.queue_name, priority, timestamp, seq,
                               str(uid or key), pod_sets, source, invalid=invalid))
    return records


def _stated_topology(data, pod_set) -> object:
    """A Workload's own ``topologyRequest`` beside the pod set's template (in the object's
    ``data``), if it has one."""
    path = pod_set.template_path
    if not path or path[-1] != "template":
        return None
    return dig(data, *path[:-1], "topologyRequest")


def _object_name(obj, metadata: dict, seq: int) -> str:
    """The object's name; for one named by ``generateName`` alone, that prefix and a number
    unique in the run, as the API server makes every such object a name of its own."""
    if not metadata.get("name") and isinstance(metadata.get("generateName"), str):
        return f"{metadata['generateName']}<{seq + 1}>"
    return obj.name


def _pod_priority_class(pod_sets) -> str | None:
    """The priorityClassName of the first pod template that has a spec (None unless a string:
    derivation reports any other value)."""
    for pod_set in pod_sets:
        spec = pod_set.template.get("spec")
        if isinstance(spec, dict):
            name = spec.get("priorityClassName")
            return name if isinstance(name, str) else None
    return None


def spec_priority(spec: dict, priorities: Priorities) -> int:
    value = spec.get("priority")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    ref = spec.get("priorityClassRef")
    name = ref.get("name") if isinstance(ref, dict) else spec.get("priorityClassName")
    return priorities.resolve(name if isinstance(name, str) else None,
                              name if isinstance(name, str) else None)


HOLDS, WAITS = "holds", "waits"


def standing(obj) -> tuple[str | None, str | None]:
    """A Workload's quota state: ``HOLDS`` quota (QuotaReserved, or admitted by a Kueue that
    sets no such condition), ``WAITS`` for it, or None when deactivated or Finished (§1.5);
    with, when it holds quota, the ClusterQueue its admission names. Every snapshot Workload
    passes here before the work is split between processes: nothing is built, and each value
    is looked at once."""
    data = obj.doc.data      # not the property: tens of thousands of calls
    if not isinstance(data, dict):
        return WAITS, None
    spec = data.get("spec")
    if isinstance(spec, dict) and spec.get("active") is False:
        return None, None
    status = data.get("status")
    if not isinstance(status, dict):
        return WAITS, None      # never admitted, never finished
    reserved = finished = None
    conditions = status.get("conditions")
    if isinstance(conditions, list):
        # the first condition of each type, spelled out: this loop runs for every snapshot
        # Workload, serially
        for cond in conditions:
            if isinstance(cond, dict):
                kind = cond.get("type")
                if kind == "QuotaReserved" and reserved is None:
                    reserved = cond
                elif kind == "Finished" and finished is None:
                    finished = cond
    if finished is not None and finished.get("status") == "True":
        return None, None
    admission = status.get("admission")
    if isinstance(admission, dict) and (reserved is None or reserved.get("status") == "True"):
        queue = admission.get("clusterQueue")
        return HOLDS, queue if isinstance(queue, str) else None
    return WAITS, None


def admitted_from_workload(obj, priorities: Priorities,
                           stand_in_uid: Callable[[Any], str | None] | None = None) -> Admitted | None:
    """The record of a Workload that ``standing`` found holding quota; ``stand_in_uid`` gives
    one written without a UID its own (else its name stands in). Tens of thousands of snapshot
    holders pass here, in the process that simulates their tree: their data is read straight,
    once, with the checks of ``as_dict``, ``epoch`` and ``spec_priority`` spelled out (a call
    costs more than what it does)."""
    data = obj.doc.data      # not the property: tens of thousands of calls
    status = data.get("status") if isinstance(data, dict) else None
    if not isinstance(status, dict):
        return None
    admission = status.get("admission")
    if not isinstance(admission, dict):
        return None
    cq = admission.get("clusterQueue")
    if not isinstance(cq, str):
        return None
    usage = _held_usage(admission.get("podSetAssignments"), status)
    reserved = evicted = None
    conditions = status.get("conditions")
    if isinstance(conditions, list):
        for cond in conditions:         # Kueue reads the first condition of each type
            if isinstance(cond, dict):
                kind = cond.get("type")
                if kind == "QuotaReserved":
                    if reserved is None:
                        reserved = cond
                elif kind == "Evicted" and evicted is None:
                    evicted = cond
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    text = metadata.get("creationTimestamp")
    created = (_epoch_of_text(text) if type(text) is str and text else epoch(text)) or 0.0
    reserved_at = created
    if reserved is not None:
        text = reserved.get("lastTransitionTime")
        reserved_at = (_epoch_of_text(text) if type(text) is str and text else epoch(text)) or created
    spec = data.get("spec")
    if not isinstance(spec, dict):
        spec = {}
    priority = spec.get("priority")
    if type(priority) is not int:
        priority = spec_priority(spec, priorities)
    uid = metadata.get("uid")
    if not uid:
        uid = (stand_in_uid(obj) if stand_in_uid is not None else None) or obj.name
    return Admitted(f"{obj.namespace}/{obj.name}", cq, priority, usage, reserved_at, created, str(uid),
                    evicted is not None and evicted.get("status") == "True")


def _held_usage(assignments, status: dict) -> dict[FR, int]:
    """What a holder's pod set assignments charge, less its finished pods (reclaimablePods)."""
    usage: dict[FR, int] = {}
    if not isinstance(assignments, list):
        return usage
    listed = status.get("reclaimablePods")
    reclaimable = _reclaimable(listed) if listed else None
    for assignment in assignments:
        if isinstance(assignment, dict):
            _add_assignment_usage(assignment, reclaimable.get(str(assignment.get("name")), 0) if reclaimable else 0,
                                  usage)
    return usage


def _reclaimable(listed) -> dict[str, int] | None:
    """Pods per pod set that finished and give back their quota (status.reclaimablePods)."""
    if not listed or not isinstance(listed, list):
        return None
    return {str(r.get("name")): _int(r.get("count")) for r in listed if isinstance(r, dict)}


def _add_assignment_usage(assignment: dict, reclaimable: int, usage: dict) -> None:
    flavors = assignment.get("flavors")
    if not isinstance(flavors, dict):
        return      # no flavor, no usage counted
    resource_usage = assignment.get("resourceUsage")
    if not isinstance(resource_usage, dict):
        return
    count = assignment.get("count")
    scale = count if reclaimable and isinstance(count, int) and count > 0 else 0
    known = _USAGE_OF_TEXT.get
    for resource, value in resource_usage.items():
        flavor = flavors.get(resource)
        if not flavor:
            continue
        found: Any
        try:
            found = known((flavor, resource, value), _UNSEEN)
        except TypeError:       # unhashable junk: read below, never kept
            found = _UNSEEN
        if found is _UNSEEN:
            found = _usage_entry(flavor, resource, value)
        if found is None:
            continue
        fr, amount = found
        if scale:
            amount = amount * max(0, scale - reclaimable) // scale
        usage[fr] = usage.get(fr, 0) + amount


# (flavor, resource, value) -> the flavor/resource and Kueue units, for entries that are all
# text (as the API server writes quantities): tens of thousands of holders repeat a few flavors
# and quantities, each read once. Only text is kept, so a look-up by an equal number (True, 1
# and 1.0 are equal keys) never finds another type's answer; such values are read every time.
_USAGE_OF_TEXT: dict[tuple, tuple[FR, int] | None] = {}
_UNSEEN = object()


def _usage_entry(flavor, resource, value) -> tuple[FR, int] | None:
    found = _recorded_usage(flavor, resource, value)
    if type(flavor) is str and type(resource) is str and type(value) is str and len(_USAGE_OF_TEXT) < 65536:
        _USAGE_OF_TEXT[flavor, resource, value] = found
    return found


def _recorded_usage(flavor, resource, value) -> tuple[FR, int] | None:
    """The flavor/resource and Kueue units of one ``resourceUsage`` entry; None when unreadable."""
    amount = _units(resource, value)
    return None if amount is None else (flavor_resource(str(flavor), str(resource)), amount)


def _units(resource, value) -> int | None:
    """Kueue units of a recorded usage value; None when unreadable (cached by the caller)."""
    quantity, _ = safe_parse(value)
    return None if quantity is None else to_kueue_units(resource, quantity)
