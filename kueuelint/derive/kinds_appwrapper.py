"""Pod sets of an AppWrapper: declared by the wrapper, or derived from the objects it wraps."""

from __future__ import annotations

import re

from kueuelint.derive.derivation import _Derivation, _dict, _Subject
from kueuelint.derive.model import PodSet, Workload
from kueuelint.derive.podsets import derive_subject
from kueuelint.identify.kinds import kind_key

# AppWrappers may wrap AppWrappers; real ones never nest deeper than this.
MAX_WRAPPING_DEPTH = 4


def _derive_appwrapper(d: _Derivation) -> list[Workload]:
    pod_sets: list[PodSet] = []
    for index, component in enumerate(d.sequence(("spec", "components"))):
        path = ("spec", "components", index)
        if not isinstance(component, dict):
            d.problems.append((path, "component is not a mapping"))
            continue
        pod_sets += _component_pod_sets(d, component, path, index)
    workload = d.workload([])
    workload.pod_sets = pod_sets
    return [workload]


def _component_pod_sets(d: _Derivation, component: dict, path: tuple, index: int) -> list[PodSet]:
    declared = component.get("podSets")
    if isinstance(declared, list) and declared:
        return [pod_set for pod_set_index, entry in enumerate(declared)
                if (pod_set := _declared_pod_set(d, entry, path, index, pod_set_index)) is not None]
    return _inferred_pod_sets(d, component, path, index)


def _declared_pod_set(d: _Derivation, entry: object, component_path: tuple, index: int,
                      pod_set_index: int) -> PodSet | None:
    """A pod set the AppWrapper names itself: ``path`` into the component and ``replicas``."""
    entry_path = component_path + ("podSets", pod_set_index)
    relative = _appwrapper_path(entry.get("path")) if isinstance(entry, dict) else None
    if relative is None:
        d.problems.append((entry_path + ("path",), "expected a path like 'template.spec.template'"))
        return None
    replicas = d.integer(entry_path + ("replicas",), 1)
    draft = d.draft(f"{index}-{pod_set_index}", replicas, component_path + relative)
    return d.pod_set(draft)


def _appwrapper_path(text: object) -> tuple | None:
    if not isinstance(text, str) or not text.startswith("template"):
        return None
    parts: list = []
    for match in re.finditer(r"\.?([^.\[\]]+)|\[(\d+)\]", text):
        parts.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
    return tuple(parts)


def _inferred_pod_sets(d: _Derivation, component: dict, path: tuple, index: int) -> list[PodSet]:
    wrapped = component.get("template")
    if not isinstance(wrapped, dict) or d.depth >= MAX_WRAPPING_DEPTH:
        d.problems.append((path + ("template",), "component has no wrapped object"))
        return []
    subject = _wrapped_subject(d, wrapped)
    prefix = path + ("template",)
    pod_sets = []
    # a Service, ConfigMap, ... derives no workload
    for workload in derive_subject(subject, d.inventory, d.depth + 1)[:1]:
        d.problems.extend((prefix + p, message) for p, message in workload.problems)
        for pod_set in workload.pod_sets:
            pod_set.count *= workload.replicas if workload.per_pod else 1
            pod_sets.append(_prefixed(pod_set, prefix, f"{index}-{pod_set.name}"))
    return pod_sets


def _wrapped_subject(d: _Derivation, wrapped: dict) -> _Subject:
    api_version = wrapped.get("apiVersion") if isinstance(wrapped.get("apiVersion"), str) else ""
    kind = wrapped.get("kind") if isinstance(wrapped.get("kind"), str) else ""
    group = api_version.rpartition("/")[0]
    name = _dict(wrapped.get("metadata")).get("name")
    return _Subject(wrapped, kind_key(group, kind), name if isinstance(name, str) else d.subject.name,
                    d.subject.namespace)


def _prefixed(pod_set: PodSet, prefix: tuple, name: str) -> PodSet:
    pod_set.name = name
    pod_set.template_path = prefix + pod_set.template_path
    pod_set.spec_path = prefix + pod_set.spec_path
    pod_set.request_paths = {resource: prefix + path for resource, path in pod_set.request_paths.items()}
    return pod_set
