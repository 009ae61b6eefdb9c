"""The machinery every pod-set deriver shares: the object being read, drafts, and the common tail.

Every kind has a small deriver (in the ``kinds_*`` modules) that finds its pod templates and
counts; the common tail (``_Derivation.pod_set``) computes per-pod requests once, the same way
for every kind. Derivers read input defensively: a value of the wrong type becomes a problem on
the workload and the value is skipped, so a malformed manifest still yields whatever can be
known about it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from kueuelint.accounting.requests import ResourcesConfig, pod_requests
from kueuelint.derive.model import PodSet, Workload
from kueuelint.identify.objects import dig
from kueuelint.kueue.facts import Fact

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
DEFAULT_POD_SET = "main"

METADATA_LABELS = ("metadata", "labels")


@dataclass
class _Subject:
    """The object being derived: a loaded object or a component wrapped in an AppWrapper."""

    data: dict
    key: str
    name: str
    namespace: str | None

    def get(self, *path, default=None):
        return dig(self.data, *path, default=default)


class _Rewrite(NamedTuple):
    """Where a field of a (possibly synthesized) pod spec really lives in the object.

    ``keep_rest`` appends what follows ``prefix``; otherwise every path under ``prefix``
    points at ``target`` itself (e.g. a default container Kueue adds points at the switch
    that adds it).
    """

    prefix: tuple
    target: tuple
    keep_rest: bool = True


@dataclass
class _Draft:
    """A pod set before its requests are computed."""

    name: str
    count: int
    template: dict
    template_path: tuple
    spec_path: tuple
    min_count: int | None = None
    rewrites: list[_Rewrite] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)   # resource -> origin override
    source: dict = field(default_factory=dict)   # the raw entry (e.g. replicated job) it came from

    def object_path(self, relative: tuple) -> tuple:
        best = None
        for rewrite in self.rewrites:
            if relative[:len(rewrite.prefix)] == rewrite.prefix:
                if best is None or len(rewrite.prefix) > len(best.prefix):
                    best = rewrite
        if best is None:
            return self.spec_path + relative
        return best.target + (relative[len(best.prefix):] if best.keep_rest else ())


class _Derivation:
    """State for deriving one object: where to read, what went wrong, shared lookups."""

    def __init__(self, subject: _Subject, inventory, depth: int) -> None:
        self.subject = subject
        self.inventory = inventory
        self.depth = depth
        self.problems: list[tuple[tuple, str]] = []

    # reading values ------------------------------------------------------------------------

    def mapping(self, path: tuple, *, required: bool = False) -> dict:
        node = self.subject.get(*path)
        if isinstance(node, dict):
            return node
        if node is not None:
            self.problems.append((path, f"expected a mapping, got {_type_name(node)}"))
        elif required:
            self.problems.append((path, "missing"))
        return {}

    def sequence(self, path: tuple) -> list:
        node = self.subject.get(*path)
        if isinstance(node, list):
            return node
        if node is not None:
            self.problems.append((path, f"expected a list, got {_type_name(node)}"))
        return []

    def integer(self, path: tuple, default: int | None, *, minimum: int = 0) -> int | None:
        node = self.subject.get(*path)
        if node is None:
            return default
        if isinstance(node, bool) or not isinstance(node, int):
            self.problems.append((path, f"expected an integer, got {_type_name(node)} {node!r}"))
            return default
        if node < minimum:
            self.problems.append((path, f"must be at least {minimum}, got {node}"))
            return default
        return node

    def integer_text(self, path: tuple, *, minimum: int) -> int | None:
        """An integer written as a string, as annotations hold them."""
        node = self.subject.get(*path)
        if node is None:
            return None
        text = str(node).strip() if isinstance(node, (str, int)) and not isinstance(node, bool) else ""
        if not re.fullmatch(r"[+-]?\d{1,18}", text):
            self.problems.append((path, f"expected an integer in a string, got {node!r}"))
            return None
        if int(text) < minimum:
            self.problems.append((path, f"must be at least {minimum}, got {text}"))
            return None
        return int(text)

    def template(self, path: tuple) -> dict:
        """A pod template ({metadata, spec}); a problem when it is missing or not a mapping."""
        template = self.mapping(path, required=True)
        spec = template.get("spec")
        if template and not isinstance(spec, dict):
            self.problems.append((path + ("spec",), "pod template has no spec"))
        elif template:
            self._check_priority_class(spec, path + ("spec", "priorityClassName"))
        return template

    def _check_priority_class(self, spec: dict, path: tuple) -> None:
        """The API server rejects a priorityClassName that is no string (the scheduler's
        queue order reads it, so it cannot be left as it is)."""
        name = spec.get("priorityClassName")
        if name is not None and not isinstance(name, str):
            self.problems.append((path, f"priorityClassName must be the name of a PriorityClass, "
                                        f"got {_type_name(name)}"))

    def draft(self, name: str, count: int, template_path: tuple, **extra) -> _Draft:
        return _Draft(name, count, self.template(template_path), template_path,
                      template_path + ("spec",), **extra)

    # building results ------------------------------------------------------------------------

    def workload(self, drafts: list[_Draft], *, name: str | None = None,
                 label_paths: tuple[tuple, ...] = (METADATA_LABELS,), **extra) -> Workload:
        queue, queue_path = self.label(QUEUE_LABEL, label_paths)
        priority, _ = self.label(PRIORITY_LABEL, label_paths)
        workload = Workload(name=name or self.subject.name, namespace=self.subject.namespace,
                            queue_name=queue, queue_name_path=queue_path, priority_class=priority,
                            kind=self.subject.key, **extra)
        workload.pod_sets = [self.pod_set(draft) for draft in drafts]
        return workload

    def label(self, key: str, label_paths: tuple[tuple, ...]) -> tuple[str | None, tuple | None]:
        """The first value of label ``key`` among ``label_paths`` (in order of precedence)."""
        for labels_path in label_paths:
            labels = self.subject.get(*labels_path)
            if not isinstance(labels, dict) or key not in labels:
                continue
            value = labels[key]
            if isinstance(value, str) and value:
                return value, labels_path + (key,)
            self.problems.append((labels_path + (key,), f"label value must be a non-empty string, "
                                                        f"got {value!r}"))
        return None, None

    def pod_set(self, draft: _Draft) -> PodSet:
        found = pod_requests(draft.template.get("spec"), limit_ranges=self._limit_ranges(),
                             runtime_classes=self._runtime_class)
        paths = {name: draft.object_path(path) for name, path in found.paths.items()}
        requests, request_paths = self._resources_config().apply_with_paths(found.requests, paths)
        self.problems.extend((draft.object_path(path), message) for path, message in found.problems)
        return PodSet(draft.name, draft.count, min_count=draft.min_count, template=draft.template,
                      template_path=draft.template_path, raw_requests=found.requests,
                      requests=requests, request_paths=request_paths, spec_path=draft.spec_path,
                      request_origins={**found.origins, **draft.origins})

    def finish(self, workloads: list[Workload]) -> list[Workload]:
        # Problems belong to the object; attach them once, not to every copy of a group.
        if workloads and self.problems:
            workloads[0].problems.extend(_unique(self.problems))
        return workloads

    # inventory lookups -------------------------------------------------------------------------

    def _limit_ranges(self) -> list:
        if self.inventory is None:
            return []
        return list(self.inventory.limit_ranges(self.subject.namespace))

    def _runtime_class(self, name: str):
        return self.inventory.runtime_class(name) if self.inventory is not None else None

    def _resources_config(self) -> ResourcesConfig:
        return resources_config(self.inventory)


def resources_config(inventory) -> ResourcesConfig:
    """The Kueue Configuration's ``resources`` section of the run (one per inventory)."""
    if inventory is None:
        return ResourcesConfig()
    return RESOURCES_CONFIG.of(inventory)


RESOURCES_CONFIG = Fact("resources-config",
                        lambda inventory: ResourcesConfig.from_configuration(inventory.kueue_configuration()))


def _unique(problems: list) -> list:
    seen, unique = set(), []
    for problem in problems:
        if problem not in seen:
            seen.add(problem)
            unique.append(problem)
    return unique


def _type_name(value: object) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def _pod_set_name(raw: object) -> str:
    # Kueue lower-cases pod set names built from replica types and group names.
    return str(raw).lower()


def _with_container(draft: _Draft, container: dict, rewrite_target: tuple, *,
                    keep_rest: bool, origin: str | None = None) -> None:
    """Add a container Kueue or an operator puts in the pod, without touching the input."""
    spec = dict(_dict(draft.template.get("spec")))
    containers = spec.get("containers")
    containers = list(containers) if isinstance(containers, list) else []
    index = len(containers)
    containers.append(container)
    spec["containers"] = containers
    draft.template = {**draft.template, "spec": spec}
    draft.rewrites.append(_Rewrite(("containers", index, "resources"), rewrite_target, keep_rest))
    if origin:
        for name in _resource_names(container):
            draft.origins.setdefault(name, origin)


def _resource_names(container: dict) -> set[str]:
    resources = container.get("resources")
    names: set[str] = set()
    if isinstance(resources, dict):
        for key in ("requests", "limits"):
            if isinstance(resources.get(key), dict):
                names.update(resources[key])
    return names


def _sized(cpu: str, memory: str, limit_cpu: str | None = None, limit_memory: str | None = None) -> dict:
    return {"requests": {"cpu": cpu, "memory": memory},
            "limits": {"cpu": limit_cpu or cpu, "memory": limit_memory or memory}}


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}
