"""What one pod of a template asks for, the way Kueue counts it (kueue-scheduler.md §1.2-1.4).

Two stages, kept apart because the first is plain Kubernetes and the second is Kueue's own:

* ``pod_requests`` turns a PodSpec into per-pod quantities: RuntimeClass overhead, LimitRange
  defaults, limits standing in for missing requests, the sidecar-aware init-container rule,
  pod-level resources and overhead.
* ``ResourcesConfig`` applies the Kueue Configuration's ``resources`` section (excluded
  prefixes, transformations) and converts to Kueue's integer units.

Bad input never raises: each value that cannot be used becomes a ``(path, message)`` problem
(paths relative to the PodSpec) and is left out of the sums.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from kueuelint.accounting.quantity import exact_arithmetic, pod_value_problem, safe_parse, to_kueue_units

PODS_RESOURCE = "pods"
POD_LEVEL_RESOURCES = ("cpu", "memory")   # plus hugepages-*; Kubernetes allows nothing else
SIDECAR_RESTART_POLICY = "Always"

Problem = tuple[tuple, str]
ResourceList = dict[str, Decimal]


@dataclass
class PodRequests:
    """Per-pod request of one PodSpec.

    ``paths`` point (relative to the PodSpec) at the field a user would edit for each resource;
    ``origins`` say where the amount came from: ``requests``, ``limits``, ``limit-range:<name>``,
    ``pod-resources``, ``overhead`` or ``runtime-class:<name>``. Unpacks as
    ``(requests, paths, problems)``.
    """

    requests: ResourceList = field(default_factory=dict)
    paths: dict[str, tuple] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)

    def __iter__(self):
        return iter((self.requests, self.paths, self.problems))

    def note_source(self, resource: str, path: tuple, origin: str) -> None:
        if resource not in self.paths:
            self.paths[resource] = path
            self.origins[resource] = origin


RuntimeClassLookup = Mapping[str, dict] | Callable[[str], "dict | None"]


def pod_requests(pod_spec: object, *, limit_ranges: Iterable[object] = (),
                 runtime_classes: RuntimeClassLookup | None = None) -> PodRequests:
    """Per-pod request of ``pod_spec`` following Kubernetes' and Kueue's rules.

    ``limit_ranges`` are LimitRange objects (plain dicts) of the pod's namespace;
    ``runtime_classes`` maps a RuntimeClass name to its object (dict or lookup function).
    """
    result = PodRequests()
    if not isinstance(pod_spec, dict):
        if pod_spec is not None:
            result.problems.append(((), "pod spec is not a mapping"))
        return result
    defaults = container_defaults(limit_ranges)
    with exact_arithmetic():
        containers = _read_containers(pod_spec, "containers", defaults, result)
        init_containers = _read_containers(pod_spec, "initContainers", defaults, result)
        aggregate = _aggregate(containers, init_containers)
        _apply_pod_level(pod_spec, aggregate, result)
        _add_overhead(pod_spec, runtime_classes, aggregate, result)
    result.requests = aggregate
    return result


# --- containers ------------------------------------------------------------------------------

@dataclass
class _Container:
    requests: ResourceList
    restartable: bool


@dataclass
class _Defaults:
    """LimitRange defaults for containers: resource -> (quantity, LimitRange name)."""

    limits: dict[str, tuple[Decimal, str]] = field(default_factory=dict)
    requests: dict[str, tuple[Decimal, str]] = field(default_factory=dict)


def _read_containers(pod_spec: dict, key: str, defaults: _Defaults,
                     result: PodRequests) -> list[_Container]:
    items = pod_spec.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        result.problems.append(((key,), f"{key} is not a list"))
        return []
    containers = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            result.problems.append(((key, index), "container is not a mapping"))
            continue
        requests = _container_requests(item, (key, index), defaults, result)
        containers.append(_Container(requests, item.get("restartPolicy") == SIDECAR_RESTART_POLICY))
    return containers


def _container_requests(container: dict, path: tuple, defaults: _Defaults,
                        result: PodRequests) -> ResourceList:
    """Requests of one container after LimitRange defaults and limits-as-requests (§1.2)."""
    resources = container.get("resources")
    if resources is not None and not isinstance(resources, dict):
        result.problems.append((path + ("resources",), "resources is not a mapping"))
        resources = {}
    resources = resources or {}
    base = path + ("resources",)
    requests = _resource_list(resources.get("requests"), base + ("requests",), result)
    limits = _resource_list(resources.get("limits"), base + ("limits",), result)
    sources = {name: (base + ("requests", name), "requests") for name in requests}
    for name, (amount, limit_range) in defaults.limits.items():
        limits.setdefault(name, amount)
    for name, (amount, limit_range) in defaults.requests.items():
        if name not in requests:
            requests[name] = amount
            sources[name] = (base + ("requests", name), f"limit-range:{limit_range}")
    for name, amount in limits.items():
        if name not in requests:
            requests[name] = amount
            sources[name] = (base + ("limits", name), _limit_origin(name, resources, defaults))
    _drop_pods_resource(requests, sources, result)
    for name, (source_path, origin) in sources.items():
        result.note_source(name, source_path, origin)
    return requests


def _limit_origin(name: str, resources: dict, defaults: _Defaults) -> str:
    declared = resources.get("limits")
    if isinstance(declared, dict) and name in declared:
        return "limits"
    return f"limit-range:{defaults.limits[name][1]}"


def _drop_pods_resource(requests: ResourceList, sources: dict, result: PodRequests) -> None:
    # `pods` is counted by Kueue per pod set (count), never from containers.
    if PODS_RESOURCE in requests:
        del requests[PODS_RESOURCE]
        path, _ = sources.pop(PODS_RESOURCE)
        result.problems.append((path, "'pods' cannot be requested by a container; Kueue counts "
                                      "pods from the pod set size"))


def _resource_list(node: object, path: tuple, result: PodRequests, pod: bool = True) -> ResourceList:
    if node is None:
        return {}
    if not isinstance(node, dict):
        result.problems.append((path, "expected a mapping of resource names to quantities"))
        return {}
    amounts: ResourceList = {}
    for name, value in node.items():
        amount, error = safe_parse(value)
        if not isinstance(name, str):
            result.problems.append((path, f"resource name {name!r} is not a string"))
        elif error is not None:
            result.problems.append((path + (name,), error))
        elif pod and (reason := pod_value_problem(name, amount)):   # the API server rejects it
            result.problems.append((path + (name,), f"invalid quantity {value!r} for {name}: {reason}"))
            if amount >= 0:   # a fractional extended resource still counts (Kueue rounds up)
                amounts[name] = amount
        else:
            amounts[name] = amount
    return amounts


# --- LimitRange --------------------------------------------------------------------------------

def container_defaults(limit_ranges: Iterable[object]) -> _Defaults:
    """Defaults that the namespace's LimitRanges of type Container give to containers.

    The API server completes a LimitRange item when it is stored: a missing ``default`` comes
    from ``max``, a missing ``defaultRequest`` from ``default`` and then from ``min``. Files
    hold the item as written, so the same completion is done here. Earlier LimitRanges win.
    """
    defaults = _Defaults()
    scratch = PodRequests()   # problems in LimitRanges belong to the LimitRange, not the pod
    for limit_range in limit_ranges:
        name = _object_name(limit_range)
        for item in _container_items(limit_range):
            completed = _completed_item(item, scratch)
            for resource, amount in completed["default"].items():
                defaults.limits.setdefault(resource, (amount, name))
            for resource, amount in completed["defaultRequest"].items():
                defaults.requests.setdefault(resource, (amount, name))
    return defaults


def adjusted_container(container: dict, defaults: _Defaults | None) -> tuple[ResourceList, ResourceList]:
    """A container's (requests, limits) as Kueue's ``AdjustResources`` leaves them on the
    Workload: LimitRange default limits and default requests fill what is missing, and only
    then do limits fill the requests still missing (pkg/workload/resources.go). Unreadable
    values are left out: they are reported where the pod is read."""
    resources = container.get("resources")
    resources = resources if isinstance(resources, dict) else {}
    scratch = PodRequests()
    requests = _resource_list(resources.get("requests"), (), scratch)
    limits = _resource_list(resources.get("limits"), (), scratch)
    if defaults is not None:
        for name, (amount, _) in defaults.limits.items():
            limits.setdefault(name, amount)
        for name, (amount, _) in defaults.requests.items():
            requests.setdefault(name, amount)
    for name, amount in limits.items():
        requests.setdefault(name, amount)
    return requests, limits


def limit_range_bounds(limit_ranges: Iterable[object], kind: str = "Container") -> tuple[ResourceList, ResourceList]:
    """(max, min) over the namespace's LimitRange items of ``kind``: the smallest max and the
    largest min of each resource bind (Kueue's ``limitrange.Summarize``)."""
    highest: ResourceList = {}
    lowest: ResourceList = {}
    scratch = PodRequests()
    for limit_range in limit_ranges:
        for item in _limit_items(limit_range, kind):
            for name, amount in _resource_list(item.get("max"), (), scratch).items():
                if name not in highest or amount < highest[name]:
                    highest[name] = amount
            for name, amount in _resource_list(item.get("min"), (), scratch).items():
                if name not in lowest or amount > lowest[name]:
                    lowest[name] = amount
    return highest, lowest


def greater_keys(amounts: Mapping[str, Decimal], bounds: Mapping[str, Decimal]) -> list[str]:
    """The resources, sorted, that both name and where ``amounts`` exceeds ``bounds``."""
    return sorted(name for name, amount in amounts.items() if name in bounds and amount > bounds[name])


def _container_items(limit_range: object) -> list[dict]:
    return _limit_items(limit_range, "Container")


def _limit_items(limit_range: object, kind: str) -> list[dict]:
    data = getattr(limit_range, "data", limit_range)
    spec = data.get("spec") if isinstance(data, dict) else None
    items = spec.get("limits") if isinstance(spec, dict) else None
    if not isinstance(items, list):
        return []
    return [item for item in items if isinstance(item, dict) and item.get("type") == kind]


def _completed_item(item: dict, scratch: PodRequests) -> dict[str, ResourceList]:
    read = {key: _resource_list(item.get(key), (key,), scratch)
            for key in ("default", "defaultRequest", "max", "min")}
    for resource, amount in read["max"].items():
        read["default"].setdefault(resource, amount)
    for resource, amount in read["default"].items():
        read["defaultRequest"].setdefault(resource, amount)
    for resource, amount in read["min"].items():
        read["defaultRequest"].setdefault(resource, amount)
    return read


def _object_name(obj: object) -> str:
    data = getattr(obj, "data", obj)
    metadata = data.get("metadata") if isinstance(data, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else "?"


# --- aggregation -------------------------------------------------------------------------------

def _aggregate(containers: list[_Container], init_containers: list[_Container]) -> ResourceList:
    """max(regular containers + sidecars, peak of the init phase) per resource (§1.3)."""
    running: ResourceList = {}
    for container in containers:
        _add_into(running, container.requests)
    sidecars_so_far: ResourceList = {}
    init_peak: ResourceList = {}
    for container in init_containers:
        if container.restartable:
            _add_into(running, container.requests)
            _add_into(sidecars_so_far, container.requests)
            moment = sidecars_so_far
        else:
            moment = dict(sidecars_so_far)
            _add_into(moment, container.requests)
        _max_into(init_peak, moment)
    _max_into(running, init_peak)
    return running


def _add_into(target: ResourceList, extra: Mapping[str, Decimal]) -> None:
    for name, amount in extra.items():
        target[name] = target.get(name, Decimal(0)) + amount


def _max_into(target: ResourceList, other: Mapping[str, Decimal]) -> None:
    for name, amount in other.items():
        if name not in target or amount > target[name]:
            target[name] = amount


def _apply_pod_level(pod_spec: dict, aggregate: ResourceList, result: PodRequests) -> None:
    """Pod-level ``spec.resources`` replace the container sum for what they name (KEP-2837)."""
    resources = pod_spec.get("resources")
    if resources is None:
        return
    if not isinstance(resources, dict):
        result.problems.append((("resources",), "resources is not a mapping"))
        return
    requests = _resource_list(resources.get("requests"), ("resources", "requests"), result)
    limits = _resource_list(resources.get("limits"), ("resources", "limits"), result)
    paths = {name: ("resources", "requests", name) for name in requests}
    for name, amount in limits.items():
        if name not in requests:
            requests[name] = amount
            paths[name] = ("resources", "limits", name)
    for name, amount in requests.items():
        if name in POD_LEVEL_RESOURCES or name.startswith("hugepages-"):
            aggregate[name] = amount
            result.paths[name] = paths[name]
            result.origins[name] = "pod-resources"
        else:
            result.problems.append((paths[name], f"pod-level resources support only cpu, memory "
                                                 f"and hugepages-*, not {name!r}"))


def _add_overhead(pod_spec: dict, runtime_classes: RuntimeClassLookup | None,
                  aggregate: ResourceList, result: PodRequests) -> None:
    overhead, path, origin = _overhead(pod_spec, runtime_classes, result)
    for name, amount in overhead.items():
        aggregate[name] = aggregate.get(name, Decimal(0)) + amount
        result.note_source(name, path(name), origin)


def _overhead(pod_spec: dict, runtime_classes: RuntimeClassLookup | None, result: PodRequests):
    """The pod's own ``overhead`` if set, else the RuntimeClass's ``overhead.podFixed`` (§1.2)."""
    if "overhead" in pod_spec and pod_spec["overhead"] is not None:
        overhead = _resource_list(pod_spec["overhead"], ("overhead",), result)
        return overhead, (lambda name: ("overhead", name)), "overhead"
    class_name = pod_spec.get("runtimeClassName")
    runtime_class = _find_runtime_class(runtime_classes, class_name)
    node = runtime_class.get("overhead") if isinstance(runtime_class, dict) else None
    fixed = node.get("podFixed") if isinstance(node, dict) else None
    overhead = _resource_list(fixed, ("runtimeClassName",), PodRequests())
    return overhead, (lambda name: ("runtimeClassName",)), f"runtime-class:{class_name}"


def _find_runtime_class(runtime_classes: RuntimeClassLookup | None, name: object) -> dict | None:
    if not isinstance(name, str) or not name or runtime_classes is None:
        return None
    found = runtime_classes(name) if callable(runtime_classes) else runtime_classes.get(name)
    found = getattr(found, "data", found)
    return found if isinstance(found, dict) else None


# --- Kueue's resources configuration --------------------------------------------------------

STRATEGY_RETAIN = "Retain"
STRATEGY_REPLACE = "Replace"
IGNORE_UNDECLARED = "IgnoreUndeclared"


class Transformation(NamedTuple):
    input: str
    strategy: str                        # Retain | Replace
    outputs: dict[str, Decimal]          # output resource -> factor per unit of input
    multiply_by: str | None = None


@dataclass
class ResourcesConfig:
    """The ``resources`` section of a Kueue Configuration, ready to apply to per-pod requests."""

    exclude_prefixes: tuple[str, ...] = ()
    transformations: dict[str, Transformation] = field(default_factory=dict)
    quota_check_strategy: str | None = None
    # (path inside the Configuration, message) for entries that could not be used
    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def from_configuration(cls, configuration: object) -> ResourcesConfig:
        section = configuration.get("resources") if isinstance(configuration, dict) else None
        config = cls()
        if section is None:
            return config
        if not isinstance(section, dict):
            config.problems.append((("resources",), "resources is not a mapping"))
            return config
        config.exclude_prefixes = _string_list(section.get("excludeResourcePrefixes"),
                                               ("resources", "excludeResourcePrefixes"), config.problems)
        config.transformations = _transformations(section.get("transformations"), config.problems)
        strategy = section.get("quotaCheckStrategy")
        config.quota_check_strategy = strategy if isinstance(strategy, str) else None
        return config

    @property
    def quota_check_ignores_undeclared(self) -> bool:
        return self.quota_check_strategy == IGNORE_UNDECLARED

    def is_excluded(self, resource: str) -> bool:
        return any(resource.startswith(prefix) for prefix in self.exclude_prefixes)

    def apply(self, per_pod: Mapping[str, Decimal]) -> dict[str, int]:
        """Kueue's per-pod request in integer units (§1.4 steps 1, 2 and 4)."""
        return self.apply_with_paths(per_pod, {})[0]

    def apply_with_paths(self, per_pod: Mapping[str, Decimal], paths: Mapping[str, tuple]
                         ) -> tuple[dict[str, int], dict[str, tuple]]:
        """Like ``apply``; a generated resource points at the path of the input it came from."""
        kept = {name: amount for name, amount in per_pod.items() if not self.is_excluded(name)}
        with exact_arithmetic():
            direct, generated, sources = self._transform(kept)
            for name, amount in generated.items():
                direct[name] = direct.get(name, Decimal(0)) + max(amount, Decimal(0))
        units = {name: to_kueue_units(name, amount) for name, amount in direct.items()}
        new_paths = {name: paths[name] for name in units if name in paths}
        for name, source in sources.items():
            if name not in new_paths and source in paths:
                new_paths[name] = paths[source]
        return units, new_paths

    def _transform(self, kept: dict[str, Decimal]):
        direct = dict(kept)
        generated: dict[str, Decimal] = {}
        sources: dict[str, str] = {}
        for name, amount in kept.items():
            rule = self.transformations.get(name)
            if rule is None:
                continue
            if rule.multiply_by is not None and rule.multiply_by in kept:
                amount = amount * kept[rule.multiply_by]
            for output, factor in rule.outputs.items():
                generated[output] = generated.get(output, Decimal(0)) + amount * factor
                sources.setdefault(output, name)
            if rule.strategy == STRATEGY_REPLACE:
                direct.pop(name, None)
        return direct, generated, sources


def _string_list(node: object, path: tuple, problems: list[Problem]) -> tuple[str, ...]:
    if node is None:
        return ()
    if not isinstance(node, list):
        problems.append((path, "expected a list of strings"))
        return ()
    good = []
    for index, item in enumerate(node):
        if isinstance(item, str):
            good.append(item)
        else:
            problems.append((path + (index,), "expected a string"))
    return tuple(good)


def _transformations(node: object, problems: list[Problem]) -> dict[str, Transformation]:
    base = ("resources", "transformations")
    if node is None:
        return {}
    if not isinstance(node, list):
        problems.append((base, "expected a list of transformations"))
        return {}
    rules: dict[str, Transformation] = {}
    for index, item in enumerate(node):
        rule = _transformation(item, base + (index,), problems)
        if rule is not None:
            rules.setdefault(rule.input, rule)   # Kueue keys them by input; the first one wins
    return rules


def _transformation(item: object, path: tuple, problems: list[Problem]) -> Transformation | None:
    if not isinstance(item, dict) or not isinstance(item.get("input"), str):
        problems.append((path, "a transformation needs an 'input' resource name"))
        return None
    strategy = item.get("strategy") or STRATEGY_RETAIN
    if strategy not in (STRATEGY_RETAIN, STRATEGY_REPLACE):
        problems.append((path + ("strategy",), f"strategy must be Retain or Replace, not {strategy!r}"))
        strategy = STRATEGY_RETAIN
    collected = PodRequests()
    outputs = _resource_list(item.get("outputs"), path + ("outputs",), collected, pod=False)
    problems.extend(collected.problems)
    multiply_by = item.get("multiplyBy")
    return Transformation(item["input"], strategy, outputs,
                          multiply_by if isinstance(multiply_by, str) else None)
