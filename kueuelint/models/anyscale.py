"""Typed views of Anyscale compute configs (current schema and the legacy/API spelling).

The Anyscale CLI builds its config object with ``Model(**yaml)``, so any key it does not
know is rejected at submit time; we mirror that with ``extra="forbid"`` and add a
did-you-mean. Pydantic is imported inside functions so the CLI starts without it.
``schema_problems`` is shared with the SkyPilot models.
"""

from __future__ import annotations

import difflib
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

# Legacy/API names and the current key they correspond to (for did-you-mean hints).
LEGACY_HINTS = {
    "head_node_type": "head_node", "worker_node_types": "worker_nodes",
    "min_workers": "min_nodes", "max_workers": "max_nodes", "use_spot": "market_type",
    "allowed_azs": "zones", "advanced_configurations_json": "advanced_instance_config",
    "aws_advanced_configurations_json": "advanced_instance_config",
    "gcp_advanced_configurations_json": "advanced_instance_config",
}
LEGACY_MARKERS = frozenset({"head_node_type", "worker_node_types"})


@lru_cache(maxsize=None)
def models() -> dict[str, type]:
    """Build the pydantic classes once, on first use."""
    from pydantic import BaseModel, ConfigDict, Field

    strict = ConfigDict(extra="forbid")
    head, worker = _node_models(BaseModel, strict, Field)

    class ComputeConfig(BaseModel):
        model_config = strict
        cloud: str | None = None
        cloud_resource: str | None = None
        head_node: head | None = None
        worker_nodes: list[worker] | None = None
        min_resources: dict[str, float] | None = None
        max_resources: dict[str, float] | None = None
        zones: list[str] | None = Field(default=None, min_length=1)
        enable_cross_zone_scaling: bool | None = None
        advanced_instance_config: dict[str, Any] | None = None
        flags: dict[str, Any] | None = None
        auto_select_worker_config: bool | None = None

    return {"ComputeConfig": ComputeConfig, "HeadNode": head, "WorkerGroup": worker,
            "LegacyComputeConfig": _legacy_models(BaseModel, strict, Field)}


def _part_models(BaseModel, strict) -> tuple[type, type]:
    class RequiredResources(BaseModel):
        model_config = strict
        CPU: Any = None
        memory: Any = None
        GPU: Any = None
        accelerator: str | None = None
        TPU: Any = None
        tpu_hosts: Any = None
        cpu_architecture: typing.Literal["x86_64", "arm64"] | None = None

    class CloudDeployment(BaseModel):
        model_config = strict
        provider: str | None = None
        region: str | None = None
        machine_pool: str | None = None
        id: str | None = None

    return RequiredResources, CloudDeployment


def _node_models(BaseModel, strict, Field) -> tuple[type, type]:
    from pydantic import StrictStr

    Labels = dict[str, StrictStr]  # Anyscale refuses non-string label values
    RequiredResources, CloudDeployment = _part_models(BaseModel, strict)

    class HeadNode(BaseModel):
        model_config = strict
        instance_type: str | None = None
        resources: dict[str, float] | None = None
        required_resources: RequiredResources | None = None
        labels: Labels | None = None
        required_labels: Labels | None = None
        advanced_instance_config: dict[str, Any] | None = None
        flags: dict[str, Any] | None = None
        cloud_deployment: CloudDeployment | None = None

    class WorkerGroup(HeadNode):
        name: str | None = None
        min_nodes: int = Field(default=0, ge=0)
        max_nodes: int = Field(default=10, ge=1)
        market_type: typing.Literal["ON_DEMAND", "SPOT", "PREFER_SPOT"] | None = None

    return HeadNode, WorkerGroup


def _legacy_models(BaseModel, strict, Field) -> type:
    class LegacyNode(BaseModel):
        model_config = strict
        name: str | None = None
        instance_type: str | None = None
        resources: dict[str, Any] | None = None
        flags: dict[str, Any] | None = None
        advanced_configurations_json: dict[str, Any] | None = None
        aws_advanced_configurations_json: dict[str, Any] | None = None
        gcp_advanced_configurations_json: dict[str, Any] | None = None

    class LegacyWorker(LegacyNode):
        min_workers: int | None = Field(default=None, ge=0)
        max_workers: int | None = Field(default=None, ge=0)
        use_spot: bool | None = None
        fallback_to_ondemand: bool | None = None

    class LegacyComputeConfig(BaseModel):
        model_config = strict
        cloud: str | None = None
        cloud_id: str | None = None
        region: str | None = None
        head_node_type: LegacyNode | None = None
        worker_node_types: list[LegacyWorker] | None = None
        allowed_azs: list[str] | None = None
        max_workers: int | None = None
        advanced_configurations_json: dict[str, Any] | None = None
        aws_advanced_configurations_json: dict[str, Any] | None = None
        gcp_advanced_configurations_json: dict[str, Any] | None = None
        flags: dict[str, Any] | None = None
        idle_termination_minutes: int | None = None
        maximum_uptime_minutes: int | None = None
        auto_select_worker_config: bool | None = None
        enable_cross_zone_scaling: bool | None = None

    return LegacyComputeConfig


CURRENT_MARKERS = frozenset({"head_node", "worker_nodes", "zones", "advanced_instance_config"})


def is_legacy(config: dict) -> bool:
    """Legacy spelling only when nothing current is there: a mix is judged as current, so the
    legacy keys get their new names suggested."""
    return bool(LEGACY_MARKERS & config.keys()) and not CURRENT_MARKERS & config.keys()


def validate_compute_config(config: Any) -> list[tuple[tuple, str]]:
    """``(path, message)`` for every schema problem, paths relative to the config."""
    if not isinstance(config, dict):
        return [((), "a compute config must be a mapping")]
    name = "LegacyComputeConfig" if is_legacy(config) else "ComputeConfig"
    hints = {} if name == "LegacyComputeConfig" else LEGACY_HINTS
    return schema_problems(models()[name], config, hints, "Anyscale")


def schema_problems(model: type, data: Any, hints: dict[str, str],
                    tool: str) -> list[tuple[tuple, str]]:
    """Validate ``data`` with ``model``; turn pydantic errors into short, located messages."""
    from pydantic import ValidationError

    try:
        model.model_validate(data)
    except ValidationError as exc:
        return [_problem(model, err, hints, tool) for err in exc.errors(include_url=False)]
    return []


def _problem(model: type, err: dict, hints: dict[str, str], tool: str) -> tuple[tuple, str]:
    loc = tuple(err["loc"])
    if err["type"] != "extra_forbidden":
        where = f" at {_dotted(loc)}" if loc else ""
        return loc, f"{err['msg']}{where} (got {err.get('input')!r})"
    key = str(loc[-1])
    known = known_keys(model, loc[:-1])
    suggestion = hints.get(key) if hints.get(key) in known else None
    if suggestion is None:
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        suggestion = close[0] if close else None
    where = f" in {_dotted(loc[:-1])}" if loc[:-1] else ""
    text = f"unknown key {key!r}{where}; {tool} rejects keys it does not know"
    return loc, text + (f" (did you mean {suggestion!r}?)" if suggestion else "")


def _dotted(loc: tuple) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def known_keys(model: type, loc: tuple) -> list[str]:
    """Field names of the model reached by following ``loc`` from ``model``."""
    current: Any = model
    for part in loc:
        current = _step(_unwrap(current), part)
        if current is None:
            return []
    current = _unwrap(current)
    fields = getattr(current, "model_fields", None)
    return [field.alias or name for name, field in fields.items()] if fields else []


def _step(tp: Any, part: Any) -> Any:
    fields = getattr(tp, "model_fields", None)
    if fields is not None:
        for name, field in fields.items():
            if part in (name, field.alias):
                return field.annotation
        return None
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin is list and isinstance(part, int) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def _unwrap(tp: Any) -> Any:
    """``X | None`` -> ``X`` (the first non-None member of a union)."""
    origin = typing.get_origin(tp)
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        members = [arg for arg in typing.get_args(tp) if arg is not type(None)]
        return members[0] if members else tp
    return tp


# --- node groups: what the rules and the workload derivation look at ------------------------

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
DEFAULT_MAX_NODES = 10


@dataclass
class NodeGroup:
    """The head or one worker group, with the effective Kueue queue of its pods."""

    name: str
    role: str                      # "head" or "worker"
    path: tuple                    # field path of the node inside the object
    node: dict
    min_count: int
    max_count: int
    queue: str | None = None
    queue_path: tuple | None = None
    patches: list[tuple[tuple, dict]] = field(default_factory=list)  # cluster-wide, then own


def node_groups(obj) -> list[NodeGroup]:
    """Head first, then workers in file order (a head always exists, default or not)."""
    from kueuelint.identify.shapes import compute_config_root

    root, prefix = compute_config_root(obj)
    legacy = is_legacy(root)
    head_key, workers_key = ("head_node_type", "worker_node_types") if legacy else ("head_node", "worker_nodes")
    patch_key = "advanced_configurations_json" if legacy else "advanced_instance_config"
    cluster_patch = root.get(patch_key)
    base = [(prefix + (patch_key,), cluster_patch)] if isinstance(cluster_patch, dict) else []
    head = root.get(head_key) if isinstance(root.get(head_key), dict) else {}
    groups = [_group("head", "head", prefix + (head_key,), head, 1, 1, base, patch_key)]
    workers = root.get(workers_key)
    for index, node in enumerate(workers if isinstance(workers, list) else []):
        if not isinstance(node, dict):
            continue
        low, high = ("min_workers", "max_workers") if legacy else ("min_nodes", "max_nodes")
        minimum = _count(node.get(low), 0)
        maximum = max(_count(node.get(high), DEFAULT_MAX_NODES), minimum)
        name = node.get("name") or node.get("instance_type") or f"worker-{index}"
        groups.append(_group(str(name), "worker", prefix + (workers_key, index), node,
                             minimum, maximum, base, patch_key))
    return groups


def _group(name, role, path, node, minimum, maximum, base, patch_key) -> NodeGroup:
    group = NodeGroup(name, role, path, node, minimum, maximum, patches=list(base))
    own = node.get(patch_key)
    if isinstance(own, dict):
        group.patches.append((path + (patch_key,), own))
    for patch_path, patch in group.patches:  # later (more specific) patches win
        labels = _labels(patch)
        if QUEUE_LABEL in labels and labels[QUEUE_LABEL] is not None:
            group.queue = str(labels[QUEUE_LABEL])
            group.queue_path = patch_path + ("metadata", "labels", QUEUE_LABEL)
    return group


def _labels(patch: dict) -> dict:
    meta = patch.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else {}


def _count(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default
