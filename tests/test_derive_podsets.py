from __future__ import annotations

import copy
import random
from types import SimpleNamespace

import pytest

from helpers_load import corpus_path, load_corpus, load_text, only
from kueuelint.derive import workloads_of
from kueuelint.derive.podsets import derive_workloads
from kueuelint.index.inventory import Inventory

MI = 2**20
GI = 2**30
QUEUE_PATH = ("metadata", "labels", "kueue.x-k8s.io/queue-name")
KUEUE = "kueue/site/static/examples/"


def derive_one(relative: str, key: str, name: str | None = None):
    objects, inventory = load_corpus(relative)
    return derive_workloads(only(objects, key, name), inventory)


def shape(workload):
    """(name, count, requests) of every pod set: what the solver consumes."""
    return [(ps.name, ps.count, ps.requests) for ps in workload.pod_sets]


# --- batch ---------------------------------------------------------------------------------

def test_job_from_the_kueue_sample():
    [workload] = derive_one(KUEUE + "jobs/sample-job.yaml", "batch/Job")
    # parallelism 3 = completions 3; 1 cpu and 200Mi per pod
    assert shape(workload) == [("main", 3, {"cpu": 1000, "memory": 200 * MI})]
    assert workload.queue_name == "user-queue" and workload.queue_name_path == QUEUE_PATH
    assert workload.namespace == "default" and workload.kind == "batch/Job"
    pod_set = workload.pod_sets[0]
    assert pod_set.template_path == ("spec", "template")
    assert pod_set.spec_path == ("spec", "template", "spec")
    assert pod_set.request_paths["cpu"] == ("spec", "template", "spec", "containers", 0,
                                            "resources", "requests", "cpu")
    assert workload.problems == []


def test_request_paths_point_at_the_lines_in_the_file():
    objects, inventory = load_corpus(KUEUE + "jobs/sample-job.yaml")
    job = only(objects, "batch/Job")
    pod_set = derive_workloads(job, inventory)[0].pod_sets[0]
    location = job.locate(pod_set.request_paths["memory"])
    assert job.doc.source.line_text(location.line).strip() == 'memory: "200Mi"'


def test_job_partial_admission_annotation_sets_min_count():
    [workload] = derive_one(KUEUE + "jobs/sample-job-partial-admission.yaml", "batch/Job")
    pod_set = workload.pod_sets[0]
    assert (pod_set.count, pod_set.min_count) == (20, 5)


@pytest.mark.parametrize("spec_lines, count", [
    ("parallelism: 4\n  completions: 2", 2),      # min(parallelism, completions)
    ("completions: 5", 1),                          # parallelism defaults to 1
    ("parallelism: 6", 6),                          # no completions: parallelism
])
def test_job_count(spec_lines, count):
    text = f"""apiVersion: batch/v1
kind: Job
metadata: {{name: j}}
spec:
  {spec_lines}
  template:
    spec:
      containers: [{{name: c, resources: {{requests: {{cpu: 1}}}}}}]
"""
    objects, inventory = load_text(text)
    assert derive_workloads(objects[0], inventory)[0].pod_sets[0].count == count


def test_cronjob_reads_the_queue_label_from_the_job_template():
    [workload] = derive_one(KUEUE + "jobs/sample-cronjob.yaml", "batch/CronJob")
    assert shape(workload) == [("main", 3, {"cpu": 1000, "memory": 200 * MI})]
    assert workload.queue_name == "user-queue"
    assert workload.queue_name_path == ("spec", "jobTemplate") + QUEUE_PATH
    assert workload.pod_sets[0].template_path == ("spec", "jobTemplate", "spec", "template")


# --- JobSet ---------------------------------------------------------------------------------

def test_jobset_from_the_kueue_sample():
    [workload] = derive_one(KUEUE + "jobs/sample-jobset.yaml", "jobset.x-k8s.io/JobSet")
    assert shape(workload) == [("workers", 1, {"cpu": 1000, "memory": 200 * MI}),
                               ("driver", 1, {"cpu": 2000, "memory": 200 * MI})]
    assert workload.pod_sets[1].template_path == ("spec", "replicatedJobs", 1, "template", "spec", "template")


def test_jobset_count_is_replicas_times_job_pods():
    [workload] = derive_one("jobset/site/static/examples/simple/exclusive-placement.yaml",
                            "jobset.x-k8s.io/JobSet")
    # replicas 3 x min(parallelism 3, completions 3)
    assert [(ps.name, ps.count) for ps in workload.pod_sets] == [("workers", 9)]


# --- KubeRay -------------------------------------------------------------------------------

def test_rayjob_k8s_job_mode_adds_the_default_submitter():
    [workload] = derive_one("kuberay/ray-operator/config/samples/ray-job.sample.yaml", "ray.io/RayJob")
    assert shape(workload) == [
        ("head", 1, {"cpu": 1000, "memory": 2 * GI}),
        ("small-group", 1, {"cpu": 200}),
        ("submitter", 1, {"cpu": 500, "memory": 200 * MI}),   # KubeRay's default submitter
    ]
    submitter = workload.pod_sets[2]
    assert submitter.request_origins == {"cpu": "default:ray-job-submitter",
                                         "memory": "default:ray-job-submitter"}
    assert submitter.request_paths["cpu"] == ("spec", "submitterPodTemplate")


def test_rayjob_sidecar_mode_puts_the_submitter_in_the_head_pod():
    [workload] = derive_one("kuberay/ray-operator/config/samples/ray-job.sidecar-mode.yaml", "ray.io/RayJob")
    # head 1 cpu / 2Gi + submitter 500m / 200Mi; no submitter pod set
    assert shape(workload) == [("head", 1, {"cpu": 1500, "memory": 2 * GI + 200 * MI}),
                               ("small-group", 1, {"cpu": 1000, "memory": GI})]


def test_rayjob_autoscaler_default_sidecar():
    [workload] = derive_one(KUEUE + "jobs/ray-job-autoscaling-sample.yaml", "ray.io/RayJob")
    head = workload.pod_sets[0]
    # head requests 1 cpu; the in-tree autoscaler adds 500m and 512Mi
    assert head.requests == {"cpu": 1500, "memory": 512 * MI}
    assert head.request_paths["memory"] == ("spec", "rayClusterSpec", "enableInTreeAutoscaling")
    assert workload.queue_name == "user-queue"


def test_raycluster_autoscaler_resources_from_autoscaler_options():
    [workload] = derive_one("kuberay/ray-operator/config/samples/ray-cluster.autoscaler.yaml",
                            "ray.io/RayCluster")
    head = workload.pod_sets[0]
    # ray-head 1 cpu / 2Gi + autoscalerOptions.resources 500m / 512Mi
    assert head.requests == {"cpu": 1500, "memory": 2 * GI + 512 * MI}
    assert head.request_paths["cpu"] == ("spec", "headGroupSpec", "template", "spec", "containers", 0,
                                         "resources", "requests", "cpu")


def test_raycluster_multi_host_worker_group():
    [workload] = derive_one("kuberay/ray-operator/config/samples/ray-cluster.tpu-v6e-16-multihost.yaml",
                            "ray.io/RayCluster")
    # replicas 1 x numOfHosts 4; 200G of memory is 200 * 10**9 bytes
    assert shape(workload) == [
        ("head", 1, {"cpu": 8000, "memory": 40 * 10**9}),
        ("tpu-group", 4, {"cpu": 24000, "google.com/tpu": 4, "memory": 200 * 10**9}),
    ]


def test_rayjob_on_an_existing_cluster_is_not_managed():
    assert derive_one("kuberay/ray-operator/config/samples/ray-job.use-existing-raycluster.yaml",
                      "ray.io/RayJob") == []


def test_rayservice():
    [workload] = derive_one(KUEUE + "jobs/ray-service-sample.yaml", "ray.io/RayService")
    assert shape(workload) == [("head", 1, {"cpu": 2000, "memory": 4 * GI}),
                               ("small-group", 1, {"cpu": 1000, "memory": 2 * GI})]


# --- Kubeflow -------------------------------------------------------------------------------

def test_pytorchjob_replica_types_become_lowercase_pod_sets():
    [workload] = derive_one(KUEUE + "jobs/sample-pytorchjob.yaml", "kubeflow.org/PyTorchJob")
    assert shape(workload) == [("master", 1, {"cpu": 1000, "memory": 200 * MI}),
                               ("worker", 1, {"cpu": 1000, "memory": 200 * MI})]
    assert workload.pod_sets[1].template_path == ("spec", "pytorchReplicaSpecs", "Worker", "template")


def test_pytorchjob_from_the_trainer_repository():
    [workload] = derive_one("trainer/examples/pytorch/smoke-dist/pytorch_job_sendrecv.yaml",
                            "kubeflow.org/PyTorchJob")
    assert [(ps.name, ps.count) for ps in workload.pod_sets] == [("master", 1), ("worker", 3)]
    assert workload.queue_name is None


def test_mpijob_launcher_first():
    [workload] = derive_one(KUEUE + "jobs/sample-mpijob.yaml", "kubeflow.org/MPIJob")
    assert shape(workload) == [("launcher", 1, {"cpu": 1000, "memory": GI}),
                               ("worker", 2, {"cpu": 1000, "memory": GI})]


TRAINER = "trainer/examples/yaml/"
TORCH_RUNTIME = "trainer/manifests/base/runtimes/torch_distributed.yaml"


def test_trainjob_with_its_cluster_training_runtime():
    objects, inventory = load_corpus(TRAINER + "03-kueue-integration.yaml", TORCH_RUNTIME)
    [workload] = derive_workloads(only(objects, "trainer.kubeflow.org/TrainJob"), inventory)
    # numNodes 3 from the TrainJob; resourcesPerNode requests 2 cpu / 4Gi
    assert shape(workload) == [("node", 3, {"cpu": 2000, "memory": 4 * GI})]
    assert workload.queue_name == "training-queue"
    node = workload.pod_sets[0]
    assert node.template_path == ("spec", "runtimeRef")
    assert node.request_paths["memory"] == ("spec", "trainer", "resourcesPerNode", "requests", "memory")


def test_trainjob_with_a_namespaced_runtime_and_an_initializer():
    objects, inventory = load_corpus(TRAINER + "05-multi-step.yaml")
    [workload] = derive_workloads(only(objects, "trainer.kubeflow.org/TrainJob"), inventory)
    # the dataset initializer is a pod set of its own and counts at the same time
    assert [(ps.name, ps.count) for ps in workload.pod_sets] == [("dataset-initializer", 1), ("node", 2)]


def test_trainjob_mpi_runtime_leaves_one_node_to_the_launcher():
    text = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: ds}
spec:
  runtimeRef: {name: deepspeed-distributed}
  trainer:
    numNodes: 4
    resourcesPerNode: {requests: {nvidia.com/gpu: 1}}
"""
    objects, inventory = load_text(text, corpus_path("trainer/manifests/base/runtimes/deepspeed_distributed.yaml"))
    [workload] = derive_workloads(only(objects, "trainer.kubeflow.org/TrainJob"), inventory)
    # runLauncherAsNode: 3 node pods + the launcher; both run the trainer container
    assert shape(workload) == [("node", 3, {"nvidia.com/gpu": 1}), ("launcher", 1, {"nvidia.com/gpu": 1})]


def test_trainjob_without_its_runtime_has_no_pod_sets_and_a_problem():
    [workload] = derive_one(TRAINER + "01-multi-node.yaml", "trainer.kubeflow.org/TrainJob")
    assert workload.pod_sets == []
    [(path, message)] = workload.problems
    assert path == ("spec", "runtimeRef", "name")
    assert "ClusterTrainingRuntime 'torch-distributed' is not among the inputs" in message


# --- serving ----------------------------------------------------------------------------------

def test_deployment_is_one_workload_per_pod():
    [workload] = derive_one(KUEUE + "serving-workloads/sample-deployment.yaml", "apps/Deployment")
    assert shape(workload) == [("main", 1, {"cpu": 100})]
    assert workload.per_pod and workload.replicas == 3
    assert workload.queue_name == "user-queue"


def test_deployment_with_the_queue_label_only_on_the_pod_template():
    text = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  template:
    metadata: {labels: {kueue.x-k8s.io/queue-name: lq}}
    spec: {containers: [{name: c}]}
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    assert workload.queue_name == "lq"
    assert workload.queue_name_path == ("spec", "template") + QUEUE_PATH
    assert workload.replicas == 1 and workload.namespace == "team"


def test_statefulset_is_one_group_of_replicas():
    [workload] = derive_one(KUEUE + "serving-workloads/sample-statefulset.yaml", "apps/StatefulSet")
    assert shape(workload) == [("main", 3, {"cpu": 100})]
    assert not workload.per_pod


def test_leaderworkerset_one_workload_per_group():
    workloads = derive_one(KUEUE + "serving-workloads/sample-leaderworkerset.yaml",
                           "leaderworkerset.x-k8s.io/LeaderWorkerSet")
    # replicas 2 groups; size 3 = 1 leader + 2 workers
    assert [w.name for w in workloads] == ["nginx-leaderworkerset-0", "nginx-leaderworkerset-1"]
    for workload in workloads:
        assert shape(workload) == [("leader", 1, {"cpu": 100}), ("worker", 2, {"cpu": 200})]
        assert workload.queue_name == "user-queue"


def test_leaderworkerset_without_leader_template_uses_main():
    workloads = derive_one("lws/docs/examples/sample/lws.yaml", "leaderworkerset.x-k8s.io/LeaderWorkerSet")
    assert len(workloads) == 3
    assert shape(workloads[0]) == [("main", 4, {"cpu": 50})]


def test_inferenceservice_model_container_inline():
    [workload] = derive_one("kserve/docs/samples/storage/hf/hf_isvc.yaml", "serving.kserve.io/InferenceService")
    assert workload.name == "huggingface-llama2-predictor"
    assert shape(workload) == [("main", 1, {"cpu": 6000, "memory": 24 * GI, "nvidia.com/gpu": 1})]
    assert workload.per_pod and workload.replicas == 1
    pod_set = workload.pod_sets[0]
    assert pod_set.spec_path == ("spec", "predictor")
    assert pod_set.request_paths["cpu"] == ("spec", "predictor", "model", "resources", "requests", "cpu")


def test_inferenceservice_predictor_and_transformer():
    workloads = derive_one("kserve/docs/samples/kafka/mnist_kafka.yaml", "serving.kserve.io/InferenceService")
    assert [(w.name, shape(w)) for w in workloads] == [
        ("mnist-predictor", [("main", 1, {"cpu": 100, "memory": GI})]),      # tensorflow framework key
        ("mnist-transformer", [("main", 1, {"cpu": 100, "memory": GI})]),
    ]
    assert workloads[0].pod_sets[0].request_paths["memory"] == (
        "spec", "predictor", "tensorflow", "resources", "requests", "memory")


def test_inferenceservice_collocated_containers_add_up():
    [workload] = derive_one("kserve/docs/samples/v1beta1/transformer/collocation/collocation.yaml",
                            "serving.kserve.io/InferenceService")
    # two containers of 100m / 256Mi each
    assert shape(workload) == [("main", 1, {"cpu": 200, "memory": 512 * MI})]


def test_inferenceservice_queue_label_from_the_predictor_labels():
    text = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: m}
spec:
  predictor:
    minReplicas: 0
    labels: {kueue.x-k8s.io/queue-name: serving}
    model: {modelFormat: {name: sklearn}, resources: {requests: {cpu: 2}}}
    containers: [{name: logger, resources: {requests: {cpu: 500m}}}]
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    assert workload.queue_name == "serving"
    assert workload.queue_name_path == ("spec", "predictor", "labels", "kueue.x-k8s.io/queue-name")
    assert workload.replicas == 0               # scale to zero
    assert shape(workload) == [("main", 1, {"cpu": 2500})]
    assert workload.pod_sets[0].request_paths["cpu"] == ("spec", "predictor", "model", "resources",
                                                         "requests", "cpu")


# --- plain pods ------------------------------------------------------------------------------

def test_pod_group_members_share_one_workload_key():
    objects, inventory = load_corpus(KUEUE + "pods-kueue/kueue-pod-group.yaml")
    workloads = [w for pod in objects for w in derive_workloads(pod, inventory)]
    assert [(w.name, w.group_name, w.group_total_count) for w in workloads] == [
        ("sample-group", "sample-group", 2), ("sample-group", "sample-group", 2)]
    assert [shape(w) for w in workloads] == [[("sample-leader-", 1, {"cpu": 3000})],
                                             [("sample-worker-", 1, {"cpu": 3000})]]
    assert all(w.queue_name == "user-queue" for w in workloads)


def test_single_pod():
    [workload] = derive_one(KUEUE + "pods-kueue/kueue-pod.yaml", "Pod")
    assert shape(workload) == [("main", 1, {"cpu": 3000})]
    assert workload.group_name is None
    assert workload.pod_sets[0].spec_path == ("spec",)


# --- other kinds -----------------------------------------------------------------------------

def test_sparkapplication_sized_like_spark():
    [workload] = derive_one(KUEUE + "jobs/sample-sparkapplication.yaml", "sparkoperator.k8s.io/SparkApplication")
    # memory 1g = 1024Mi; overhead factor "0" -> max(0, 384Mi) = 384Mi -> 1408Mi per pod
    assert shape(workload) == [("driver", 1, {"cpu": 1000, "memory": 1408 * MI}),
                               ("executor", 2, {"cpu": 1000, "memory": 1408 * MI})]
    assert workload.pod_sets[0].request_paths == {"cpu": ("spec", "driver", "coreRequest"),
                                                  "memory": ("spec", "driver", "memory")}
    assert workload.pod_sets[0].request_origins["memory"] == "default:spark-sizing"


def test_sparkapplication_python_overhead_and_defaults():
    text = """apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: py}
spec:
  type: Python
  driver: {cores: 2}
  executor: {instances: 3, memory: 4g, gpu: {name: nvidia.com/gpu, quantity: 1}}
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    # driver: 2 cores; 1g default memory + max(0.4 * 1024 = 409, 384) = 1433Mi
    # executor: 1 core default; 4096 + 0.4 * 4096 = 5734Mi (truncated); gpu from its limit
    assert shape(workload) == [("driver", 1, {"cpu": 2000, "memory": 1433 * MI}),
                               ("executor", 3, {"cpu": 1000, "memory": 5734 * MI, "nvidia.com/gpu": 1})]


def test_appwrapper_with_declared_pod_sets():
    [workload] = derive_one(KUEUE + "appwrapper/deployment-sample.yaml", "workload.codeflare.dev/AppWrapper")
    assert shape(workload) == [("0-0", 3, {"cpu": 100})]
    assert workload.pod_sets[0].template_path == ("spec", "components", 0, "template", "spec", "template")
    assert workload.queue_name == "user-queue"


def test_appwrapper_infers_pod_sets_of_the_wrapped_job():
    [workload] = derive_one(KUEUE + "appwrapper/pytorch-sample.yaml", "workload.codeflare.dev/AppWrapper")
    assert shape(workload) == [("0-master", 1, {"cpu": 1000}), ("0-worker", 1, {"cpu": 1000})]
    assert workload.pod_sets[0].request_paths["cpu"] == (
        "spec", "components", 0, "template", "spec", "pytorchReplicaSpecs", "Master", "template", "spec",
        "containers", 0, "resources", "requests", "cpu")


def test_tekton_pipelinerun_resolves_referenced_pipeline_and_tasks():
    base = KUEUE + "pod-based-workloads/"
    objects, inventory = load_corpus(base + "tekton-pipeline-run.yaml", base + "tekton-pipeline.yaml",
                                     base + "tekton-hello-task.yaml", base + "tekton-sleep-task.yaml")
    [workload] = derive_workloads(only(objects, "tekton.dev/PipelineRun"), inventory)
    assert shape(workload) == [("sleep", 1, {}), ("hello", 1, {})]   # the steps request nothing
    assert workload.per_pod and workload.queue_name == "my-local-queue"


def test_tekton_pipelinerun_alone_has_no_pod_sets():
    [workload] = derive_one(KUEUE + "pod-based-workloads/tekton-pipeline-run.yaml", "tekton.dev/PipelineRun")
    assert workload.pod_sets == [] and workload.queue_name == "my-local-queue"


def test_tekton_inline_pipeline_steps_and_step_template():
    text = """apiVersion: tekton.dev/v1
kind: PipelineRun
metadata: {name: build}
spec:
  pipelineSpec:
    tasks:
    - name: Compile
      taskSpec:
        stepTemplate: {computeResources: {requests: {memory: 1Gi}}}
        steps:
        - {name: fetch, computeResources: {requests: {cpu: 500m}}}
        - {name: make, computeResources: {requests: {cpu: "2", memory: 4Gi}}}
    - name: external
      taskRef: {name: not-here}
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    # steps: fetch 500m + 1Gi (template), make 2 + 4Gi (own) -> 2.5 cpu, 5Gi
    assert shape(workload) == [("compile", 1, {"cpu": 2500, "memory": 5 * GI})]
    assert workload.pod_sets[0].request_paths["cpu"] == (
        "spec", "pipelineSpec", "tasks", 0, "taskSpec", "steps", 0, "computeResources", "requests", "cpu")


def test_notebook_single_pod_with_notebook_labels():
    text = """apiVersion: kubeflow.org/v1
kind: Notebook
metadata:
  name: nb
  namespace: ds
  labels: {kueue.x-k8s.io/queue-name: notebooks}
spec:
  template:
    spec:
      containers: [{name: nb, resources: {requests: {cpu: "1", memory: 2Gi}}}]
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    assert shape(workload) == [("main", 1, {"cpu": 1000, "memory": 2 * GI})]
    assert workload.queue_name == "notebooks"
    assert workload.pod_sets[0].template["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "notebooks"


def test_kueue_workload_object():
    text = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: wl, namespace: team}
spec:
  queueName: team-queue
  priorityClassName: high
  podSets:
  - name: driver
    count: 1
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
  - name: workers
    count: 8
    minCount: 2
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: 250m}}}]}}
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    assert shape(workload) == [("driver", 1, {"cpu": 1000}), ("workers", 8, {"cpu": 250})]
    assert workload.pod_sets[1].min_count == 2
    assert (workload.queue_name, workload.queue_name_path) == ("team-queue", ("spec", "queueName"))
    assert workload.priority_class == "high"


def test_priority_class_label():
    text = """apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: urgent}
spec: {template: {spec: {containers: [{name: c}]}}}
"""
    objects, inventory = load_text(text)
    assert derive_workloads(objects[0], inventory)[0].priority_class == "urgent"


def test_non_workload_kinds_have_no_workloads():
    objects, inventory = load_corpus(KUEUE + "admin/single-clusterqueue-setup.yaml")
    assert objects and all(derive_workloads(obj, inventory) == [] for obj in objects)


# --- the namespace and the Kueue Configuration change the numbers ------------------------

def test_limit_range_and_runtime_class_of_the_namespace_apply():
    text = """apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: default}
spec:
  limits:
  - type: Container
    defaultRequest: {ephemeral-storage: 1Gi}
---
apiVersion: v1
kind: LimitRange
metadata: {name: elsewhere, namespace: other}
spec:
  limits: [{type: Container, defaultRequest: {cpu: "9"}}]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead: {podFixed: {cpu: 250m}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      runtimeClassName: kata
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(only(objects, "batch/Job"), inventory)
    # cpu 1 + overhead 250m; ephemeral-storage injected by the default namespace's LimitRange
    assert workload.pod_sets[0].requests == {"cpu": 1250, "ephemeral-storage": GI}
    assert workload.pod_sets[0].request_origins["ephemeral-storage"] == "limit-range:defaults"


def test_configuration_in_a_configmap_transforms_the_hami_deployment():
    configmap = """apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    resources:
      transformations:
      - input: nvidia.com/gpucores
        strategy: Replace
        multiplyBy: nvidia.com/gpu
        outputs: {nvidia.com/total-gpucores: "1"}
      - input: nvidia.com/gpumem
        strategy: Replace
        multiplyBy: nvidia.com/gpu
        outputs: {nvidia.com/total-gpumem: "1"}
"""
    objects, inventory = load_text(configmap, corpus_path(KUEUE + "serving-workloads/sample-hami.yaml"))
    [workload] = derive_workloads(only(objects, "apps/Deployment"), inventory)
    pod_set = workload.pod_sets[0]
    assert pod_set.raw_requests == {"nvidia.com/gpu": 2, "nvidia.com/gpucores": 30, "nvidia.com/gpumem": 1024}
    # 30 cores x 2 vGPUs and 1024 MiB x 2 vGPUs, which the sample's ClusterQueue covers
    assert pod_set.requests == {"nvidia.com/gpu": 2, "nvidia.com/total-gpucores": 60,
                                "nvidia.com/total-gpumem": 2048}
    assert workload.namespace == "kueue-test"


def test_workloads_of_caches_on_the_object():
    objects, inventory = load_corpus(KUEUE + "jobs/sample-job.yaml")
    job = only(objects, "batch/Job")
    assert workloads_of(job, inventory) is workloads_of(job, inventory)


# --- malformed input -----------------------------------------------------------------------

def test_bad_values_become_problems():
    text = """apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kueue.x-k8s.io/queue-name: 7}
  annotations: {kueue.x-k8s.io/job-min-parallelism: "lots"}
spec:
  parallelism: "3"
  template:
    spec:
      containers:
      - {name: c, resources: {requests: {cpu: 1.2.3, memory: 10Gb}}}
      - just-a-string
"""
    objects, inventory = load_text(text)
    [workload] = derive_workloads(objects[0], inventory)
    assert shape(workload) == [("main", 1, {})]
    assert workload.queue_name is None
    paths = [path for path, _ in workload.problems]
    assert paths == [
        ("spec", "parallelism"),
        ("metadata", "annotations", "kueue.x-k8s.io/job-min-parallelism"),
        QUEUE_PATH,
        ("spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"),
        ("spec", "template", "spec", "containers", 0, "resources", "requests", "memory"),
        ("spec", "template", "spec", "containers", 1),
    ]


WRONG_VALUES = [None, "text", 7, -3, True, [], {}, [1, "x"], {"a": 1}, 0.5]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _replaced(data, path, value):
    mutated = copy.deepcopy(data)
    node = mutated
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return mutated


def _workload_objects():
    import glob

    from helpers_load import CORPUS, load_objects

    files = sorted(glob.glob(f"{CORPUS}/**/*.yaml", recursive=True))
    objects = [obj for path in files for obj in load_objects(path)]
    return [obj for obj in objects if obj.info is not None and obj.info.role == "workload"
            and not obj.key.startswith(("anyscale.com", "skypilot.co"))], Inventory(objects)


def test_every_corpus_workload_derives_without_internal_errors():
    objects, inventory = _workload_objects()
    assert len(objects) > 90
    for obj in objects:
        for workload in derive_workloads(obj, inventory):
            assert not any("could not derive" in message for _, message in workload.problems), obj.path


def test_wrong_types_anywhere_never_raise():
    objects, inventory = _workload_objects()
    rng = random.Random(20240611)
    for obj in objects:
        paths = [path for path in _paths(obj.data) if path and path[0] == "spec"]
        for path in rng.sample(paths, min(len(paths), 25)):
            mutated = _replaced(obj.data, path, rng.choice(WRONG_VALUES))
            fake = SimpleNamespace(key=obj.key, data=mutated, name=obj.name, namespace=obj.namespace)
            for workload in derive_workloads(fake, inventory):
                internal = [m for _, m in workload.problems if "could not derive" in m]
                assert not internal, (obj.path, path, internal)
