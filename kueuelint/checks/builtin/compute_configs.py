"""Rules for Anyscale compute configs that run on Kubernetes behind Kueue (KQ800-KQ849)."""

from __future__ import annotations

import re

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.builtin import compute_common as common
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import ObjectFact, ObjectMemo


def _groups(obj: KObject):
    return ANYSCALE_GROUPS.of(obj)


def _node_groups(obj: KObject):
    from kueuelint.models.anyscale import node_groups

    return node_groups(obj)


ANYSCALE_GROUPS = ObjectMemo("anyscale-node-groups", _node_groups)


def _root(obj: KObject) -> tuple[dict, tuple]:
    from kueuelint.identify.shapes import compute_config_root

    return compute_config_root(obj)


def uses_kueue(obj: KObject, ctx: RuleContext) -> bool:
    """A queue label anywhere, or a cloud the user told us is Kueue-managed."""
    if any(group.queue for group in _groups(obj)):
        return True
    clouds = ctx.options.get("kueue-clouds") or ()
    return bool(ctx.options.get("assume-kueue")) or _cloud(obj) in clouds


def _cloud(obj: KObject):
    """The config's cloud; an inline config in a job YAML may leave it to the job."""
    cloud = _root(obj)[0].get("cloud")
    return cloud if cloud is not None else obj.get("cloud")


@rule("KQ800")
def anyscale_schema(obj: KObject, ctx: RuleContext):
    from kueuelint.models.anyscale import validate_compute_config

    root, prefix = _root(obj)
    for path, message in validate_compute_config(root):
        yield Violation(path=prefix + path, args={"detail": message})


_MIN_FLAG = re.compile(r"^min[-_]?(cpus?|gpus?|memory|resources|tpus?)$", re.IGNORECASE)
_CROSS_GROUP_TAG = "as-feature-cross-group-min-count"


@rule("KQ802")
def no_resource_minimums(obj: KObject, ctx: RuleContext):
    if not uses_kueue(obj, ctx):
        return
    root, prefix = _root(obj)
    if root.get("min_resources") is not None:
        yield _minimum(prefix + ("min_resources",), "min_resources")
    for flags_path, flags in _flag_blocks(root, prefix):
        for key in flags:
            if isinstance(key, str) and _MIN_FLAG.match(key):
                yield _minimum(flags_path + (key,), f"flags.{key}")
    for group in _groups(obj):
        for patch_path, patch in group.patches:
            for path in _tag_paths(patch, patch_path):
                yield _minimum(path, "a cross-group min-count tag")


def _minimum(path: tuple, what: str) -> Violation:
    return Violation(path=path, args={"detail": (
        f"{what} sets a resource-based minimum, which Anyscale does not support with Kueue; "
        "express the minimum as min_nodes on each worker group")})


def _flag_blocks(root: dict, prefix: tuple):
    blocks = [(prefix + ("flags",), root.get("flags"))]
    for key in ("head_node", "head_node_type"):
        if isinstance(root.get(key), dict):
            blocks.append((prefix + (key, "flags"), root[key].get("flags")))
    for key in ("worker_nodes", "worker_node_types"):
        for index, node in enumerate(root.get(key) if isinstance(root.get(key), list) else []):
            if isinstance(node, dict):
                blocks.append((prefix + (key, index, "flags"), node.get("flags")))
    return [(path, flags) for path, flags in blocks if isinstance(flags, dict)]


def _tag_paths(node, path: tuple) -> list[tuple]:
    """Every place a cross-group min-count tag appears inside an advanced config (key or value)."""
    found: list[tuple] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and key.startswith(_CROSS_GROUP_TAG):
                found.append(path + (key,))
            else:
                found.extend(_tag_paths(value, path + (key,)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_tag_paths(value, path + (index,)))
    elif isinstance(node, str) and node.startswith(_CROSS_GROUP_TAG):
        found.append(path)
    return list(dict.fromkeys(found))


@rule("KQ804")
def label_values_strings(obj: KObject, ctx: RuleContext):
    seen = set()
    for group in _groups(obj):
        for patch_path, patch in group.patches:
            for path, message in common.non_string_label_values(patch, patch_path):
                if path not in seen:
                    seen.add(path)
                    yield Violation(path=path, at_value=True, args={"detail": message})


@rule("KQ805")
def max_below_min(obj: KObject, ctx: RuleContext):
    root, prefix = _root(obj)
    for key, low, high, default in (("worker_nodes", "min_nodes", "max_nodes", 10),
                                    ("worker_node_types", "min_workers", "max_workers", None)):
        groups = root.get(key)
        for index, node in enumerate(groups if isinstance(groups, list) else []):
            if not isinstance(node, dict) or not _is_count(node.get(low)):
                continue
            maximum = node.get(high, default)
            if _is_count(maximum) and maximum < node[low]:
                where = high if high in node else low
                yield Violation(path=prefix + (key, index, where), at_value=True, args={"detail": (
                    f"{high} ({maximum}{'' if high in node else ', the default'}) is below "
                    f"{low} ({node[low]}); Anyscale rejects the config")})


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@rule("KQ806")
def placement_in_config(obj: KObject, ctx: RuleContext):
    if not uses_kueue(obj, ctx):
        return
    seen = set()
    for group in _groups(obj):
        for patch_path, patch in group.patches:
            for path, what in common.placement_paths(patch, patch_path):
                if path not in seen:
                    seen.add(path)
                    yield Violation(path=path, args={"detail": (
                        f"advanced_instance_config sets spec.{what}; with Kueue, put node labels "
                        "and taints on a ResourceFlavor (spec.nodeLabels, spec.tolerations) so "
                        "quota and placement agree")})


@rule("KQ807")
def resources_covered(obj: KObject, ctx: RuleContext):
    if not uses_kueue(obj, ctx):
        return
    workloads = COMPUTE_WORKLOADS.of(obj, ctx.inventory)
    yield from common.coverage_violations(obj, workloads, ctx.inventory)


def _compute_workloads(obj: KObject, inventory):
    from kueuelint.derive.compute_configs import derive_compute_config_workloads

    return derive_compute_config_workloads(obj, inventory)


COMPUTE_WORKLOADS = ObjectFact("compute-config-workloads", _compute_workloads)


@rule("KQ808")
def pod_framework_enabled(obj: KObject, ctx: RuleContext):
    queued = next((group for group in _groups(obj) if group.queue), None)
    if queued is not None:
        found = common.pod_framework_violation(ctx.inventory, queued.queue_path, queued.queue,
                                               "The Anyscale operator")
        yield from [found] if found else []


@rule("KQ809")
def pod_shape_unknown(obj: KObject, ctx: RuleContext):
    """Quantities that do not parse, and instance types the operator's table lacks."""
    if not uses_kueue(obj, ctx):
        return
    from kueuelint.derive.compute_configs import anyscale_pod_requests, instance_type_table

    table = instance_type_table(ctx.inventory)
    for group in _groups(obj):
        for path, message in anyscale_pod_requests(group, table)[2]:
            if table.authoritative or "instance-type table" not in message:
                yield Violation(path=path, at_value=True, args={"detail": message})


@rule("KQ810")
def queue_exists(obj: KObject, ctx: RuleContext):
    seen = set()
    for group in _groups(obj):
        if group.queue and group.queue_path not in seen:
            seen.add(group.queue_path)
            found = common.missing_queue_violation(ctx.inventory, group.queue,
                                                   ctx.options.get("namespace"), group.queue_path)
            yield from [found] if found else []
