"""Every kind kueuelint understands (``KINDS``, keyed ``group/Kind``; core kinds: ``Kind``) and,
for each kind Kueue can queue, one ``KindSpec`` saying how Kueue manages it (``SPECS``).

A new job kind needs one ``KindSpec`` row here, its deriver under ``kueuelint/derive`` and its
fixtures; the kind then appears in ``KINDS``, in the ``workloads`` group of the rule files and
in every rule that reads these specs.

The records are NamedTuples rather than dataclasses: a one-file run builds these tables at
start-up, and a dataclass compiles its methods then (a frozen one with 21 fields alone took
a sixtieth of a one-file run).  The annotations are evaluated (no ``from __future__ import
annotations``) because a NamedTuple would compile every string annotation as well.
"""

from typing import NamedTuple

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_CONFIG_GROUP = "config.kueue.x-k8s.io"


def kind_key(group: str, kind: str) -> str:
    return f"{group}/{kind}" if group else kind


class KindInfo(NamedTuple):
    key: str                    # "batch/Job", "Pod", "kueue.x-k8s.io/ClusterQueue"
    versions: tuple[str, ...]   # versions we know to be served
    namespaced: bool
    role: str                   # "kueue", "workload", "support" (inputs for accounting), "crd"

    @property
    def group(self) -> str:
        return self.key.rpartition("/")[0]

    @property
    def kind(self) -> str:
        return self.key.rpartition("/")[2]


Path = tuple[str, ...]
METADATA_LABELS: Path = ("metadata", "labels")


class KindSpec(NamedTuple):
    """How Kueue manages one kind of job.  Every field is required: a row that forgets one
    fails at import, so no fact about a new kind is left to a default."""

    group: str
    kind: str
    versions: tuple[str, ...]       # served versions we know
    framework: str | None           # its ``integrations.frameworks`` name; None: no integration
    managed_as: str                 # the kind that integration manages (a CronJob's: batch/Job)
    deriver: str                    # ``module:function`` under kueuelint.derive
    pod_templates: tuple[str, ...]  # dotted paths of its pod templates, ``*`` for any index or key
    label_homes: tuple[Path, ...]   # label maps a queue label is read from (by Kueue or an operator)
    suspend_path: Path | None       # the field Kueue flips to suspend it; None: pods are gated
    suspendable: bool               # False: Kueue can only stop it by deleting its pods
    tas: bool                       # its pod sets may ask for topology-aware scheduling
    partial_admission: bool         # Kueue may admit fewer pods than asked (pod set minCount)
    copies_queue_label: bool        # its own webhook copies the queue label to the pod template
    pods_queue_alone: bool          # with the pod integration on, its labelled pods are queued one by one
    pod_integration: bool           # its integration turns "pod" on (ImplicitlyEnabledFrameworkNames)
    workloads_from_pods: bool       # the pod integration makes its Workloads from its pods, one each
                                    # or one per pod group, not from a replica count in its spec
    pod_set_list: Path | None       # where the entries that become its pod sets are listed; None: fixed
    named_pod_sets: bool            # its pod sets take the user's names (groups, replicated jobs, roles)
    prebuilt_workload: bool         # Kueue honours kueue.x-k8s.io/prebuilt-workload-name on it
    elastic: bool                   # it may be an elastic job (ElasticJobsViaWorkloadSlices)
    user_templates: bool            # False: kueuelint synthesizes its pod templates (a user writes
                                    # no annotations there)

    @property
    def key(self) -> str:
        return kind_key(self.group, self.kind)


_KUEUE_VERSIONS = ("v1beta1", "v1beta2")

# Kueue's own kinds, with whether they are namespaced
_KUEUE_KINDS = [("ResourceFlavor", False), ("ClusterQueue", False), ("LocalQueue", True), ("Cohort", False),
                ("AdmissionCheck", False), ("ProvisioningRequestConfig", False),
                ("WorkloadPriorityClass", False), ("Topology", False), ("Workload", True),
                ("MultiKueueConfig", False), ("MultiKueueCluster", False)]
_OTHER_KINDS = [(KUEUE_GROUP, kind, _KUEUE_VERSIONS, namespaced, "kueue") for kind, namespaced in _KUEUE_KINDS] + [
    (KUEUE_CONFIG_GROUP, "Configuration", _KUEUE_VERSIONS, False, "support")]

_SUPPORT_KINDS = [
    # Inputs to Kueue's accounting and cross-references
    ("trainer.kubeflow.org", "ClusterTrainingRuntime", ("v1alpha1",), False, "support"),
    ("trainer.kubeflow.org", "TrainingRuntime", ("v1alpha1",), True, "support"),
    ("", "LimitRange", ("v1",), True, "support"),
    ("node.k8s.io", "RuntimeClass", ("v1",), False, "support"),
    ("scheduling.k8s.io", "PriorityClass", ("v1",), False, "support"),
    ("", "Namespace", ("v1",), False, "support"),
    ("", "Node", ("v1",), False, "support"),
    ("", "ConfigMap", ("v1",), True, "support"),
    ("apiextensions.k8s.io", "CustomResourceDefinition", ("v1",), False, "crd"),
]

_CRON_LABELS: Path = ("spec", "jobTemplate", "metadata", "labels")
# KServe merges each component's own labels into its pods.
_ISVC_LABELS = (METADATA_LABELS,) + tuple(("spec", part, "labels")
                                          for part in ("predictor", "transformer", "explainer"))
_KUBEFLOW_SUSPEND: Path = ("spec", "runPolicy", "suspend")


def _job(group: str, kind: str, versions: tuple[str, ...], framework: str, deriver: str,
         pod_templates: tuple[str, ...], suspend_path: Path | None, *, managed_as: str = "",
         label_homes: tuple[Path, ...] = (METADATA_LABELS,), suspendable: bool = True,
         partial_admission: bool = False, copies_queue_label: bool = False,
         pods_queue_alone: bool = False, pod_integration: bool = False,
         workloads_from_pods: bool = False, pod_set_list: Path | None = None,
         named_pod_sets: bool = False, prebuilt_workload: bool = False, elastic: bool = False,
         user_templates: bool = True) -> KindSpec:
    """A job kind Kueue's integration ``framework`` manages.  The keywords default to the
    common case (verified for each kind against pkg/controller/jobs)."""
    return KindSpec(group, kind, versions, framework, managed_as or kind_key(group, kind), deriver,
                    pod_templates, label_homes, suspend_path, suspendable, tas=True,
                    partial_admission=partial_admission, copies_queue_label=copies_queue_label,
                    pods_queue_alone=pods_queue_alone, pod_integration=pod_integration,
                    workloads_from_pods=workloads_from_pods, pod_set_list=pod_set_list,
                    named_pod_sets=named_pod_sets, prebuilt_workload=prebuilt_workload,
                    elastic=elastic, user_templates=user_templates)


_SPEC_SUSPEND: Path = ("spec", "suspend")
_TEMPLATE = ("spec.template",)


def _kubeflow(kind: str, replica_specs: str, prebuilt_workload: bool = True) -> KindSpec:
    return _job("kubeflow.org", kind, ("v1",), f"kubeflow.org/{kind.lower()}", "kinds_training:_derive_replica_job",
                (f"spec.{replica_specs}.*.template",), _KUBEFLOW_SUSPEND, named_pod_sets=True,
                prebuilt_workload=prebuilt_workload)


# The order is the order of the ``workloads`` group (and of rule listings).
JOB_SPECS: tuple[KindSpec, ...] = (
    _job("batch", "Job", ("v1",), "batch/job", "kinds_batch:_derive_job", _TEMPLATE, _SPEC_SUSPEND,
         partial_admission=True, prebuilt_workload=True, elastic=True),
    _job("batch", "CronJob", ("v1",), "batch/job", "kinds_batch:_derive_cronjob",
         ("spec.jobTemplate.spec.template",), ("spec", "jobTemplate", "spec", "suspend"),
         managed_as="batch/Job", label_homes=(_CRON_LABELS,), partial_admission=True),
    _job("", "Pod", ("v1",), "pod", "kinds_batch:_derive_pod", ("",), None, workloads_from_pods=True,
         prebuilt_workload=True),
    _job("apps", "Deployment", ("v1",), "deployment", "kinds_batch:_derive_deployment", _TEMPLATE, None,
         suspendable=False, copies_queue_label=True, pod_integration=True, workloads_from_pods=True),
    _job("apps", "StatefulSet", ("v1",), "statefulset", "kinds_batch:_derive_statefulset", _TEMPLATE, None,
         suspendable=False, copies_queue_label=True, pod_integration=True, workloads_from_pods=True),
    _job("ray.io", "RayJob", ("v1", "v1alpha1"), "ray.io/rayjob", "kinds_ray:_derive_rayjob",
         ("spec.rayClusterSpec.headGroupSpec.template", "spec.rayClusterSpec.workerGroupSpecs.*.template",
          "spec.submitterPodTemplate"), _SPEC_SUSPEND,
         pod_set_list=("spec", "rayClusterSpec", "workerGroupSpecs"), named_pod_sets=True,
         prebuilt_workload=True, elastic=True),
    _job("ray.io", "RayCluster", ("v1", "v1alpha1"), "ray.io/raycluster", "kinds_ray:_derive_raycluster",
         ("spec.headGroupSpec.template", "spec.workerGroupSpecs.*.template"), _SPEC_SUSPEND,
         pod_set_list=("spec", "workerGroupSpecs"), named_pod_sets=True, prebuilt_workload=True,
         elastic=True),
    _job("ray.io", "RayService", ("v1", "v1alpha1"), "ray.io/rayservice", "kinds_ray:_derive_rayservice",
         ("spec.rayClusterConfig.headGroupSpec.template", "spec.rayClusterConfig.workerGroupSpecs.*.template"),
         ("spec", "rayClusterConfig", "suspend"), pod_set_list=("spec", "rayClusterConfig", "workerGroupSpecs"),
         named_pod_sets=True, prebuilt_workload=True, elastic=True),
    _kubeflow("PyTorchJob", "pytorchReplicaSpecs"),
    _kubeflow("TFJob", "tfReplicaSpecs"),
    _kubeflow("XGBoostJob", "xgbReplicaSpecs"),
    _kubeflow("PaddleJob", "paddleReplicaSpecs"),
    _kubeflow("JAXJob", "jaxReplicaSpecs", prebuilt_workload=False),
    _job("kubeflow.org", "MPIJob", ("v2beta1", "v1"), "kubeflow.org/mpijob", "kinds_training:_derive_replica_job",
         ("spec.mpiReplicaSpecs.*.template",), _KUBEFLOW_SUSPEND, named_pod_sets=True, prebuilt_workload=True),
    # The notebook controller makes a StatefulSet and copies labels only to its pod template.
    _job("kubeflow.org", "Notebook", ("v1", "v1beta1", "v1alpha1"), "statefulset", "kinds_serving:_derive_notebook",
         _TEMPLATE, None, managed_as="apps/StatefulSet", suspendable=False, pods_queue_alone=True),
    # The pod templates live in the referenced (Cluster)TrainingRuntime.
    _job("trainer.kubeflow.org", "TrainJob", ("v1alpha1",), "trainer.kubeflow.org/trainjob",
         "kinds_training:_derive_trainjob", ("spec.runtimeRef",), _SPEC_SUSPEND,
         pod_set_list=("spec", "runtimeRef"), named_pod_sets=True, prebuilt_workload=True),
    _job("jobset.x-k8s.io", "JobSet", ("v1alpha2",), "jobset.x-k8s.io/jobset", "kinds_training:_derive_jobset",
         ("spec.replicatedJobs.*.template.spec.template",), _SPEC_SUSPEND,
         pod_set_list=("spec", "replicatedJobs"), named_pod_sets=True, prebuilt_workload=True),
    _job("leaderworkerset.x-k8s.io", "LeaderWorkerSet", ("v1",), "leaderworkerset.x-k8s.io/leaderworkerset",
         "kinds_training:_derive_leaderworkerset",
         ("spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate"), None,
         suspendable=False, copies_queue_label=True, pod_integration=True),
    # KServe makes a Deployment per component; its pods carry the component's labels.
    _job("serving.kserve.io", "InferenceService", ("v1beta1",), "deployment", "kinds_serving:_derive_inferenceservice",
         ("spec.predictor", "spec.transformer", "spec.explainer"), None, managed_as="apps/Deployment",
         label_homes=_ISVC_LABELS, suspendable=False, pods_queue_alone=True, user_templates=False),
    # Tekton runs each task as a pod, which the pod integration queues.
    _job("tekton.dev", "PipelineRun", ("v1", "v1beta1"), "pod", "kinds_tekton:_derive_pipelinerun",
         ("spec.pipelineSpec.tasks.*", "spec.pipelineSpec.finally.*", "spec.pipelineRef"), None, managed_as="Pod",
         user_templates=False),
    _job("workload.codeflare.dev", "AppWrapper", ("v1beta2",), "workload.codeflare.dev/appwrapper",
         "kinds_appwrapper:_derive_appwrapper", ("spec.components.*",), _SPEC_SUSPEND,
         pod_set_list=("spec", "components"), prebuilt_workload=True),
    _job("sparkoperator.k8s.io", "SparkApplication", ("v1beta2",), "sparkoperator.k8s.io/sparkapplication",
         "kinds_spark:_derive_sparkapplication", ("spec.driver", "spec.executor"), _SPEC_SUSPEND,
         user_templates=False),
)

COMPUTE_CONFIG_DERIVER = "compute_configs:derive_compute_config_workloads"

# Kinds kueuelint derives Workloads for without a Kueue integration managing them.
OTHER_SPECS: tuple[KindSpec, ...] = (
    # A Workload written by hand: its pod sets are its own, and nothing suspends it.
    KindSpec(KUEUE_GROUP, "Workload", _KUEUE_VERSIONS, None, f"{KUEUE_GROUP}/Workload",
             "podsets:_derive_kueue_workload",
             ("spec.podSets.*.template",), (METADATA_LABELS,), None, suspendable=True, tas=True,
             partial_admission=True, copies_queue_label=False, pods_queue_alone=False,
             pod_integration=False, workloads_from_pods=False, pod_set_list=None, named_pod_sets=False,
             prebuilt_workload=False, elastic=False, user_templates=False),
    # Files recognised by shape (no apiVersion/kind): compute configs that become Ray clusters.
    KindSpec("anyscale.com", "ComputeConfig", ("v1",), None, "ray.io/RayCluster", COMPUTE_CONFIG_DERIVER,
             ("head_node", "head_node_type", "worker_node_types.*", "worker_nodes.*", "compute_config.*"),
             (METADATA_LABELS,), None, suspendable=True, tas=False, partial_admission=False,
             copies_queue_label=False, pods_queue_alone=False,
             pod_integration=False, workloads_from_pods=False, pod_set_list=None, named_pod_sets=False,
             prebuilt_workload=False, elastic=False, user_templates=False),
    KindSpec("skypilot.co", "Task", ("v1",), None, "Pod", COMPUTE_CONFIG_DERIVER, ("resources",),
             (METADATA_LABELS,), None, suspendable=True, tas=False, partial_admission=False,
             copies_queue_label=False, pods_queue_alone=False,
             pod_integration=False, workloads_from_pods=False, pod_set_list=None, named_pod_sets=False,
             prebuilt_workload=False, elastic=False, user_templates=False),
)

SPECS: dict[str, KindSpec] = {spec.key: spec for spec in JOB_SPECS + OTHER_SPECS}


def spec_of(key: str) -> KindSpec | None:
    return SPECS.get(key)


def _info(spec: KindSpec) -> KindInfo:
    return KindInfo(spec.key, spec.versions, True, "workload")


KINDS: dict[str, KindInfo] = {
    kind_key(group, kind): KindInfo(kind_key(group, kind), versions, namespaced, role)
    for group, kind, versions, namespaced, role in _OTHER_KINDS
}
KINDS.update((spec.key, _info(spec)) for spec in JOB_SPECS)
KINDS.update((kind_key(group, kind), KindInfo(kind_key(group, kind), versions, namespaced, role))
             for group, kind, versions, namespaced, role in _SUPPORT_KINDS)

# Files without apiVersion/kind that we recognise by shape get a pseudo group.
COMPUTE_CONFIG_KINDS = {
    "anyscale.com/ComputeConfig": KindInfo("anyscale.com/ComputeConfig", ("v1",), False, "workload"),
    "skypilot.co/Config": KindInfo("skypilot.co/Config", ("v1",), False, "support"),
    "skypilot.co/Task": KindInfo("skypilot.co/Task", ("v1",), False, "workload"),
}
KINDS.update(COMPUTE_CONFIG_KINDS)


class RetiredKind(NamedTuple):
    """A job kind whose Kueue integration was removed: rules may name it (a Configuration for an
    older Kueue may list its framework); kueuelint does not identify or derive it."""

    framework: str
    removed_in: tuple[int, int]     # the first Kueue version without the integration


# Read in Kueue's tags: pkg/controller/jobs/kubeflow/jobs/mxjob is in v0.10.0, gone in v0.11.0.
RETIRED_JOB_KINDS: dict[str, RetiredKind] = {"kubeflow.org/MXJob": RetiredKind("kubeflow.org/mxjob", (0, 11))}
# Framework name -> the Kueue version that removed it.
REMOVED_FRAMEWORKS: dict[str, tuple[int, int]] = {kind.framework: kind.removed_in
                                                  for kind in RETIRED_JOB_KINDS.values()}


def lookup(group: str, kind: str) -> KindInfo | None:
    return KINDS.get(kind_key(group, kind))


# The Kueue integration (``integrations.frameworks`` name) that manages each job kind.
FRAMEWORK_OF: dict[str, str] = {spec.key: spec.framework for spec in JOB_SPECS if spec.framework}


def frameworks() -> tuple[str, ...]:
    """Every integration name some job kind is managed by, in table order."""
    return tuple(dict.fromkeys(spec.framework for spec in JOB_SPECS if spec.framework))
