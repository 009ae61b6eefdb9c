"""Pod sets of training jobs: Kubeflow replica jobs, JobSet, TrainJob and LeaderWorkerSet."""

from __future__ import annotations

from dataclasses import replace

from kueuelint.derive.derivation import (
    DEFAULT_POD_SET,
    _Derivation,
    _dict,
    _Draft,
    _pod_set_name,
    _Rewrite,
    _Subject,
)
from kueuelint.derive.kinds_batch import _job_pod_count
from kueuelint.derive.model import Workload
from kueuelint.identify.kinds import kind_key

# An LWS with a million replicas must not make a million Workload objects.
MAX_EXPANDED_WORKLOADS = 1000


# --- Kubeflow training jobs (v1) and MPIJob ------------------------------------------------------

_REPLICA_SPECS = {
    "kubeflow.org/PyTorchJob": ("pytorchReplicaSpecs", ("Master", "Worker")),
    "kubeflow.org/TFJob": ("tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "kubeflow.org/XGBoostJob": ("xgbReplicaSpecs", ("Master", "Worker")),
    "kubeflow.org/PaddleJob": ("paddleReplicaSpecs", ("Master", "Worker")),
    "kubeflow.org/JAXJob": ("jaxReplicaSpecs", ("Worker",)),
    "kubeflow.org/MPIJob": ("mpiReplicaSpecs", ("Launcher", "Worker")),
}


def _derive_replica_job(d: _Derivation) -> list[Workload]:
    key, known_order = _REPLICA_SPECS[d.subject.key]
    specs_path = ("spec", key)
    specs = d.mapping(specs_path, required=True)
    # Kueue orders pod sets by replica type; unknown types follow in the file's order.
    ordered = [name for name in known_order if name in specs]
    ordered += [name for name in specs if name not in known_order and isinstance(name, str)]
    drafts = []
    for replica_type in ordered:
        path = specs_path + (replica_type,)
        if not isinstance(specs[replica_type], dict):
            d.problems.append((path, "replica spec is not a mapping"))
            continue
        replicas = d.integer(path + ("replicas",), 1)
        drafts.append(d.draft(_pod_set_name(replica_type), replicas, path + ("template",)))
    return [d.workload(drafts)]


# --- JobSet and TrainJob -------------------------------------------------------------------------

def _replicated_job_drafts(d: _Derivation, list_path: tuple) -> list[_Draft]:
    """One pod set per replicated job: replicas x min(parallelism, completions)."""
    drafts = []
    for index, job in enumerate(d.sequence(list_path)):
        path = list_path + (index,)
        if not isinstance(job, dict):
            d.problems.append((path, "replicated job is not a mapping"))
            continue
        name = job.get("name")
        if not isinstance(name, str) or not name:
            d.problems.append((path + ("name",), "replicated job needs a name"))
            name = f"job-{index}"
        replicas = d.integer(path + ("replicas",), 1)
        job_spec = path + ("template", "spec")
        count = replicas * _job_pod_count(d, job_spec)
        drafts.append(d.draft(_pod_set_name(name), count, job_spec + ("template",), source=job))
    return drafts


def _derive_jobset(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    return [d.workload(_replicated_job_drafts(d, ("spec", "replicatedJobs")))]


TRAINER_GROUP = "trainer.kubeflow.org"
TRAINER_NODE_JOB = "node"
TRAINER_NODE_CONTAINER = "node"
TRAINER_ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"


def _derive_trainjob(d: _Derivation) -> list[Workload]:
    runtime = _training_runtime(d)
    if runtime is None:
        return [d.workload([])]
    runtime_derivation = _Derivation(_Subject(runtime.data, runtime.key, runtime.name, d.subject.namespace),
                                     d.inventory, d.depth)
    jobs_path = ("spec", "template", "spec", "replicatedJobs")
    drafts = _replicated_job_drafts(runtime_derivation, jobs_path)
    if runtime_derivation.problems:
        d.problems.append((("spec", "runtimeRef"), f"{runtime.kind} {runtime.name!r} is malformed: "
                           + "; ".join(message for _, message in runtime_derivation.problems[:3])))
    for draft in drafts:
        _apply_trainer(d, runtime, draft, jobs_path)
    return [d.workload(drafts)]


def _training_runtime(d: _Derivation):
    ref_path = ("spec", "runtimeRef")
    ref = d.mapping(ref_path, required=True)
    name, kind = ref.get("name"), ref.get("kind") or "ClusterTrainingRuntime"
    if not isinstance(name, str) or not name:
        d.problems.append((ref_path + ("name",), "runtimeRef needs a name"))
        return None
    found = None
    if d.inventory is not None and kind == "ClusterTrainingRuntime":
        found = d.inventory.get(kind_key(TRAINER_GROUP, kind), name)
    elif d.inventory is not None and kind == "TrainingRuntime":
        found = d.inventory.get(kind_key(TRAINER_GROUP, kind), name, d.subject.namespace)
    if found is None:
        d.problems.append((ref_path + ("name",), f"{kind} {name!r} is not among the inputs; "
                                                  "its pod sets cannot be derived"))
    return found


def _apply_trainer(d: _Derivation, runtime, draft: _Draft, jobs_path: tuple) -> None:
    """What the TrainJob's ``spec.trainer`` changes in a runtime's replicated job."""
    # The pod template lives in the runtime: findings point at the reference to it.
    draft.template_path = draft.spec_path = ("spec", "runtimeRef")
    draft.rewrites.append(_Rewrite((), ("spec", "runtimeRef"), keep_rest=False))
    if not _is_trainer_job(draft):
        return
    nodes = _trainer_node_count(d, runtime)
    if nodes is not None and draft.name == TRAINER_NODE_JOB:
        draft.count = nodes
    resources = d.subject.get("spec", "trainer", "resourcesPerNode")
    if isinstance(resources, dict):
        _set_container_resources(draft, TRAINER_NODE_CONTAINER, resources,
                                 ("spec", "trainer", "resourcesPerNode"))


def _is_trainer_job(draft: _Draft) -> bool:
    """The job running the trainer: named ``node``, or marked as the trainer step."""
    labels = _dict(_dict(_dict(draft.source.get("template")).get("metadata")).get("labels"))
    return draft.name == TRAINER_NODE_JOB or labels.get(TRAINER_ANCESTOR_LABEL) == "trainer"


def _trainer_node_count(d: _Derivation, runtime) -> int | None:
    """numNodes from the TrainJob, else the runtime's mlPolicy; MPI with the launcher
    running as a node leaves one node to the launcher job."""
    nodes = d.integer(("spec", "trainer", "numNodes"), None, minimum=1)
    policy = runtime.get("spec", "mlPolicy", default={})
    if nodes is None and isinstance(policy, dict):
        value = policy.get("numNodes")
        nodes = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
    mpi = policy.get("mpi") if isinstance(policy, dict) else None
    if nodes is not None and isinstance(mpi, dict) and mpi.get("runLauncherAsNode") is True:
        nodes = max(nodes - 1, 0)
    return nodes


def _set_container_resources(draft: _Draft, container_name: str, resources: dict,
                             target: tuple) -> None:
    spec = draft.template.get("spec")
    containers = spec.get("containers") if isinstance(spec, dict) else None
    if not isinstance(containers, list):
        return
    for index, container in enumerate(containers):
        if isinstance(container, dict) and container.get("name") == container_name:
            patched = list(containers)
            patched[index] = {**container, "resources": resources}
            draft.template = {**draft.template, "spec": {**spec, "containers": patched}}
            draft.rewrites.append(_Rewrite(("containers", index, "resources"), target))
            return


# --- LeaderWorkerSet ---------------------------------------------------------------------------

def _derive_leaderworkerset(d: _Derivation) -> list[Workload]:
    base = ("spec", "leaderWorkerTemplate")
    d.mapping(base, required=True)
    size = d.integer(base + ("size",), 1, minimum=1)
    groups = d.integer(("spec", "replicas"), 1)
    drafts = []
    if d.subject.get(*base, "leaderTemplate") is not None:
        drafts.append(d.draft("leader", 1, base + ("leaderTemplate",)))
    worker_name = "worker" if drafts else DEFAULT_POD_SET
    drafts.append(d.draft(worker_name, size - len(drafts), base + ("workerTemplate",)))
    if groups > MAX_EXPANDED_WORKLOADS:
        d.problems.append((("spec", "replicas"), f"{groups} groups: only the first "
                                                 f"{MAX_EXPANDED_WORKLOADS} are derived"))
    if groups == 0:
        return [d.workload([])]
    # Kueue creates one Workload per group, all alike.
    first = d.workload(drafts, name=f"{d.subject.name}-0")
    return [first] + [_copy_workload(first, f"{d.subject.name}-{index}")
                      for index in range(1, min(groups, MAX_EXPANDED_WORKLOADS))]


def _copy_workload(workload: Workload, name: str) -> Workload:
    pod_sets = [replace(pod_set, raw_requests=dict(pod_set.raw_requests), requests=dict(pod_set.requests),
                        request_paths=dict(pod_set.request_paths)) for pod_set in workload.pod_sets]
    return replace(workload, name=name, pod_sets=pod_sets, problems=[])
