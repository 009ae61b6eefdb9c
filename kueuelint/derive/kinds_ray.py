"""Pod sets of KubeRay's RayCluster, RayService and RayJob."""

from __future__ import annotations

from kueuelint.derive.derivation import _Derivation, _Draft, _pod_set_name, _sized, _with_container
from kueuelint.derive.model import Workload

RAY_AUTOSCALER_RESOURCES = _sized("500m", "512Mi")
RAY_SUBMITTER_RESOURCES = _sized("500m", "200Mi", "1", "1Gi")
RAY_SUBMISSION_MODE_DEFAULT = "K8sJobMode"


def _ray_cluster_drafts(d: _Derivation, base: tuple) -> list[_Draft]:
    head = d.draft("head", 1, base + ("headGroupSpec", "template"))
    if d.subject.get(*base, "enableInTreeAutoscaling") is True:
        _add_autoscaler(d, head, base)
    drafts = [head]
    for index, group in enumerate(d.sequence(base + ("workerGroupSpecs",))):
        group_path = base + ("workerGroupSpecs", index)
        if not isinstance(group, dict):
            d.problems.append((group_path, "worker group is not a mapping"))
            continue
        drafts.append(_ray_worker_draft(d, group, group_path, index))
    return drafts


def _ray_worker_draft(d: _Derivation, group: dict, group_path: tuple, index: int) -> _Draft:
    name = group.get("groupName")
    if not isinstance(name, str) or not name:
        d.problems.append((group_path + ("groupName",), "worker group needs a groupName"))
        name = f"worker-{index}"
    # Kueue takes replicas as written (nil -> 1) and does not clamp to min/maxReplicas.
    replicas = d.integer(group_path + ("replicas",), 1)
    hosts = d.integer(group_path + ("numOfHosts",), 1)
    count = replicas * hosts if hosts > 1 else replicas
    return d.draft(_pod_set_name(name), count, group_path + ("template",))


def _add_autoscaler(d: _Derivation, head: _Draft, base: tuple) -> None:
    options_path = base + ("autoscalerOptions", "resources")
    resources = d.subject.get(*options_path)
    if isinstance(resources, dict):
        _with_container(head, {"name": "autoscaler", "resources": resources}, options_path,
                        keep_rest=True)
    else:
        _with_container(head, {"name": "autoscaler", "resources": RAY_AUTOSCALER_RESOURCES},
                        base + ("enableInTreeAutoscaling",), keep_rest=False,
                        origin="default:ray-autoscaler")


def _derive_raycluster(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    return [d.workload(_ray_cluster_drafts(d, ("spec",)))]


def _derive_rayservice(d: _Derivation) -> list[Workload]:
    d.mapping(("spec", "rayClusterConfig"), required=True)
    return [d.workload(_ray_cluster_drafts(d, ("spec", "rayClusterConfig")))]


def _derive_rayjob(d: _Derivation) -> list[Workload]:
    base = ("spec", "rayClusterSpec")
    if d.subject.get(*base) is None:
        if d.subject.get("spec", "clusterSelector") is not None:
            return []   # runs on an existing cluster: Kueue does not manage such a RayJob
        d.problems.append((base, "a RayJob needs rayClusterSpec (or clusterSelector)"))
        return [d.workload([])]
    drafts = _ray_cluster_drafts(d, base)
    mode = d.subject.get("spec", "submissionMode", default=RAY_SUBMISSION_MODE_DEFAULT)
    if mode == "K8sJobMode":
        drafts.append(_ray_submitter_draft(d))
    elif mode == "SidecarMode":
        _with_container(drafts[0], {"name": "ray-job-submitter", "resources": RAY_SUBMITTER_RESOURCES},
                        ("spec", "submissionMode"), keep_rest=False, origin="default:ray-job-submitter")
    return [d.workload(drafts)]


def _ray_submitter_draft(d: _Derivation) -> _Draft:
    path = ("spec", "submitterPodTemplate")
    if d.subject.get(*path) is not None:
        return d.draft("submitter", 1, path)
    draft = _Draft("submitter", 1, {"spec": {"containers": []}}, path, path + ("spec",))
    _with_container(draft, {"name": "ray-job-submitter", "resources": RAY_SUBMITTER_RESOURCES},
                    path, keep_rest=False, origin="default:ray-job-submitter")
    return draft
