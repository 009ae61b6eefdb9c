"""Kind groups: the names rule files use in ``kinds:`` for a set of kinds, defined once here.

A rule file may mix groups and kinds (``kinds: [workloads, LimitRange]``); ``expand`` turns
them into kind keys, in table order, and refuses a name that is neither.
"""

from __future__ import annotations

from kueuelint.kueue.kinds import JOB_SPECS, KINDS, KUEUE_CONFIG_GROUP, KUEUE_GROUP, RETIRED_JOB_KINDS


class UnknownKind(ValueError):
    """A ``kinds:`` entry that names no kind (current or retired), group or ``group/*`` pattern
    kueuelint knows."""


def _jobs(keep) -> tuple[str, ...]:
    return tuple(spec.key for spec in JOB_SPECS if keep(spec))


GROUPS: dict[str, tuple[str, ...]] = {
    # Every kind of job Kueue can queue (through its own integration or another kind's).
    "workloads": _jobs(lambda spec: True),
    # Job kinds a Kueue integration manages as themselves (not a CronJob, whose Jobs are managed).
    "integration-kinds": _jobs(lambda spec: spec.managed_as == spec.key),
    # Job kinds Kueue cannot suspend: preempting them deletes their pods.
    "non-suspendable-workloads": _jobs(lambda spec: not spec.suspendable),
    # Job kinds whose suspend field Kueue's mutating webhook sets when it creates a queued one (a
    # CronJob's through the Jobs it makes); the others have their pods gated or are not suspendable.
    "suspended-by-kueue": _jobs(lambda spec: spec.suspend_path is not None),
    # Kinds that run a Ray cluster.
    "ray-clusters": _jobs(lambda spec: spec.group == "ray.io"),
    # Job kinds whose pod sets take names the user chose (worker groups, replicated jobs, replica types).
    "named-pod-set-kinds": _jobs(lambda spec: spec.named_pod_sets),
    # Job kinds whose count of pod sets the user chooses: a list of groups, replicated jobs or
    # components, named replica types, or the roles of a plain-pod group.
    "pod-set-count-varies": _jobs(lambda spec: spec.pod_set_list is not None or spec.named_pod_sets
                                  or spec.key == "Pod"),
    # Job kinds whose user-written pod templates become their own pod sets, where TAS annotations
    # are read (not kinds whose pods queue one by one, nor templates kueuelint synthesizes).
    "tas-annotated-kinds": _jobs(lambda spec: spec.tas and spec.user_templates and not spec.pods_queue_alone),
    # The nodes of Kueue's quota tree.
    "quota-tree": (f"{KUEUE_GROUP}/ClusterQueue", f"{KUEUE_GROUP}/Cohort"),
    # Where a Kueue Configuration is written: on its own, or inside the manager's ConfigMap.
    "kueue-configuration": (f"{KUEUE_CONFIG_GROUP}/Configuration", "ConfigMap"),
    # SkyPilot files recognised by shape.
    "skypilot": ("skypilot.co/Config", "skypilot.co/Task"),
}


def unknown_members(groups: dict[str, tuple[str, ...]], kinds=KINDS) -> dict[str, list[str]]:
    """Group name -> the members that are not kinds (empty when every group is sound)."""
    return {name: missing for name, members in groups.items()
            if (missing := [key for key in members if key not in kinds])}


def expand(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Kind keys and patterns for ``names`` (groups expanded, duplicates dropped, order kept)."""
    expanded: list[str] = []
    for name in names:
        expanded.extend(GROUPS.get(name) or (_checked(name),))
    return tuple(dict.fromkeys(expanded))


def _checked(name: str) -> str:
    if name == "*" or name in KINDS or name in RETIRED_JOB_KINDS:
        return name
    if name.endswith("/*") and any(key.startswith(name[:-1]) for key in KINDS):
        return name
    raise UnknownKind(f"unknown kind or kind group {name!r} (groups: {', '.join(GROUPS)})")
