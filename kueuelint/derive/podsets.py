"""The workloads and pod sets Kueue would create for each kind of job (kueue-scheduler.md §1.1,
formats.md §1c-1d).

Every kind has a small deriver that finds its pod templates and counts; the common tail
(``_Derivation.pod_set``) computes per-pod requests once, the same way for every kind. Derivers
read input defensively: a value of the wrong type becomes a problem on the workload and the
value is skipped, so a malformed manifest still yields whatever can be known about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from kueuelint.accounting.requests import ResourcesConfig, pod_requests
from kueuelint.derive.model import PodSet, Workload
from kueuelint.identify.kinds import KUEUE_GROUP, kind_key
from kueuelint.identify.objects import dig

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
POD_GROUP_TOTAL_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
NOTEBOOK_STOPPED_ANNOTATION = "kubeflow-resource-stopped"
DEFAULT_POD_SET = "main"

# An LWS with a million replicas must not make a million Workload objects.
MAX_EXPANDED_WORKLOADS = 1000
# AppWrappers may wrap AppWrappers; real ones never nest deeper than this.
MAX_WRAPPING_DEPTH = 4

METADATA_LABELS = ("metadata", "labels")


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


# --- the object being derived and the shared machinery ----------------------------------------

@dataclass
class _Subject:
    """The object being derived: a loaded object or a component wrapped in an AppWrapper."""

    data: dict
    key: str
    name: str
    namespace: str | None

    def get(self, *path, default=None):
        return dig(self.data, *path, default=default)


@dataclass(frozen=True)
class _Rewrite:
    """Where a field of a (possibly synthesized) pod spec really lives in the object.

    ``keep_rest`` appends what follows ``prefix``; otherwise every path under ``prefix``
    points at ``target`` itself (e.g. a default container Kueue adds points at the switch
    that adds it).
    """

    prefix: tuple
    target: tuple
    keep_rest: bool = True


@dataclass
class _Draft:
    """A pod set before its requests are computed."""

    name: str
    count: int
    template: dict
    template_path: tuple
    spec_path: tuple
    min_count: int | None = None
    rewrites: list[_Rewrite] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)   # resource -> origin override
    source: dict = field(default_factory=dict)   # the raw entry (e.g. replicated job) it came from

    def object_path(self, relative: tuple) -> tuple:
        best = None
        for rewrite in self.rewrites:
            if relative[:len(rewrite.prefix)] == rewrite.prefix:
                if best is None or len(rewrite.prefix) > len(best.prefix):
                    best = rewrite
        if best is None:
            return self.spec_path + relative
        return best.target + (relative[len(best.prefix):] if best.keep_rest else ())


class _Derivation:
    """State for deriving one object: where to read, what went wrong, shared lookups."""

    def __init__(self, subject: _Subject, inventory, depth: int) -> None:
        self.subject = subject
        self.inventory = inventory
        self.depth = depth
        self.problems: list[tuple[tuple, str]] = []

    # reading values ------------------------------------------------------------------------

    def mapping(self, path: tuple, *, required: bool = False) -> dict:
        node = self.subject.get(*path)
        if isinstance(node, dict):
            return node
        if node is not None:
            self.problems.append((path, f"expected a mapping, got {_type_name(node)}"))
        elif required:
            self.problems.append((path, "missing"))
        return {}

    def sequence(self, path: tuple) -> list:
        node = self.subject.get(*path)
        if isinstance(node, list):
            return node
        if node is not None:
            self.problems.append((path, f"expected a list, got {_type_name(node)}"))
        return []

    def integer(self, path: tuple, default: int | None, *, minimum: int = 0) -> int | None:
        node = self.subject.get(*path)
        if node is None:
            return default
        if isinstance(node, bool) or not isinstance(node, int):
            self.problems.append((path, f"expected an integer, got {_type_name(node)} {node!r}"))
            return default
        if node < minimum:
            self.problems.append((path, f"must be at least {minimum}, got {node}"))
            return default
        return node

    def integer_text(self, path: tuple, *, minimum: int) -> int | None:
        """An integer written as a string, as annotations hold them."""
        node = self.subject.get(*path)
        if node is None:
            return None
        text = str(node).strip() if isinstance(node, (str, int)) and not isinstance(node, bool) else ""
        if not re.fullmatch(r"[+-]?\d{1,18}", text):
            self.problems.append((path, f"expected an integer in a string, got {node!r}"))
            return None
        if int(text) < minimum:
            self.problems.append((path, f"must be at least {minimum}, got {text}"))
            return None
        return int(text)

    def template(self, path: tuple) -> dict:
        """A pod template ({metadata, spec}); a problem when it is missing or not a mapping."""
        template = self.mapping(path, required=True)
        if template and not isinstance(template.get("spec"), dict):
            self.problems.append((path + ("spec",), "pod template has no spec"))
        return template

    def draft(self, name: str, count: int, template_path: tuple, **extra) -> _Draft:
        return _Draft(name, count, self.template(template_path), template_path,
                      template_path + ("spec",), **extra)

    # building results ------------------------------------------------------------------------

    def workload(self, drafts: list[_Draft], *, name: str | None = None,
                 label_paths: tuple[tuple, ...] = (METADATA_LABELS,), **extra) -> Workload:
        queue, queue_path = self.label(QUEUE_LABEL, label_paths)
        priority, _ = self.label(PRIORITY_LABEL, label_paths)
        workload = Workload(name=name or self.subject.name, namespace=self.subject.namespace,
                            queue_name=queue, queue_name_path=queue_path, priority_class=priority,
                            kind=self.subject.key, **extra)
        workload.pod_sets = [self.pod_set(draft) for draft in drafts]
        return workload

    def label(self, key: str, label_paths: tuple[tuple, ...]) -> tuple[str | None, tuple | None]:
        """The first value of label ``key`` among ``label_paths`` (in order of precedence)."""
        for labels_path in label_paths:
            labels = self.subject.get(*labels_path)
            if not isinstance(labels, dict) or key not in labels:
                continue
            value = labels[key]
            if isinstance(value, str) and value:
                return value, labels_path + (key,)
            self.problems.append((labels_path + (key,), f"label value must be a non-empty string, "
                                                        f"got {value!r}"))
        return None, None

    def pod_set(self, draft: _Draft) -> PodSet:
        found = pod_requests(draft.template.get("spec"), limit_ranges=self._limit_ranges(),
                             runtime_classes=self._runtime_class)
        paths = {name: draft.object_path(path) for name, path in found.paths.items()}
        requests, request_paths = self._resources_config().apply_with_paths(found.requests, paths)
        self.problems.extend((draft.object_path(path), message) for path, message in found.problems)
        return PodSet(draft.name, draft.count, min_count=draft.min_count, template=draft.template,
                      template_path=draft.template_path, raw_requests=found.requests,
                      requests=requests, request_paths=request_paths, spec_path=draft.spec_path,
                      request_origins={**found.origins, **draft.origins})

    def finish(self, workloads: list[Workload]) -> list[Workload]:
        # Problems belong to the object; attach them once, not to every copy of a group.
        if workloads and self.problems:
            workloads[0].problems.extend(_unique(self.problems))
        return workloads

    # inventory lookups -------------------------------------------------------------------------

    def _limit_ranges(self) -> list:
        if self.inventory is None:
            return []
        return list(self.inventory.limit_ranges(self.subject.namespace))

    def _runtime_class(self, name: str):
        return self.inventory.runtime_class(name) if self.inventory is not None else None

    def _resources_config(self) -> ResourcesConfig:
        return resources_config(self.inventory)


def resources_config(inventory) -> ResourcesConfig:
    """The Kueue Configuration's ``resources`` section of the run (cached on the inventory)."""
    if inventory is None:
        return ResourcesConfig()
    cache = inventory.cache
    if "kueuelint.resources-config" not in cache:
        cache["kueuelint.resources-config"] = ResourcesConfig.from_configuration(
            inventory.kueue_configuration())
    return cache["kueuelint.resources-config"]


def _unique(problems: list) -> list:
    seen, unique = set(), []
    for problem in problems:
        if problem not in seen:
            seen.add(problem)
            unique.append(problem)
    return unique


def _type_name(value: object) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def _pod_set_name(raw: object) -> str:
    # Kueue lower-cases pod set names built from replica types and group names.
    return str(raw).lower()


def _with_container(draft: _Draft, container: dict, rewrite_target: tuple, *,
                    keep_rest: bool, origin: str | None = None) -> None:
    """Add a container Kueue or an operator puts in the pod, without touching the input."""
    spec = dict(_dict(draft.template.get("spec")))
    containers = spec.get("containers")
    containers = list(containers) if isinstance(containers, list) else []
    index = len(containers)
    containers.append(container)
    spec["containers"] = containers
    draft.template = {**draft.template, "spec": spec}
    draft.rewrites.append(_Rewrite(("containers", index, "resources"), rewrite_target, keep_rest))
    if origin:
        for name in _resource_names(container):
            draft.origins.setdefault(name, origin)


def _resource_names(container: dict) -> set[str]:
    resources = container.get("resources")
    names: set[str] = set()
    if isinstance(resources, dict):
        for key in ("requests", "limits"):
            if isinstance(resources.get(key), dict):
                names.update(resources[key])
    return names


def _sized(cpu: str, memory: str, limit_cpu: str | None = None, limit_memory: str | None = None) -> dict:
    return {"requests": {"cpu": cpu, "memory": memory},
            "limits": {"cpu": limit_cpu or cpu, "memory": limit_memory or memory}}


# --- batch Job and CronJob ---------------------------------------------------------------------

def _job_draft(d: _Derivation, job_spec_path: tuple, annotations_path: tuple, name: str) -> _Draft:
    count = _job_pod_count(d, job_spec_path)
    min_count = d.integer_text(annotations_path + (MIN_PARALLELISM_ANNOTATION,), minimum=1)
    return d.draft(name, count, job_spec_path + ("template",), min_count=min_count)


def _job_pod_count(d: _Derivation, job_spec_path: tuple) -> int:
    """min(parallelism, completions); parallelism defaults to 1, completions to unbounded."""
    parallelism = d.integer(job_spec_path + ("parallelism",), 1)
    completions = d.integer(job_spec_path + ("completions",), None)
    return parallelism if completions is None else min(parallelism, completions)


def _derive_job(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    return [d.workload([_job_draft(d, ("spec",), ("metadata", "annotations"), DEFAULT_POD_SET)])]


def _derive_cronjob(d: _Derivation) -> list[Workload]:
    job = ("spec", "jobTemplate")
    d.mapping(job + ("spec",), required=True)
    draft = _job_draft(d, job + ("spec",), job + ("metadata", "annotations"), DEFAULT_POD_SET)
    return [d.workload([draft], label_paths=(job + METADATA_LABELS,))]


# --- plain Pods, Deployments, StatefulSets -------------------------------------------------------

def _derive_pod(d: _Derivation) -> list[Workload]:
    data = d.subject.data
    template = {"metadata": data.get("metadata") or {}, "spec": d.mapping(("spec",), required=True)}
    group, _ = d.label(POD_GROUP_LABEL, (METADATA_LABELS,))
    total = d.integer_text(("metadata", "annotations", POD_GROUP_TOTAL_ANNOTATION), minimum=1)
    pod_set_name = _pod_set_name(d.subject.name) if group else DEFAULT_POD_SET
    draft = _Draft(pod_set_name or DEFAULT_POD_SET, 1, template, (), ("spec",))
    return [d.workload([draft], name=group, group_name=group,
                       group_total_count=total if group else None)]


_TEMPLATE_LABELS = ("spec", "template", "metadata", "labels")


def _derive_deployment(d: _Derivation) -> list[Workload]:
    # Kueue's pod integration makes a Workload of every pod, so one pod set of one pod.
    replicas = d.integer(("spec", "replicas"), 1)
    draft = d.draft(DEFAULT_POD_SET, 1, ("spec", "template"))
    return [d.workload([draft], label_paths=(METADATA_LABELS, _TEMPLATE_LABELS),
                       per_pod=True, replicas=replicas)]


def _derive_statefulset(d: _Derivation) -> list[Workload]:
    replicas = d.integer(("spec", "replicas"), 1)
    draft = d.draft(DEFAULT_POD_SET, replicas, ("spec", "template"))
    return [d.workload([draft], label_paths=(METADATA_LABELS, _TEMPLATE_LABELS))]


# --- KubeRay -----------------------------------------------------------------------------------

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


# --- KServe InferenceService -----------------------------------------------------------------

ISVC_COMPONENTS = ("predictor", "transformer", "explainer")
ISVC_MODEL_KEYS = ("model", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "pmml",
                   "lightgbm", "paddle", "huggingface", "art", "alibi")
ISVC_NON_POD_KEYS = frozenset(ISVC_MODEL_KEYS) | {
    "minReplicas", "maxReplicas", "scaleTarget", "scaleMetric", "scaleMetricType",
    "containerConcurrency", "timeout", "canaryTrafficPercent", "logger", "batcher", "labels",
    "annotations", "deploymentStrategy", "autoScaling", "workerSpec", "storageUris"}


def _derive_inferenceservice(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    workloads = []
    for component in ISVC_COMPONENTS:
        path = ("spec", component)
        if d.mapping(path):
            workloads.append(_isvc_component_workload(d, component, path))
    if not workloads:
        d.problems.append((("spec", "predictor"), "an InferenceService needs a predictor"))
        workloads.append(d.workload([]))
    return workloads


def _isvc_component_workload(d: _Derivation, component: str, path: tuple) -> Workload:
    body = d.mapping(path)
    spec = {key: value for key, value in body.items() if key not in ISVC_NON_POD_KEYS}
    draft = _Draft(DEFAULT_POD_SET, 1, {"metadata": _isvc_pod_metadata(d, body), "spec": spec},
                   path, path)
    model_key = next((key for key in ISVC_MODEL_KEYS if isinstance(body.get(key), dict)), None)
    if model_key is not None:
        _put_model_container_first(draft, body, model_key, path)
    replicas = d.integer(path + ("minReplicas",), 1)
    labels = (METADATA_LABELS, path + ("labels",))
    return d.workload([draft], name=f"{d.subject.name}-{component}", label_paths=labels,
                      per_pod=True, replicas=replicas)


def _put_model_container_first(draft: _Draft, body: dict, model_key: str, path: tuple) -> None:
    model = {**body[model_key], "name": body[model_key].get("name") or "kserve-container"}
    listed = body.get("containers")
    listed = listed if isinstance(listed, list) else []
    draft.template["spec"] = {**draft.template["spec"], "containers": [model, *listed]}
    draft.rewrites.append(_Rewrite(("containers", 0), path + (model_key,)))
    for index in range(len(listed)):
        draft.rewrites.append(_Rewrite(("containers", index + 1), path + ("containers", index)))


def _isvc_pod_metadata(d: _Derivation, body: dict) -> dict:
    # KServe gives the pods the ISVC's labels plus the component's own.
    labels = {**_dict(d.subject.get(*METADATA_LABELS)), **_dict(body.get("labels"))}
    annotations = {**_dict(d.subject.get("metadata", "annotations")), **_dict(body.get("annotations"))}
    return {"labels": labels, "annotations": annotations}


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


# --- Kubeflow Notebook -------------------------------------------------------------------------

def _derive_notebook(d: _Derivation) -> list[Workload]:
    spec = d.mapping(("spec", "template", "spec"), required=True)
    stopped = NOTEBOOK_STOPPED_ANNOTATION in _dict(d.subject.get("metadata", "annotations"))
    # The notebook controller copies all Notebook labels onto the pod.
    template = {"metadata": {"labels": _dict(d.subject.get(*METADATA_LABELS))}, "spec": spec}
    draft = _Draft(DEFAULT_POD_SET, 0 if stopped else 1, template, ("spec", "template"),
                   ("spec", "template", "spec"))
    return [d.workload([draft])]


# --- Tekton PipelineRun ------------------------------------------------------------------------

def _derive_pipelinerun(d: _Derivation) -> list[Workload]:
    """One pod set per Task: each Task runs as its own pod and Kueue queues each on its own.

    Inline specs give exact paths; a Pipeline or Task found by reference among the inputs is
    used too, with findings pointing at the reference.
    """
    pipeline, anchor = d.mapping(("spec", "pipelineSpec")), None
    if not pipeline:
        anchor = ("spec", "pipelineRef")
        pipeline = _referenced_spec(d, "tekton.dev/Pipeline", d.subject.get(*anchor))
    drafts = []
    for section in ("tasks", "finally"):
        tasks = pipeline.get(section)
        for index, task in enumerate(tasks if isinstance(tasks, list) else []):
            draft = _tekton_task_draft(d, task, ("spec", "pipelineSpec", section, index), anchor)
            if draft is not None:
                drafts.append(draft)
    return [d.workload(drafts, per_pod=True)]


def _referenced_spec(d: _Derivation, key: str, ref: object) -> dict:
    """The spec of the object a ``{name: ...}`` reference names, when it is among the inputs."""
    name = ref.get("name") if isinstance(ref, dict) else None
    if d.inventory is None or not isinstance(name, str):
        return {}
    found = d.inventory.get(key, name, d.subject.namespace)
    spec = found.get("spec") if found is not None else None
    return spec if isinstance(spec, dict) else {}


def _tekton_task_draft(d: _Derivation, task: object, path: tuple, anchor: tuple | None) -> _Draft | None:
    if not isinstance(task, dict):
        return None
    task_spec, spec_path = task.get("taskSpec"), path + ("taskSpec",)
    if not isinstance(task_spec, dict):
        task_spec = _referenced_spec(d, "tekton.dev/Task", task.get("taskRef"))
        anchor = anchor or path + ("taskRef",)
    if not task_spec:
        return None
    name = task.get("name") if isinstance(task.get("name"), str) else f"task-{path[-1]}"
    draft = _Draft(_pod_set_name(name), 1, {"spec": {"containers": []}}, anchor or spec_path,
                   anchor or spec_path)
    _add_tekton_containers(draft, task_spec, spec_path, anchor)
    return draft


def _add_tekton_containers(draft: _Draft, task_spec: dict, spec_path: tuple, anchor: tuple | None) -> None:
    template_resources = _step_resources(_dict(task_spec.get("stepTemplate")))[0]
    for kind in ("steps", "sidecars"):
        items = task_spec.get(kind)
        for index, step in enumerate(items if isinstance(items, list) else []):
            if not isinstance(step, dict):
                continue
            resources, key = _step_resources(step)
            merged = _merge_resources(template_resources, resources)
            target = anchor or spec_path + (kind, index, key)
            _with_container(draft, {"name": step.get("name"), "resources": merged}, target,
                            keep_rest=anchor is None)


def _step_resources(step: dict) -> tuple[dict, str]:
    # Tekton v1 names the field computeResources; v1beta1 used resources.
    for key in ("computeResources", "resources"):
        if isinstance(step.get(key), dict):
            return step[key], key
    return {}, "computeResources"


def _merge_resources(base: dict, override: dict) -> dict:
    merged = {}
    for key in ("requests", "limits"):
        combined = {**_dict(base.get(key)), **_dict(override.get(key))}
        if combined:
            merged[key] = combined
    return merged


# --- AppWrapper --------------------------------------------------------------------------------

def _derive_appwrapper(d: _Derivation) -> list[Workload]:
    pod_sets: list[PodSet] = []
    for index, component in enumerate(d.sequence(("spec", "components"))):
        path = ("spec", "components", index)
        if not isinstance(component, dict):
            d.problems.append((path, "component is not a mapping"))
            continue
        pod_sets += _component_pod_sets(d, component, path, index)
    workload = d.workload([])
    workload.pod_sets = pod_sets
    return [workload]


def _component_pod_sets(d: _Derivation, component: dict, path: tuple, index: int) -> list[PodSet]:
    declared = component.get("podSets")
    if isinstance(declared, list) and declared:
        return [pod_set for pod_set_index, entry in enumerate(declared)
                if (pod_set := _declared_pod_set(d, entry, path, index, pod_set_index)) is not None]
    return _inferred_pod_sets(d, component, path, index)


def _declared_pod_set(d: _Derivation, entry: object, component_path: tuple, index: int,
                      pod_set_index: int) -> PodSet | None:
    """A pod set the AppWrapper names itself: ``path`` into the component and ``replicas``."""
    entry_path = component_path + ("podSets", pod_set_index)
    relative = _appwrapper_path(entry.get("path")) if isinstance(entry, dict) else None
    if relative is None:
        d.problems.append((entry_path + ("path",), "expected a path like 'template.spec.template'"))
        return None
    replicas = d.integer(entry_path + ("replicas",), 1)
    draft = d.draft(f"{index}-{pod_set_index}", replicas, component_path + relative)
    return d.pod_set(draft)


def _appwrapper_path(text: object) -> tuple | None:
    if not isinstance(text, str) or not text.startswith("template"):
        return None
    parts: list = []
    for match in re.finditer(r"\.?([^.\[\]]+)|\[(\d+)\]", text):
        parts.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
    return tuple(parts)


def _inferred_pod_sets(d: _Derivation, component: dict, path: tuple, index: int) -> list[PodSet]:
    wrapped = component.get("template")
    if not isinstance(wrapped, dict) or d.depth >= MAX_WRAPPING_DEPTH:
        d.problems.append((path + ("template",), "component has no wrapped object"))
        return []
    subject = _wrapped_subject(d, wrapped)
    if subject.key not in _DERIVERS:
        return []   # a Service, ConfigMap, ...: no pods
    prefix = path + ("template",)
    pod_sets = []
    for workload in _derive_subject(subject, d.inventory, d.depth + 1)[:1]:
        d.problems.extend((prefix + p, message) for p, message in workload.problems)
        for pod_set in workload.pod_sets:
            pod_set.count *= workload.replicas if workload.per_pod else 1
            pod_sets.append(_prefixed(pod_set, prefix, f"{index}-{pod_set.name}"))
    return pod_sets


def _wrapped_subject(d: _Derivation, wrapped: dict) -> _Subject:
    api_version = wrapped.get("apiVersion") if isinstance(wrapped.get("apiVersion"), str) else ""
    kind = wrapped.get("kind") if isinstance(wrapped.get("kind"), str) else ""
    group = api_version.rpartition("/")[0]
    name = _dict(wrapped.get("metadata")).get("name")
    return _Subject(wrapped, kind_key(group, kind), name if isinstance(name, str) else d.subject.name,
                    d.subject.namespace)


def _prefixed(pod_set: PodSet, prefix: tuple, name: str) -> PodSet:
    pod_set.name = name
    pod_set.template_path = prefix + pod_set.template_path
    pod_set.spec_path = prefix + pod_set.spec_path
    pod_set.request_paths = {resource: prefix + path for resource, path in pod_set.request_paths.items()}
    return pod_set


# --- Spark ---------------------------------------------------------------------------------------

SPARK_MIN_OVERHEAD_MIB = 384
SPARK_JVM_OVERHEAD_FACTOR = Decimal("0.1")
SPARK_NON_JVM_OVERHEAD_FACTOR = Decimal("0.4")
_SPARK_UNITS_MIB = {"b": Decimal(1) / 2**20, "k": Decimal(1) / 1024, "kb": Decimal(1) / 1024,
                    "m": 1, "mb": 1, "g": 1024, "gb": 1024, "t": 2**20, "tb": 2**20,
                    "p": 2**30, "pb": 2**30}


def _derive_sparkapplication(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    executors = d.integer(("spec", "executor", "instances"), 0)
    drafts = [_spark_draft(d, "driver", 1), _spark_draft(d, "executor", executors)]
    return [d.workload(drafts)]


def _spark_draft(d: _Derivation, role: str, count: int) -> _Draft:
    """The pod spark-submit would create for ``role``, sized the way Spark sizes it:
    cpu = coreRequest or cores (default 1); memory = memory (default 1g) + overhead, where
    overhead = memoryOverhead or max(factor x memory, 384Mi)."""
    path = ("spec", role)
    role_spec = d.mapping(path)
    cpu, cpu_field = _spark_cpu(d, role, role_spec)
    memory_mib = _spark_memory_mib(d, role, role_spec)
    resources = {"requests": {"cpu": cpu, "memory": f"{memory_mib}Mi"}, "limits": {}}
    gpu = _dict(role_spec.get("gpu"))
    if isinstance(gpu.get("name"), str) and isinstance(gpu.get("quantity"), int) and gpu["quantity"] > 0:
        resources["limits"][gpu["name"]] = gpu["quantity"]
    template = {"spec": {"containers": [], "initContainers": role_spec.get("initContainers") or []}}
    draft = _Draft(role, count, template, path, path,
                   rewrites=[_Rewrite(("initContainers",), path + ("initContainers",))])
    container_path = ("containers", 0, "resources")
    _with_container(draft, {"name": f"spark-kubernetes-{role}", "resources": resources},
                    path, keep_rest=False, origin="default:spark-sizing")
    draft.rewrites += [_Rewrite(container_path + ("requests", "cpu"), path + (cpu_field,), False),
                       _Rewrite(container_path + ("requests", "memory"), path + ("memory",), False),
                       _Rewrite(container_path + ("limits",), path + ("gpu",), False)]
    _add_spark_sidecars(d, draft, role_spec, path)
    return draft


def _add_spark_sidecars(d: _Derivation, draft: _Draft, role_spec: dict, path: tuple) -> None:
    for index, sidecar in enumerate(d.sequence(path + ("sidecars",))):
        if isinstance(sidecar, dict):
            _with_container(draft, sidecar, path + ("sidecars", index, "resources"), keep_rest=True)


def _spark_conf(d: _Derivation, key: str) -> str | None:
    value = _dict(d.subject.get("spec", "sparkConf")).get(key)
    return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


def _spark_cpu(d: _Derivation, role: str, role_spec: dict) -> tuple[str, str]:
    request = role_spec.get("coreRequest")
    if request is None:
        request = _spark_conf(d, f"spark.kubernetes.{role}.request.cores")
    if request is not None:
        return request, "coreRequest"
    cores = d.integer(("spec", role, "cores"), None, minimum=1)
    if cores is None:
        conf = _spark_conf(d, f"spark.{role}.cores")
        cores = int(conf) if conf is not None and conf.isdigit() else 1
    return str(cores), "cores"


def _spark_memory_mib(d: _Derivation, role: str, role_spec: dict) -> int:
    memory = _spark_mib(d, role_spec.get("memory") or _spark_conf(d, f"spark.{role}.memory"),
                        ("spec", role, "memory"), default=Decimal(1024))
    overhead_text = role_spec.get("memoryOverhead") or _spark_conf(d, f"spark.{role}.memoryOverhead")
    if overhead_text is not None:
        overhead = _spark_mib(d, overhead_text, ("spec", role, "memoryOverhead"), default=Decimal(0))
    else:
        product = int(_spark_overhead_factor(d, role) * memory)   # Spark truncates
        overhead = max(Decimal(product), Decimal(SPARK_MIN_OVERHEAD_MIB))
    extra = Decimal(0)
    if role == "executor" and d.subject.get("spec", "type") == "Python":
        extra = _spark_mib(d, _spark_conf(d, "spark.executor.pyspark.memory"), ("spec", "sparkConf"),
                           default=Decimal(0))
    return int(memory + overhead + extra)


def _spark_overhead_factor(d: _Derivation, role: str) -> Decimal:
    for text in (_spark_conf(d, f"spark.{role}.memoryOverheadFactor"),
                 _spark_conf(d, "spark.kubernetes.memoryOverheadFactor"),
                 d.subject.get("spec", "memoryOverheadFactor")):
        if text is None or text == "":
            continue
        try:
            factor = Decimal(str(text))
        except ArithmeticError:
            factor = Decimal(-1)
        if factor.is_finite() and factor >= 0:
            return factor
        d.problems.append((("spec", "memoryOverheadFactor"), f"invalid memory overhead factor {text!r}"))
    non_jvm = d.subject.get("spec", "type") in ("Python", "R")
    return SPARK_NON_JVM_OVERHEAD_FACTOR if non_jvm else SPARK_JVM_OVERHEAD_FACTOR


def _spark_mib(d: _Derivation, text: object, path: tuple, *, default: Decimal) -> Decimal:
    """A Java-style memory size ("512m", "2g", bare number = MiB) in whole MiB."""
    if text is None:
        return default
    match = re.fullmatch(r"(\d{1,15})([a-z]*)", str(text).strip().lower())
    unit = _SPARK_UNITS_MIB.get(match.group(2) or "m") if match else None
    if unit is None:
        d.problems.append((path, f"invalid Spark memory size {text!r}; expected e.g. '512m' or '2g'"))
        return default
    return Decimal(int(Decimal(match.group(1)) * unit))


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
