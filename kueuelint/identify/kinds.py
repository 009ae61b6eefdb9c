"""The registry of kinds kueuelint understands, keyed by ``group/Kind`` (core kinds: ``Kind``)."""

from __future__ import annotations

from dataclasses import dataclass

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_CONFIG_GROUP = "config.kueue.x-k8s.io"


@dataclass(frozen=True)
class KindInfo:
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


def kind_key(group: str, kind: str) -> str:
    return f"{group}/{kind}" if group else kind


_KUEUE_VERSIONS = ("v1beta1", "v1beta2")

_TABLE = [
    # Kueue's own kinds (cluster-scoped unless noted)
    (KUEUE_GROUP, "ResourceFlavor", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "ClusterQueue", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "LocalQueue", _KUEUE_VERSIONS, True, "kueue"),
    (KUEUE_GROUP, "Cohort", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "AdmissionCheck", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "ProvisioningRequestConfig", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "WorkloadPriorityClass", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "Topology", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "Workload", _KUEUE_VERSIONS, True, "kueue"),
    (KUEUE_GROUP, "MultiKueueConfig", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_GROUP, "MultiKueueCluster", _KUEUE_VERSIONS, False, "kueue"),
    (KUEUE_CONFIG_GROUP, "Configuration", _KUEUE_VERSIONS, False, "support"),
    # Workloads Kueue can manage
    ("batch", "Job", ("v1",), True, "workload"),
    ("batch", "CronJob", ("v1",), True, "workload"),
    ("", "Pod", ("v1",), True, "workload"),
    ("apps", "Deployment", ("v1",), True, "workload"),
    ("apps", "StatefulSet", ("v1",), True, "workload"),
    ("ray.io", "RayJob", ("v1", "v1alpha1"), True, "workload"),
    ("ray.io", "RayCluster", ("v1", "v1alpha1"), True, "workload"),
    ("ray.io", "RayService", ("v1", "v1alpha1"), True, "workload"),
    ("kubeflow.org", "PyTorchJob", ("v1",), True, "workload"),
    ("kubeflow.org", "TFJob", ("v1",), True, "workload"),
    ("kubeflow.org", "XGBoostJob", ("v1",), True, "workload"),
    ("kubeflow.org", "PaddleJob", ("v1",), True, "workload"),
    ("kubeflow.org", "JAXJob", ("v1",), True, "workload"),
    ("kubeflow.org", "MPIJob", ("v2beta1", "v1"), True, "workload"),
    ("kubeflow.org", "Notebook", ("v1", "v1beta1", "v1alpha1"), True, "workload"),
    ("trainer.kubeflow.org", "TrainJob", ("v1alpha1",), True, "workload"),
    ("jobset.x-k8s.io", "JobSet", ("v1alpha2",), True, "workload"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet", ("v1",), True, "workload"),
    ("serving.kserve.io", "InferenceService", ("v1beta1",), True, "workload"),
    ("tekton.dev", "PipelineRun", ("v1", "v1beta1"), True, "workload"),
    ("workload.codeflare.dev", "AppWrapper", ("v1beta2",), True, "workload"),
    ("sparkoperator.k8s.io", "SparkApplication", ("v1beta2",), True, "workload"),
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

KINDS: dict[str, KindInfo] = {
    kind_key(group, kind): KindInfo(kind_key(group, kind), versions, namespaced, role)
    for group, kind, versions, namespaced, role in _TABLE
}

# Files without apiVersion/kind that we recognise by shape get a pseudo group.
COMPUTE_CONFIG_KINDS = {
    "anyscale.com/ComputeConfig": KindInfo("anyscale.com/ComputeConfig", ("v1",), False, "workload"),
    "skypilot.co/Config": KindInfo("skypilot.co/Config", ("v1",), False, "support"),
    "skypilot.co/Task": KindInfo("skypilot.co/Task", ("v1",), False, "workload"),
}
KINDS.update(COMPUTE_CONFIG_KINDS)


def lookup(group: str, kind: str) -> KindInfo | None:
    return KINDS.get(kind_key(group, kind))
