"""Typed views of SkyPilot's config file (``kubernetes:`` part) and task YAML (skypilot 0.14).

Only the parts that decide where pods are queued and what they request are modelled in
detail; other clouds' sections are accepted as opaque values. Unknown keys inside the
modelled parts are findings because SkyPilot's own schema check rejects them.
"""

from __future__ import annotations

import os
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kueuelint.models.anyscale import schema_problems

# Old spellings a user may still write, and the key that replaced them.
SKY_HINTS = {
    "local_queue": "kueue", "queue_name": "local_queue_name", "timeout": "provision_timeout",
    "label": "labels", "gpus": "accelerators", "gpu": "accelerators", "nodes": "num_nodes",
}
OTHER_SECTIONS = (
    "ssh", "aws", "gcp", "azure", "oci", "nebius", "lambda", "runpod", "vast", "slurm", "ibm",
    "docker", "nvidia_gpus", "jobs", "serve", "allowed_clouds", "active_workspace",
    "admin_policy", "api_server", "provision", "logs", "daemons", "db", "rbac", "users",
    "usage", "data", "kubernetes_ssh", "allowed_infra", "cloudflare",
)


def _section_fields(BaseModel, strict, StrictStr) -> dict[str, Any]:
    """Fields shared by the global, per-context and task-override ``kubernetes`` sections."""

    class Kueue(BaseModel):
        model_config = strict
        local_queue_name: str | None = None
        admission_timeout: int | None = None

    class Quota(BaseModel):
        model_config = strict
        queue: str | None = None

    class CustomMetadata(BaseModel):
        model_config = strict
        labels: dict[str, StrictStr] | None = None
        annotations: dict[str, StrictStr] | None = None

    class Dws(BaseModel):
        model_config = strict
        enabled: bool | None = None
        max_run_duration: Any = None

    return {"kueue": Kueue | None, "quota": Quota | None, "custom_metadata": CustomMetadata | None,
            "dws": Dws | None, "pod_config": dict[str, Any] | None, "provision_timeout": int | None,
            "remote_identity": Any, "enable_docker": bool | None, "set_pod_resource_limits": Any}


_GLOBAL_ONLY = ("allowed_contexts", "namespace", "autoscaler", "ports", "post_provision_runcmd",
                "high_availability", "allowed_nodes", "rdma", "auto_mounts", "apt_mirrors",
                "pricing", "max_inline_command_length", "networking", "networking_mode")


@lru_cache(maxsize=None)
def models() -> dict[str, type]:
    from pydantic import BaseModel, ConfigDict, StrictStr, create_model

    strict = ConfigDict(extra="forbid")
    shared = _section_fields(BaseModel, strict, StrictStr)
    spec = {name: (tp, None) for name, tp in shared.items()}
    extra = {name: (Any, None) for name in _GLOBAL_ONLY}
    context = create_model("ContextConfig", __config__=strict, **spec, **extra)
    kubernetes = create_model("KubernetesConfig", __config__=strict, **spec, **extra,
                              context_configs=(dict[str, context] | None, None))
    workspace_k8s = create_model(
        "WorkspaceKubernetes", __config__=strict, allowed_contexts=(Any, None),
        disabled=(bool | None, None), namespace=(str | None, None),
        kueue=(shared["kueue"], None), quota=(shared["quota"], None),
        context_configs=(dict[str, context] | None, None))
    workspace = create_model("Workspace", __config__=ConfigDict(extra="allow"),
                             kubernetes=(workspace_k8s | None, None))
    others = {name: (Any, None) for name in OTHER_SECTIONS}
    config = create_model("SkyConfig", __config__=strict, **others,
                          kubernetes=(kubernetes | None, None),
                          workspaces=(dict[str, workspace] | None, None))
    task_k8s = create_model("TaskKubernetes", __config__=strict, **spec)
    return {"Config": config, "Task": _task_model(BaseModel, strict, StrictStr, task_k8s)}


_RESOURCE_KEYS = ("cloud", "region", "zone", "infra", "cpus", "memory", "accelerators",
                  "accelerator_args", "instance_type", "use_spot", "job_recovery",
                  "spot_recovery", "disk_size", "disk_tier", "network_tier", "ports", "image_id",
                  "ephemeral_storage", "priority_class", "autostop", "volumes",
                  "_docker_login_config", "_is_image_managed", "_requires_fuse",
                  "_cluster_config_overrides", "_no_missing_accel_warnings")


def _task_model(BaseModel, strict, StrictStr, task_k8s) -> type:
    from pydantic import ConfigDict, Field, create_model

    plain = {name: (Any, None) for name in _RESOURCE_KEYS}
    labels = (dict[str, StrictStr] | None, None)
    candidate = create_model("ResourceCandidate", __config__=strict, **plain, labels=labels)
    resources = create_model("Resources", __config__=strict, **plain, labels=labels,
                             any_of=(list[candidate] | None, None),
                             ordered=(list[candidate] | None, None))
    others = {name: (Any, None) for name in OTHER_SECTIONS}
    task_config = create_model("TaskConfig", __config__=strict, **others, hooks=(Any, None),
                               kubernetes=(task_k8s | None, None))
    task_keys = ("name", "workdir", "envs", "secrets", "volumes", "file_mounts", "setup", "run",
                 "service", "event_callback", "inputs", "outputs", "estimated_runtime",
                 "_user_specified_yaml")
    return create_model("Task", __config__=ConfigDict(extra="forbid"),
                        **{name: (Any, None) for name in task_keys},
                        num_nodes=(typing.Annotated[int, Field(ge=1)] | None, None),
                        resources=(resources | None, None),
                        config=(task_config | None, None))


def validate_sky_config(data: Any) -> list[tuple[tuple, str]]:
    if not isinstance(data, dict):
        return [((), "a SkyPilot config must be a mapping")]
    return schema_problems(models()["Config"], data, SKY_HINTS, "SkyPilot")


def validate_sky_task(data: Any) -> list[tuple[tuple, str]]:
    if not isinstance(data, dict):
        return [((), "a SkyPilot task must be a mapping")]
    return schema_problems(models()["Task"], data, SKY_HINTS, "SkyPilot")


# --- where a SkyPilot pod gets its queue, timeout and namespace ------------------------------

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
DEFAULT_PROVISION_TIMEOUT = 10   # seconds, SkyPilot's documented Kubernetes default


@dataclass
class Setting:
    """One value set in one object, and where (for pointing a finding at it)."""

    value: Any
    obj: Any
    path: tuple
    how: str                        # e.g. "kubernetes.kueue.local_queue_name"

    @property
    def name(self) -> str:
        return str(self.value)


@dataclass
class Scope:
    """One ``kubernetes`` section: global, a workspace, a context, or a task's ``config:``."""

    label: str
    path: tuple
    section: dict
    level: int = 0                  # 0 global/task, 1 workspace, 2 context, 3 workspace context
    quota: Setting | None = None
    kueue: Setting | None = None
    queue_label: Setting | None = None
    timeout: Setting | None = None
    namespace: Setting | None = None
    manual_group: bool = False

    @property
    def queue_option(self) -> Setting | None:
        return self.quota or self.kueue   # quota.queue wins at the same scope


def read_scope(obj, section: dict, path: tuple, label: str, level: int = 0) -> Scope:
    scope = Scope(label, path, section, level)
    for key, sub in (("kueue", "local_queue_name"), ("quota", "queue")):
        block = section.get(key)
        if isinstance(block, dict) and block.get(sub) is not None:
            setattr(scope, key, Setting(block[sub], obj, path + (key, sub), f"kubernetes.{key}.{sub}"))
    labels = _pod_labels(section)
    if labels.get(QUEUE_LABEL) is not None:
        scope.queue_label = Setting(labels[QUEUE_LABEL], obj,
                                    path + ("pod_config", "metadata", "labels", QUEUE_LABEL),
                                    "kubernetes.pod_config.metadata.labels")
    scope.manual_group = GROUP_LABEL in labels
    for key in ("provision_timeout", "namespace"):
        if section.get(key) is not None:
            setattr(scope, "timeout" if key == "provision_timeout" else key,
                    Setting(section[key], obj, path + (key,), f"kubernetes.{key}"))
    return scope


def _pod_labels(section: dict) -> dict:
    pod = section.get("pod_config")
    meta = pod.get("metadata") if isinstance(pod, dict) else None
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else {}


def config_scopes(obj, context: str | None = None, workspace: str | None = None,
                  everything: bool = False) -> list[Scope]:
    """The ``kubernetes`` sections of a config object, lowest precedence first.

    With ``everything`` every workspace and context is listed (for checking the file itself);
    otherwise only those that apply to ``context`` and ``workspace``.
    """
    data = obj.data if isinstance(obj.data, dict) else {}
    bases = [(data.get("kubernetes"), ("kubernetes",), "global", 0)]
    for ws_name, ws in _mapping(data.get("workspaces")).items():
        if everything or ws_name == workspace:
            bases.append((_mapping(ws).get("kubernetes"), ("workspaces", ws_name, "kubernetes"),
                          f"workspace {ws_name}", 1))
    scopes: list[Scope] = []
    for section, path, label, level in bases:
        if not isinstance(section, dict):
            continue
        scopes.append(read_scope(obj, section, path, label, level))
        for ctx_name, ctx in _mapping(section.get("context_configs")).items():
            if isinstance(ctx, dict) and (everything or ctx_name == context):
                scopes.append(read_scope(obj, ctx, path + ("context_configs", ctx_name),
                                         f"{label}, context {ctx_name}", level + 2))
    return scopes


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


@dataclass
class Effective:
    """What applies to a task after merging config files and the task's own ``config:``."""

    queue_option: Setting | None = None
    queue_label: Setting | None = None
    timeout: Setting | None = None
    namespace: str = "default"
    manual_group: bool = False
    sources: list[Any] = field(default_factory=list)   # config objects that took part


def effective(task, inventory) -> Effective:
    configs = sorted(inventory.of_kind("skypilot.co/Config"), key=_config_rank) if inventory else []
    data = task.data if isinstance(task.data, dict) else {}
    task_config = _mapping(data.get("config"))
    workspace = task_config.get("active_workspace") or next(
        (c.data.get("active_workspace") for c in reversed(configs)
         if isinstance(c.data, dict) and c.data.get("active_workspace")), None)
    context = task_context(data)
    result = Effective(sources=configs)
    scopes = [s for c in configs for s in config_scopes(c, context, workspace)]
    if isinstance(task_config.get("kubernetes"), dict):
        scopes.append(read_scope(task, task_config["kubernetes"], ("config", "kubernetes"), "task"))
    _merge(result, sorted(scopes, key=lambda scope: scope.level))
    result.queue_label = task_label_queue(task) or result.queue_label
    return result


def _merge(result: Effective, scopes: list[Scope]) -> None:
    """Files merge key by key (later files win); then the most specific scope level wins."""
    quota: dict[int, Setting] = {}
    kueue: dict[int, Setting] = {}
    for scope in scopes:
        quota[scope.level] = scope.quota or quota.get(scope.level)
        kueue[scope.level] = scope.kueue or kueue.get(scope.level)
        result.queue_label = scope.queue_label or result.queue_label
        result.timeout = scope.timeout or result.timeout
        result.manual_group = result.manual_group or scope.manual_group
        if scope.namespace is not None and isinstance(scope.namespace.value, str):
            result.namespace = scope.namespace.value
    for level in sorted(set(quota) | set(kueue), reverse=True):
        if quota.get(level) or kueue.get(level):
            result.queue_option = quota.get(level) or kueue.get(level)
            return


def _config_rank(obj) -> tuple:
    """User-level config first, then project ``.sky.yaml`` (which overrides it)."""
    base = os.path.basename(obj.path or "")
    return (1 if base.startswith(".sky.") or base.endswith(".sky.yaml") else 0, obj.path or "")


def task_context(data: dict) -> str | None:
    resources = resources_of(data)[0]
    infra = resources.get("infra")
    if isinstance(infra, str) and "/" in infra:
        cloud, _, rest = infra.partition("/")
        if cloud.lower() in ("k8s", "kubernetes") and rest:
            return rest
    if str(resources.get("cloud", "")).lower() == "kubernetes" and isinstance(resources.get("region"), str):
        return resources["region"]
    return None


def resources_of(data: dict) -> tuple[dict, tuple]:
    """The resources a task runs with: the first ``ordered``/``any_of`` candidate over the base."""
    base = _mapping(data.get("resources"))
    for key in ("ordered", "any_of"):
        candidates = base.get(key)
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
            merged = {k: v for k, v in base.items() if k not in ("ordered", "any_of")}
            merged.update(candidates[0])
            return merged, ("resources", key, 0)
    return base, ("resources",)


def task_label_queue(task) -> Setting | None:
    data = task.data if isinstance(task.data, dict) else {}
    resources, path = resources_of(data)
    labels = _mapping(resources.get("labels"))
    if labels.get(QUEUE_LABEL) is None:
        return None
    own = _mapping(_candidate(data, path).get("labels"))
    where = path if QUEUE_LABEL in own else ("resources",)
    return Setting(labels[QUEUE_LABEL], task, where + ("labels", QUEUE_LABEL), "resources.labels")


def _candidate(data: dict, path: tuple) -> dict:
    node: Any = data
    for part in path:
        node = node[part] if isinstance(node, (dict, list)) else {}
    return _mapping(node)


def num_nodes(task) -> int:
    value = task.data.get("num_nodes") if isinstance(task.data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 1
