"""The workloads and pod sets Kueue would create for each kind of job (kueue-scheduler.md §1.1,
formats.md §1c-1d).

The derivers live in one ``kinds_*`` module per workload family, on the machinery of
``derivation``; this module maps each kind to its deriver.
"""

from __future__ import annotations

from collections.abc import Callable

from kueuelint.derive.derivation import (
    DEFAULT_POD_SET,
    _Derivation,
    _Subject,
    resources_config,  # noqa: F401 - imported from here by the checks
)
from kueuelint.derive.kinds_appwrapper import _derive_appwrapper
from kueuelint.derive.kinds_batch import (
    _derive_cronjob,
    _derive_deployment,
    _derive_job,
    _derive_pod,
    _derive_statefulset,
)
from kueuelint.derive.kinds_ray import _derive_raycluster, _derive_rayjob, _derive_rayservice
from kueuelint.derive.kinds_serving import _derive_inferenceservice, _derive_notebook
from kueuelint.derive.kinds_spark import _derive_sparkapplication
from kueuelint.derive.kinds_tekton import _derive_pipelinerun
from kueuelint.derive.kinds_training import (
    _REPLICA_SPECS,
    _derive_jobset,
    _derive_leaderworkerset,
    _derive_replica_job,
    _derive_trainjob,
)
from kueuelint.derive.model import Workload
from kueuelint.identify.kinds import KUEUE_GROUP


def derive_workloads(obj, inventory) -> list[Workload]:
    """The Workloads Kueue would create for ``obj`` ([] for kinds Kueue does not queue)."""
    if obj.key in _COMPUTE_CONFIG_KEYS:
        return _compute_config_workloads(obj, inventory)
    subject = _Subject(obj.data if isinstance(obj.data, dict) else {}, obj.key, obj.name, obj.namespace)
    return _derive_subject(subject, inventory, depth=0)


def _derive_subject(subject: _Subject, inventory, depth: int) -> list[Workload]:
    deriver = _DERIVERS.get(subject.key)
    if deriver is None:
        return []
    derivation = _Derivation(subject, inventory, depth)
    try:
        workloads = deriver(derivation)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as error:
        # A bug here must not stop the run; the problem says what happened.
        workloads = [derivation.workload([])]
        derivation.problems.append(((), f"could not derive pod sets ({type(error).__name__}: {error})"))
    return derivation.finish(workloads)


_COMPUTE_CONFIG_KEYS = ("anyscale.com/ComputeConfig", "skypilot.co/Task")


def _compute_config_workloads(obj, inventory) -> list[Workload]:
    """Anyscale and SkyPilot files are derived by their own module, when it is installed."""
    try:
        from kueuelint.derive.compute_configs import derive_compute_config_workloads
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("kueuelint.derive."):
            raise
        return []
    return derive_compute_config_workloads(obj, inventory)


# --- Kueue's own Workload --------------------------------------------------------------------

def _derive_kueue_workload(d: _Derivation) -> list[Workload]:
    drafts = []
    for index, entry in enumerate(d.sequence(("spec", "podSets"))):
        path = ("spec", "podSets", index)
        if not isinstance(entry, dict):
            d.problems.append((path, "pod set is not a mapping"))
            continue
        name = entry.get("name") if isinstance(entry.get("name"), str) else DEFAULT_POD_SET
        count = d.integer(path + ("count",), 1)
        min_count = d.integer(path + ("minCount",), None)
        drafts.append(d.draft(name, count, path + ("template",), min_count=min_count))
    workload = d.workload(drafts, label_paths=())
    queue = d.subject.get("spec", "queueName")
    if isinstance(queue, str) and queue:
        workload.queue_name, workload.queue_name_path = queue, ("spec", "queueName")
    priority = d.subject.get("spec", "priorityClassName")
    workload.priority_class = priority if isinstance(priority, str) and priority else None
    return [workload]


_DERIVERS: dict[str, Callable[[_Derivation], list[Workload]]] = {
    "batch/Job": _derive_job,
    "batch/CronJob": _derive_cronjob,
    "Pod": _derive_pod,
    "apps/Deployment": _derive_deployment,
    "apps/StatefulSet": _derive_statefulset,
    "ray.io/RayJob": _derive_rayjob,
    "ray.io/RayCluster": _derive_raycluster,
    "ray.io/RayService": _derive_rayservice,
    **{key: _derive_replica_job for key in _REPLICA_SPECS},
    "trainer.kubeflow.org/TrainJob": _derive_trainjob,
    "jobset.x-k8s.io/JobSet": _derive_jobset,
    "leaderworkerset.x-k8s.io/LeaderWorkerSet": _derive_leaderworkerset,
    "serving.kserve.io/InferenceService": _derive_inferenceservice,
    "kubeflow.org/Notebook": _derive_notebook,
    "tekton.dev/PipelineRun": _derive_pipelinerun,
    "workload.codeflare.dev/AppWrapper": _derive_appwrapper,
    "sparkoperator.k8s.io/SparkApplication": _derive_sparkapplication,
    f"{KUEUE_GROUP}/Workload": _derive_kueue_workload,
}
