"""What may not change between two versions of a Kueue object, without a CRD at hand.

The same rules Kueue's CRDs state as CEL transition rules (``oldSelf``), in the CRDs' words,
for ``kueuelint diff``-style checks when the run carries no CRD.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

HOSTNAME = "kubernetes.io/hostname"
Problem = tuple[tuple, str]   # (field path, message)


def _get(obj: Any, *path, default=None):
    for step in path:
        if not isinstance(obj, dict) or step not in obj:
            return default
        obj = obj[step]
    return obj


def _immutable(*path) -> Callable[[dict, dict, str], Iterator[Problem]]:
    """Like a field-level ``self == oldSelf``: judged only when both versions have the field."""
    def check(old, new, version):
        before, after = _get(old, *path), _get(new, *path)
        if before is not None and after is not None and before != after:
            yield path, "field is immutable"
    return check


def _flavor(old, new, version):
    before = _get(old, "spec", "topologyName")
    if before is not None and _get(new, "spec", "topologyName") != before:
        yield ("spec",), "topologyName is immutable when topologyName is set"


def _levels(old, new, version):
    before, after = _get(old, "spec", "levels"), _get(new, "spec", "levels")
    if before == after:
        return
    last = (lambda levels: isinstance(levels, list) and bool(levels)
            and _get(levels[-1], "nodeLabel") == HOSTNAME)
    if version == "v1beta1":
        yield ("spec", "levels"), "field is immutable"
    elif not (last(before) and last(after)):
        yield ("spec", "levels"), ("levels are mutable only when kubernetes.io/hostname is the "
                                   "lowest level both before and after the change")


def _condition(obj, kind) -> bool:
    return any(_get(c, "type") == kind and _get(c, "status") == "True"
               for c in _get(obj, "status", "conditions", default=[]) or [])


def _workload(old, new, version):
    yield from _priority(old, new, version)
    if _condition(old, "QuotaReserved") and _condition(new, "QuotaReserved") and \
            _get(old, "spec", "queueName") != _get(new, "spec", "queueName"):
        yield ("spec", "queueName"), "queueName is immutable while workload quota reserved"
    if _condition(old, "Admitted") and _condition(new, "Admitted") and \
            _get(old, "spec", "maximumExecutionTimeSeconds", default=0) != \
            _get(new, "spec", "maximumExecutionTimeSeconds", default=0):
        yield (("spec", "maximumExecutionTimeSeconds"),
               "maximumExecutionTimeSeconds is immutable while workload quota reserved")
    cluster = _get(old, "status", "clusterName")
    if cluster is not None and _get(new, "status", "clusterName", default=cluster) != cluster:
        yield ("status", "clusterName"), "clusterName is immutable once set"


def _priority(old, new, version):
    if not _condition(old, "QuotaReserved"):
        return
    if version == "v1beta1":
        yield from _priority_v1beta1(old, new)
        return
    before, after = _get(old, "spec", "priorityClassRef"), _get(new, "spec", "priorityClassRef")
    if (before is None) != (after is None):
        yield ("spec", "priorityClassRef"), "priorityClassRef is immutable while workload " \
                                            "quota reserved"
        return
    for field in ("group", "kind"):
        if before is not None and _get(before, field) != _get(after, field):
            yield ("spec", "priorityClassRef", field), \
                f"priorityClassRef.{field} is immutable while workload quota reserved"
    if after is not None and _get(after, "group") == "scheduling.k8s.io" and \
            _get(after, "kind") == "PriorityClass" and _get(before, "name") != _get(after, "name"):
        yield ("spec", "priorityClassRef", "name"), (
            "priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while "
            "workload quota reserved")


def _priority_v1beta1(old, new):
    # the CRD defaults priorityClassSource to "", so it is always present when rules run
    source_before = _get(old, "spec", "priorityClassSource", default="")
    source_after = _get(new, "spec", "priorityClassSource", default="")
    if source_before != source_after:
        yield ("spec", "priorityClassSource"), ("priorityClassSource is immutable while "
                                                "workload quota reserved")
    name_before, name_after = (_get(old, "spec", "priorityClassName"),
                               _get(new, "spec", "priorityClassName"))
    if source_after != "kueue.x-k8s.io/workloadpriorityclass" and name_before is not None \
            and name_after is not None and name_before != name_after:
        yield ("spec", "priorityClassName"), (
            "priorityClassName is immutable while workload quota reserved and "
            "priorityClassSource is not equal to kueue.x-k8s.io/workloadpriorityclass")


CHECKS: dict[str, Callable] = {
    "LocalQueue": _immutable("spec", "clusterQueue"),
    "AdmissionCheck": _immutable("spec", "controllerName"),
    "ResourceFlavor": _flavor,
    "Topology": _levels,
    "Workload": _workload,
}


def problems(kind: str, version: str, old: dict, new: dict) -> list[Problem]:
    check = CHECKS.get(kind)
    return list(check(old, new, version)) if check else []
