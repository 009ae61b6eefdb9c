"""Helpers shared by the Anyscale and SkyPilot rules: queue targets and quota coverage."""

from __future__ import annotations

from kueuelint.checks.api import Violation, incomplete_note, unless_complete


def target_cluster_queue(inventory, queue: str | None, namespace: str | None):
    """The ClusterQueue behind LocalQueue ``queue`` (None when the run does not show it)."""
    from kueuelint.derive.compute_configs import find_local_queue

    if not queue:
        return None
    local_queue = find_local_queue(inventory, queue, namespace)
    name = local_queue.spec.get("clusterQueue") if local_queue is not None else None
    matches = [cq for cq in inventory.kueue_of_kind("ClusterQueue") if cq.name == name]
    return matches[0] if len(matches) == 1 else None   # ambiguous: unrelated files linted together


def covered_resources(cluster_queue) -> set[str]:
    covered: set[str] = set()
    groups = cluster_queue.spec.get("resourceGroups")
    for group in groups if isinstance(groups, list) else []:
        names = group.get("coveredResources") if isinstance(group, dict) else None
        covered.update(name for name in names or () if isinstance(name, str))
    return covered


def coverage_violations(obj, workloads, inventory) -> list[Violation]:
    """One violation per requested resource the target ClusterQueue does not cover."""
    found: dict[tuple, Violation] = {}
    for workload in workloads:
        cluster_queue = target_cluster_queue(inventory, workload.queue_name, workload.namespace)
        if cluster_queue is None:
            continue
        covered = covered_resources(cluster_queue)
        for pod_set in workload.pod_sets:
            for resource, amount in sorted(pod_set.requests.items()):
                if amount <= 0 or resource in covered:
                    continue
                path = pod_set.request_paths.get(resource, pod_set.template_path)
                found.setdefault((resource, path), Violation(path=path, args={"detail": (
                    f"pods of {pod_set.name!r} request {resource}, which ClusterQueue "
                    f"{cluster_queue.name!r} (via LocalQueue {workload.queue_name!r}) does not "
                    f"cover ({', '.join(sorted(covered)) or 'nothing'}); Kueue never admits "
                    "the workload")}))
    return list(found.values())


def kueue_frameworks(inventory) -> list[str] | None:
    """Frameworks enabled in the Kueue Configuration of the run (None when there is none)."""
    config = inventory.kueue_configuration()
    if config is None:
        return None
    integrations = config.get("integrations")
    frameworks = integrations.get("frameworks") if isinstance(integrations, dict) else None
    return [name for name in frameworks if isinstance(name, str)] if isinstance(frameworks, list) else []


def placement_paths(pod_patch: dict, prefix: tuple, keys=("nodeSelector", "affinity", "tolerations")):
    """Paths of placement fields a pod patch sets under ``spec`` (node affinity only)."""
    spec = pod_patch.get("spec") if isinstance(pod_patch, dict) else None
    if not isinstance(spec, dict):
        return []
    found = []
    for key in keys:
        value = spec.get(key)
        if key == "affinity":
            if isinstance(value, dict) and value.get("nodeAffinity"):
                found.append((prefix + ("spec", "affinity", "nodeAffinity"), "affinity.nodeAffinity"))
        elif value:
            found.append((prefix + ("spec", key), key))
    return found


def non_string_label_values(pod_patch: dict, prefix: tuple) -> list[tuple[tuple, str]]:
    """Labels/annotations whose value YAML read as a number, boolean or null."""
    meta = pod_patch.get("metadata") if isinstance(pod_patch, dict) else None
    found = []
    for field in ("labels", "annotations"):
        values = meta.get(field) if isinstance(meta, dict) else None
        for key, value in (values.items() if isinstance(values, dict) else ()):
            if not isinstance(value, str):
                found.append((prefix + ("metadata", field, key),
                              f"{field[:-1]} {key!r} has the {type(value).__name__} value "
                              f"{value!r}; Kubernetes wants a string, so quote it"))
    return found


def pod_framework_violation(inventory, setting_path: tuple, queue: str, tool: str) -> Violation | None:
    """A finding when a Kueue Configuration is in the run and the ``pod`` framework is off."""
    frameworks = kueue_frameworks(inventory)
    if frameworks is None or "pod" in frameworks:
        return None
    return Violation(path=setting_path, args={"detail": (
        f"{tool} submits plain pods (queue {queue!r}), but the Kueue Configuration enables "
        f"only {', '.join(frameworks) or 'the default frameworks'}; add \"pod\" to "
        "integrations.frameworks or Kueue ignores these pods")})


def missing_queue_violation(inventory, queue: str, namespace: str | None, path: tuple) -> Violation | None:
    """A finding when the run shows LocalQueues but none named ``queue`` (in ``namespace``)."""
    if not inventory.has_kind("kueue.x-k8s.io/LocalQueue"):
        return None
    names = [lq for lq in inventory.kueue_of_kind("LocalQueue") if lq.name == queue]
    if any(namespace is None or lq.namespace == namespace for lq in names):
        return None
    where = f" in namespace {namespace!r}" if namespace else ""
    elsewhere = sorted({lq.namespace for lq in names if lq.namespace})
    hint = f" (there is one in {', '.join(elsewhere)})" if elsewhere else ""
    return Violation(path=path, severity=unless_complete(inventory), args={"detail": (
        f"LocalQueue {queue!r} does not exist{where}{hint}; the pods would stay pending"
        + incomplete_note(inventory, "LocalQueues"))})
