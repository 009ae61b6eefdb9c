"""Workloads Kueue would see for Anyscale compute configs and SkyPilot tasks.

Anyscale batches every node group's minimum into one plain-pod group named
``{cluster}-min`` (head + Σ min_nodes pods); pods the autoscaler adds later carry no group
labels, so each becomes its own Workload. A SkyPilot task is one pod group of ``num_nodes``
identical pods when the queue is set through SkyPilot's queue options, otherwise (queue only
as a label) one Workload per pod.
"""

from __future__ import annotations

import math
import os
import re
from decimal import Decimal

from kueuelint.derive.model import PodSet, Workload
from kueuelint.models import anyscale as _anyscale
from kueuelint.models import skypilot as _sky


def derive_compute_config_workloads(obj, inventory) -> list[Workload]:
    if obj.key == "anyscale.com/ComputeConfig":
        return _anyscale_workloads(obj, inventory)
    if obj.key == "skypilot.co/Task":
        return [_sky_task_workload(obj, inventory)]
    return []


def cluster_name(obj) -> str:
    data = obj.data if isinstance(obj.data, dict) else {}
    name = obj.name or data.get("name")
    if isinstance(name, str) and name:
        return name
    stem = os.path.splitext(os.path.basename(obj.path or ""))[0].lstrip(".")
    return stem or "cluster"


def _anyscale_workloads(obj, inventory) -> list[Workload]:
    groups = _anyscale.node_groups(obj)
    table = instance_type_table(inventory)
    config = _resources_config(inventory)
    bound = any(group.queue for group in groups)
    name = cluster_name(obj)
    gang = [group for group in groups if group.min_count > 0]
    queue_group = next((g for g in gang if g.queue), None)
    namespace = _anyscale_namespace(inventory, queue_group.queue if queue_group else None)
    main = Workload(name=f"{name}-min", namespace=namespace, group_name=f"{name}-min",
                    queue_name=queue_group.queue if queue_group else None,
                    queue_name_path=queue_group.queue_path if queue_group else None,
                    kind=obj.key)
    workloads = [main]
    for group in groups:
        pod_set, problems = _anyscale_pod_set(group, table, config, bound)
        if group.min_count > 0:
            main.pod_sets.append(_with_count(pod_set, group.min_count))
            main.problems.extend(problems)
        extra = group.max_count - group.min_count
        if extra > 0:  # autoscaled pods carry no group labels: one Workload per pod
            workloads.append(Workload(
                name=f"{name}-{group.name}", namespace=_anyscale_namespace(inventory, group.queue),
                pod_sets=[pod_set], queue_name=group.queue, queue_name_path=group.queue_path,
                per_pod=True, replicas=extra, group_name=f"{name}-{group.name}", kind=obj.key,
                problems=list(problems)))
    main.group_total_count = sum(pod_set.count for pod_set in main.pod_sets)
    return workloads if main.pod_sets else workloads[1:]


def _with_count(pod_set: PodSet, count: int) -> PodSet:
    return PodSet(pod_set.name, count, template=pod_set.template, template_path=pod_set.template_path,
                  raw_requests=dict(pod_set.raw_requests), requests=dict(pod_set.requests),
                  request_paths=dict(pod_set.request_paths))


def _anyscale_pod_set(group, table, config, bound: bool) -> tuple[PodSet, list]:
    raw, paths, problems = anyscale_pod_requests(group, table)
    if not bound:
        problems = []  # VM clouds: the instance type is not a Kubernetes pod shape
    requests, request_paths = config.apply_with_paths(raw, paths)
    return PodSet(group.name, 1, raw_requests=raw, requests=requests,
                  request_paths=request_paths, template_path=group.path), problems


def _anyscale_namespace(inventory, queue: str | None) -> str | None:
    """The operator's namespace is not in the config: take it from the LocalQueue we can see."""
    namespace = getattr(inventory, "anyscale_namespace", None)
    if namespace or queue is None:
        return namespace
    found = find_local_queue(inventory, queue, None)
    return found.namespace if found is not None else None


def find_local_queue(inventory, name: str, namespace: str | None):
    """The LocalQueue ``name`` in ``namespace`` (any namespace when None), if exactly one.

    Several candidates mean unrelated files were linted together; guessing would blame the
    config for another setup's quotas.
    """
    matches = [lq for lq in inventory.kueue_of_kind("LocalQueue")
               if lq.name == name and (namespace is None or lq.namespace == namespace)]
    return matches[0] if len(matches) == 1 else None


def _resources_config(inventory):
    from kueuelint.accounting.requests import ResourcesConfig

    return ResourcesConfig.from_configuration(inventory.kueue_configuration())


def _sky_task_workload(obj, inventory) -> Workload:
    settings = _sky.effective(obj, inventory)
    raw, paths, problems = sky_task_requests(obj)
    requests, request_paths = _resources_config(inventory).apply_with_paths(raw, paths)
    count = _sky.num_nodes(obj)
    name = cluster_name(obj)
    queue = settings.queue_option or settings.queue_label
    gang = settings.queue_option is not None or settings.manual_group
    per_pod = not gang and count > 1   # a bare queue label: Kueue sees each pod alone
    pod_set = PodSet("ray-node", 1 if per_pod else count, raw_requests=raw, requests=requests,
                     request_paths=request_paths, template_path=("resources",))
    return Workload(name=name, namespace=settings.namespace, pod_sets=[pod_set],
                    queue_name=queue.name if queue else None,
                    queue_name_path=queue.path if queue and queue.obj is obj else None,
                    per_pod=per_pod, replicas=count if per_pod else 1, group_name=name,
                    group_total_count=count if gang else None, kind=obj.key, problems=problems)


# --- Anyscale per-pod requests ----------------------------------------------------------------

# The operator chart's default pod shapes (workloads.instanceTypes.defaults).
CHART_INSTANCE_TYPES = {
    "2CPU-8GB": {"CPU": 2, "memory": "8Gi"},
    "4CPU-16GB": {"CPU": 4, "memory": "16Gi"},
    "8CPU-32GB": {"CPU": 8, "memory": "32Gi"},
    "8CPU-32GB-1xT4": {"CPU": 8, "GPU": 1, "memory": "32Gi"},
}
# Anyscale's resource names -> Kubernetes resource names in the pod.
ANYSCALE_RESOURCE_NAMES = {"CPU": "cpu", "memory": "memory", "GPU": "nvidia.com/gpu",
                           "TPU": "google.com/tpu"}
_NOT_POD_RESOURCES = ("accelerators", "accelerator", "cpu_architecture", "tpu_hosts")
INSTANCE_TYPES_CONFIGMAP = "instance-types"


class InstanceTypes(dict):
    """Pod shapes by instance-type name; ``authoritative`` when read from the operator itself
    (then a name missing from it is an error, not a guess)."""

    authoritative = False


def instance_type_table(inventory) -> InstanceTypes:
    """The operator's ConfigMap (or a user table) when the run has one, else the chart defaults."""
    table = InstanceTypes()
    for config_map in inventory.of_kind("ConfigMap") if inventory is not None else ():
        if _is_instance_types_map(config_map):
            table.update(_table_from_text(config_map.get("data", "instance_types.yaml")))
            table.authoritative = True
    user = getattr(inventory, "anyscale_instance_types", None)
    if isinstance(user, dict):
        table.update(instance_types_from_values(user))
        table.authoritative = True
    if not table.authoritative:
        table.update(CHART_INSTANCE_TYPES)
    return table


def _is_instance_types_map(config_map) -> bool:
    return (config_map.name == INSTANCE_TYPES_CONFIGMAP
            or config_map.labels.get("anyscale.com/name") == INSTANCE_TYPES_CONFIGMAP)


def instance_types_from_values(values: dict) -> dict[str, dict]:
    """Read a Helm values tree (``workloads.instanceTypes``) or a plain name -> shape map."""
    section = values.get("workloads", {}).get("instanceTypes") if isinstance(values.get("workloads"), dict) else None
    if isinstance(section, dict):
        merged = {}
        for key in ("defaults", "additional"):
            if isinstance(section.get(key), dict):
                merged.update(section[key])
        values = merged
    return {str(name): entry.get("resources") for name, entry in values.items()
            if isinstance(entry, dict) and isinstance(entry.get("resources"), dict)}


def _table_from_text(text) -> dict[str, dict]:
    import yaml

    try:
        parsed = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return {}
    return instance_types_from_values(parsed) if isinstance(parsed, dict) else {}


_SHAPE_NAME = re.compile(r"^(\d+)CPU-(\d+)GB(?:-(\d+)x([A-Za-z0-9]+))?$")


def _shape_from_name(name: str) -> dict | None:
    """Custom types often follow the chart's naming (``16CPU-64GB-2xA10G``); read it."""
    match = _SHAPE_NAME.match(name)
    if not match:
        return None
    shape = {"CPU": int(match[1]), "memory": f"{match[2]}Gi"}
    if match[3]:
        shape["TPU" if match[4].upper().startswith("TPU") else "GPU"] = int(match[3])
    return shape


def anyscale_pod_requests(group, table) -> tuple[dict, dict, list]:
    """Per-pod requests of a node group: the shape, then ``ray`` container patches on top."""
    raw: dict[str, Decimal] = {}
    paths: dict[str, tuple] = {}
    problems: list[tuple[tuple, str]] = []
    shape, shape_path = _group_shape(group, table)
    if shape is None:
        problems.append((group.path + ("instance_type",), f"instance type "
                         f"{group.node.get('instance_type')!r} is not in the instance-type table; "
                         "its pod requests are unknown"))
    per_key = shape_path[-1:] == ("required_resources",)   # else all point at instance_type
    for key, value in (shape or {}).items():
        if key not in _NOT_POD_RESOURCES and not str(key).startswith("anyscale/"):
            _put(raw, paths, problems, ANYSCALE_RESOURCE_NAMES.get(key, key), value,
                 shape_path + (key,) if per_key else shape_path)
    for patch_path, patch in group.patches:
        for index, container in _ray_containers(patch):
            _apply_container(raw, paths, problems, container,
                             patch_path + ("spec", "containers", index, "resources"))
    return raw, paths, problems


def _group_shape(group, table) -> tuple[dict | None, tuple]:
    required = group.node.get("required_resources")
    if isinstance(required, dict):
        return required, group.path + ("required_resources",)
    instance_type = group.node.get("instance_type")
    if not isinstance(instance_type, str):
        return None, group.path
    shape = table.get(instance_type)
    if shape is None and not getattr(table, "authoritative", False):
        shape = _shape_from_name(instance_type)
    return shape, group.path + ("instance_type",)


def _ray_containers(patch: dict):
    spec = patch.get("spec")
    containers = spec.get("containers") if isinstance(spec, dict) else None
    for index, container in enumerate(containers if isinstance(containers, list) else []):
        if isinstance(container, dict) and container.get("name") in (None, "ray"):
            yield index, container


def _apply_container(raw, paths, problems, container: dict, path: tuple) -> None:
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return
    limits = resources.get("limits") if isinstance(resources.get("limits"), dict) else {}
    requests = resources.get("requests") if isinstance(resources.get("requests"), dict) else {}
    for name, value in limits.items():   # a limit with no request is the request
        if name not in requests:
            _put(raw, paths, problems, name, value, path + ("limits", name))
    for name, value in requests.items():
        _put(raw, paths, problems, name, value, path + ("requests", name))


def _put(raw, paths, problems, resource: str, value, path: tuple) -> None:
    from kueuelint.accounting.quantity import QuantityError, parse_quantity

    try:
        raw[resource] = parse_quantity(value)
    except QuantityError as exc:
        problems.append((path, f"{resource}: {exc}"))
        return
    paths[resource] = path


# --- SkyPilot per-pod requests ----------------------------------------------------------------

DEFAULT_CPUS = Decimal(2)            # SkyPilot's Kubernetes default without accelerators
CPUS_PER_ACCELERATOR = Decimal(4)
GB_PER_CPU = Decimal(1)
GB_PER_CPU_WITH_ACCELERATOR = Decimal(4)
_AMD_PREFIXES = ("MI1", "MI2", "MI3")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?B?)?\s*\+?\s*$", re.IGNORECASE)
_SIZE_FACTORS = {"": Decimal(1), "K": Decimal("1e-6"), "M": Decimal("1e-3"), "G": Decimal(1),
                 "T": Decimal(1000)}


def sky_task_requests(obj) -> tuple[dict, dict, list]:
    """What each SkyPilot pod asks for: ``cpu``, ``memory`` (in decimal G, as SkyPilot writes
    it), the accelerator resource and ``ephemeral-storage``, with SkyPilot's defaults."""
    data = obj.data if isinstance(obj.data, dict) else {}
    resources, path = _sky.resources_of(data)
    problems: list[tuple[tuple, str]] = []
    accel, count = accelerator_request(resources.get("accelerators"))
    cpus = _number(resources.get("cpus"), path + ("cpus",), problems)
    if cpus is None:
        cpus = CPUS_PER_ACCELERATOR * count if accel else DEFAULT_CPUS
    memory = _memory_gb(resources.get("memory"), cpus, bool(accel), path + ("memory",), problems)
    raw = {"cpu": cpus, "memory": memory * Decimal(10) ** 9}
    paths = {"cpu": path + ("cpus",), "memory": path + ("memory",)}
    if accel:
        raw[accel], paths[accel] = Decimal(count), path + ("accelerators",)
    storage = resources.get("ephemeral_storage")
    if storage is not None:
        amount = _size_gb(storage, path + ("ephemeral_storage",), problems)
        if amount is not None:
            raw["ephemeral-storage"] = amount * Decimal(10) ** 9
            paths["ephemeral-storage"] = path + ("ephemeral_storage",)
    return raw, paths, problems


def accelerator_request(value) -> tuple[str | None, int]:
    """``T4:1`` / ``{H100: 8}`` / a candidate list -> (Kubernetes resource name, count)."""
    if isinstance(value, (list, tuple, set)):
        value = next(iter(value), None)
    if isinstance(value, dict):
        value = next(iter(value.items()), None)
        name, count = (value if value else (None, 1))
    elif isinstance(value, str):
        name, _, count_text = value.partition(":")
        count = count_text or 1
    else:
        return None, 0
    try:
        amount = max(1, math.ceil(float(count if count is not None else 1)))
    except (TypeError, ValueError):
        amount = 1
    return accelerator_resource(str(name).strip()), amount


def accelerator_resource(name: str) -> str:
    upper = name.upper()
    if upper.startswith("TPU"):
        return "google.com/tpu"
    if upper.startswith(_AMD_PREFIXES):
        return "amd.com/gpu"
    return "nvidia.com/gpu"


def _number(value, path: tuple, problems: list) -> Decimal | None:
    if value is None:
        return None
    text = str(value).strip().rstrip("+").strip()
    try:
        return Decimal(text)
    except ArithmeticError:
        problems.append((path, f"cannot read {value!r} as a number of CPUs"))
        return None


def _memory_gb(value, cpus: Decimal, accel: bool, path: tuple, problems: list) -> Decimal:
    if isinstance(value, str) and value.strip().lower().rstrip("+").endswith("x"):
        factor = _number(value.strip().rstrip("+")[:-1], path, problems)
        return cpus * factor if factor is not None else cpus
    if value is not None:
        amount = _size_gb(value, path, problems)
        if amount is not None:
            return amount
    return cpus * (GB_PER_CPU_WITH_ACCELERATOR if accel else GB_PER_CPU)


def _size_gb(value, path: tuple, problems: list) -> Decimal | None:
    match = _SIZE.match(str(value))
    if not match or isinstance(value, bool):
        problems.append((path, f"cannot read {value!r} as a size in GB"))
        return None
    unit = (match[2] or "").upper().rstrip("B")
    return Decimal(match[1]) * _SIZE_FACTORS[unit]
