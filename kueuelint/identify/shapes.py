"""Recognise compute-config files that carry no ``apiVersion``/``kind``.

Anyscale compute configs and SkyPilot config/task YAML are plain dictionaries, so we decide
by (in order) the type the user forced, the file name, and finally the keys. Shape matching
is deliberately strict: a false match would flood an unrelated YAML file with schema findings.
"""

from __future__ import annotations

import fnmatch
import os

ANYSCALE = "anyscale.com/ComputeConfig"
SKY_CONFIG = "skypilot.co/Config"
SKY_TASK = "skypilot.co/Task"

FORCED_TYPES = {
    "anyscale-compute-config": ANYSCALE,
    "skypilot-config": SKY_CONFIG,
    "skypilot-task": SKY_TASK,
}

# Keys only an Anyscale compute config (current or legacy spelling) has at the top level.
ANYSCALE_MARKERS = frozenset({
    "head_node", "worker_nodes", "auto_select_worker_config", "head_node_type",
    "worker_node_types", "enable_cross_zone_scaling",
})
ANYSCALE_TOP = ANYSCALE_MARKERS | frozenset({
    "cloud", "cloud_id", "cloud_resource", "min_resources", "max_resources", "zones",
    "advanced_instance_config", "flags", "name", "region", "allowed_azs",
    "advanced_configurations_json", "aws_advanced_configurations_json",
    "gcp_advanced_configurations_json", "idle_termination_minutes", "maximum_uptime_minutes",
})
# Anyscale job/service/workspace YAML that may hold an inline compute config.
ANYSCALE_JOB_KEYS = frozenset({
    "entrypoint", "applications", "image_uri", "containerfile", "working_dir", "requirements",
    "env_vars", "excludes", "max_retries", "timeout_s", "py_modules", "cloud", "project",
    "name", "ray_version", "query_auth_token_enabled", "job_queue_config", "http_options",
    "grpc_options", "logging_config", "tags", "version", "ray_gcs_external_storage_config",
    "compute_config", "py_executable", "cloud_resource",
})

SKY_TASK_MARKERS = frozenset({"run", "setup", "num_nodes", "file_mounts", "workdir"})
SKY_TASK_KEYS = SKY_TASK_MARKERS | frozenset({
    "name", "resources", "envs", "secrets", "volumes", "config", "service", "event_callback",
    "inputs", "outputs", "estimated_runtime", "_user_specified_yaml",
})
SKY_CONFIG_TOP = frozenset({
    "kubernetes", "ssh", "aws", "gcp", "azure", "oci", "nebius", "lambda", "runpod", "vast",
    "slurm", "ibm", "docker", "nvidia_gpus", "jobs", "serve", "allowed_clouds", "workspaces",
    "active_workspace", "admin_policy", "api_server", "provision", "logs", "daemons", "db",
    "rbac", "users", "usage", "data", "kubernetes_ssh", "allowed_infra", "cloudflare",
})
SKY_K8S_MARKERS = frozenset({
    "pod_config", "kueue", "quota", "context_configs", "provision_timeout", "allowed_contexts",
    "custom_metadata", "autoscaler", "remote_identity", "networking_mode", "ports", "dws",
    "high_availability", "set_pod_resource_limits", "post_provision_runcmd",
})


def detect_shape(doc) -> str | None:
    """The pseudo kind key of ``doc`` (see ``identify.kinds``), or None for other YAML."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    forced = getattr(doc.source, "file_type", None)
    if forced in FORCED_TYPES:
        return FORCED_TYPES[forced]
    if forced == "manifest":   # the user said: plain Kubernetes objects only
        return None
    by_name = _by_file_name(getattr(doc.source, "path", "") or "", data)
    return by_name or _by_keys(data)


def _by_file_name(path: str, data: dict) -> str | None:
    base = os.path.basename(path).lower()
    if fnmatch.fnmatch(base, "compute_config*.y*ml") or fnmatch.fnmatch(base, "compute-config*.y*ml"):
        return ANYSCALE
    if base in (".sky.yaml", ".sky.yml"):   # the project config; ``train.sky.yaml`` may be a task
        return SKY_CONFIG
    if base in ("config.yaml", "config.yml") and isinstance(data.get("kubernetes"), dict):
        return SKY_CONFIG
    return None


def _by_keys(data: dict) -> str | None:
    keys = {key for key in data if isinstance(key, str)}
    if keys & ANYSCALE_MARKERS and _mostly_known(keys, ANYSCALE_TOP):
        return ANYSCALE
    if isinstance(data.get("compute_config"), dict) and keys <= ANYSCALE_JOB_KEYS:
        return ANYSCALE
    if _looks_like_sky_task(data, keys):
        return SKY_TASK
    if _looks_like_sky_config(data, keys):
        return SKY_CONFIG
    return None


def _mostly_known(keys: set[str], known: frozenset[str]) -> bool:
    """Tolerate a typo or two (those become schema findings) but not a foreign format."""
    unknown = len(keys - known)
    return unknown <= max(1, len(keys) // 3)


def _looks_like_sky_task(data: dict, keys: set[str]) -> bool:
    if not keys & SKY_TASK_MARKERS or not _mostly_known(keys, SKY_TASK_KEYS):
        return False
    # A bare ``run:`` is common in CI formats; ask for resources or a second task key.
    return isinstance(data.get("resources"), (dict, list)) or len(keys & SKY_TASK_KEYS) >= 2


def _looks_like_sky_config(data: dict, keys: set[str]) -> bool:
    section = data.get("kubernetes")
    if not isinstance(section, dict) and isinstance(data.get("workspaces"), dict):
        section = {}
        for workspace in data["workspaces"].values():
            if isinstance(workspace, dict) and isinstance(workspace.get("kubernetes"), dict):
                section.update(workspace["kubernetes"])
    if not isinstance(section, dict) or not keys <= SKY_CONFIG_TOP:
        return False
    return bool(set(section) & SKY_K8S_MARKERS) or "namespace" in section


def compute_config_root(obj) -> tuple[dict, tuple]:
    """The compute config dict of ``obj`` and its field path (inline in a job YAML or the whole)."""
    data = obj.data if isinstance(obj.data, dict) else {}
    inline = data.get("compute_config")
    if isinstance(inline, dict) and not data.keys() & ANYSCALE_MARKERS:
        return inline, ("compute_config",)
    return data, ()
