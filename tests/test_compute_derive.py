from __future__ import annotations

import pytest

from test_compute_support import inventory_of, load, load_one
from kueuelint.derive.compute_configs import (accelerator_request, derive_compute_config_workloads,
                                              instance_types_from_values)
from kueuelint.models.skypilot import effective

GANG = """
advanced_instance_config:
  metadata:
    labels: {kueue.x-k8s.io/queue-name: team-a}
head_node: {instance_type: 8CPU-32GB}
worker_nodes:
  - name: gpu
    instance_type: 8CPU-32GB-1xT4
    min_nodes: 2
    max_nodes: 5
  - name: custom
    required_resources: {CPU: 16, memory: 64Gi, GPU: 2}
    min_nodes: 1
    max_nodes: 1
    advanced_instance_config:
      spec:
        containers:
          - name: ray
            resources:
              limits: {vpc.amazonaws.com/efa: 1}
"""


def test_anyscale_minimum_batch_is_one_group():
    obj, inventory = load_one(GANG, "compute_config.yaml")
    main, autoscaled = derive_compute_config_workloads(obj, inventory)
    assert main.name == main.group_name == "compute_config-min"
    assert [(ps.name, ps.count) for ps in main.pod_sets] == [("head", 1), ("gpu", 2), ("custom", 1)]
    assert main.group_total_count == 4
    assert main.queue_name == "team-a" and not main.per_pod
    assert main.pod_sets[0].requests == {"cpu": 8000, "memory": 32 * 2**30}
    assert main.pod_sets[1].requests["nvidia.com/gpu"] == 1
    assert main.pod_sets[2].requests == {"cpu": 16000, "memory": 64 * 2**30, "nvidia.com/gpu": 2,
                                         "vpc.amazonaws.com/efa": 1}
    assert autoscaled.per_pod and autoscaled.replicas == 3
    assert [ps.count for ps in autoscaled.pod_sets] == [1]


def test_anyscale_request_paths_point_at_the_source():
    obj, inventory = load_one(GANG)
    main = derive_compute_config_workloads(obj, inventory)[0]
    custom = main.pod_sets[2]
    assert custom.request_paths["cpu"] == ("worker_nodes", 1, "required_resources", "CPU")
    assert custom.request_paths["vpc.amazonaws.com/efa"][-2:] == ("limits", "vpc.amazonaws.com/efa")


def test_instance_type_table_from_operator_configmap_and_names():
    config = load("head_node: {instance_type: big}\nworker_nodes:\n"
                  "  - {name: w, instance_type: 16CPU-64GB-2xA10G, min_nodes: 1, max_nodes: 1}\n")
    table = load("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: instance-types, namespace: anyscale}
        data:
          instance_types.yaml: |
            big:
              resources: {CPU: 32, memory: 128Gi, example.com/fpga: 1}
        """)
    main = derive_compute_config_workloads(config[0], inventory_of(config, table))[0]
    assert main.pod_sets[0].requests == {"cpu": 32000, "memory": 128 * 2**30, "example.com/fpga": 1}
    assert main.pod_sets[1].requests == {}   # the operator's table is authoritative
    alone = load("worker_nodes:\n  - {name: w, instance_type: 16CPU-64GB-2xA10G, min_nodes: 1}\n")
    main = derive_compute_config_workloads(alone[0], inventory_of(alone))[0]
    assert main.pod_sets[1].requests == {"cpu": 16000, "memory": 64 * 2**30, "nvidia.com/gpu": 2}


def test_helm_values_table():
    values = {"workloads": {"instanceTypes": {"defaults": {"a": {"resources": {"CPU": 1}}},
                                              "additional": {"b": {"resources": {"GPU": 1}}}}}}
    assert instance_types_from_values(values) == {"a": {"CPU": 1}, "b": {"GPU": 1}}


def test_unknown_instance_type_is_a_problem_only_with_kueue():
    vm, inventory = load_one("head_node: {instance_type: m5.2xlarge}\n")
    assert derive_compute_config_workloads(vm, inventory)[0].problems == []
    k8s, inventory = load_one("head_node:\n  instance_type: m5.2xlarge\n  advanced_instance_config:\n"
                              "    metadata: {labels: {kueue.x-k8s.io/queue-name: q}}\n")
    assert "not in the instance-type table" in derive_compute_config_workloads(k8s, inventory)[0].problems[0][1]


@pytest.mark.parametrize("resources,expected", [
    ("{}", {"cpu": 2000, "memory": 2 * 10**9}),
    ("{cpus: 4+, memory: 2x}", {"cpu": 4000, "memory": 8 * 10**9}),
    ("{accelerators: 'A100:2'}", {"cpu": 8000, "memory": 32 * 10**9, "nvidia.com/gpu": 2}),
    ("{cpus: 2, memory: 512MB, ephemeral_storage: 50}",
     {"cpu": 2000, "memory": 512 * 10**6, "ephemeral-storage": 50 * 10**9}),
    ("{cpus: 1, accelerators: {tpu-v5-lite-podslice: 4}}",
     {"cpu": 1000, "memory": 4 * 10**9, "google.com/tpu": 4}),
])
def test_skypilot_requests_and_defaults(resources, expected):
    obj, inventory = load_one(f"resources: {resources}\nrun: x\n")
    workload = derive_compute_config_workloads(obj, inventory)[0]
    assert workload.pod_sets[0].requests == expected


def test_accelerator_names():
    assert accelerator_request("MI300X:8") == ("amd.com/gpu", 8)
    assert accelerator_request(["L4:1", "T4:1"]) == ("nvidia.com/gpu", 1)
    assert accelerator_request(None) == (None, 0)


def test_ordered_candidate_overrides_base():
    obj, inventory = load_one("resources:\n  cpus: 2\n  ordered:\n    - {cpus: 8, labels: "
                              "{kueue.x-k8s.io/queue-name: q}}\n    - {cpus: 4}\nrun: x\n")
    workload = derive_compute_config_workloads(obj, inventory)[0]
    assert workload.pod_sets[0].requests["cpu"] == 8000 and workload.queue_name == "q"
    assert workload.queue_name_path == ("resources", "ordered", 0, "labels", "kueue.x-k8s.io/queue-name")


def test_skypilot_gang_versus_label_only():
    gang, inventory = load_one("num_nodes: 3\nconfig:\n  kubernetes:\n    kueue: {local_queue_name: q}\n"
                               "run: x\n")
    workload = derive_compute_config_workloads(gang, inventory)[0]
    assert (workload.per_pod, workload.pod_sets[0].count, workload.group_total_count) == (False, 3, 3)
    labels, inventory = load_one("num_nodes: 3\nresources: {labels: {kueue.x-k8s.io/queue-name: q}}\nrun: x\n")
    workload = derive_compute_config_workloads(labels, inventory)[0]
    assert (workload.per_pod, workload.replicas, workload.pod_sets[0].count) == (True, 3, 1)


def test_skypilot_precedence():
    user = load("""
        kubernetes:
          namespace: base
          kueue: {local_queue_name: global-q}
          provision_timeout: 30
          context_configs:
            prod: {quota: {queue: prod-q}, provision_timeout: 900}
        """, "home/.sky/config.yaml")
    project = load("kubernetes:\n  kueue: {local_queue_name: project-q}\n", "repo/.sky.yaml")
    task = load("resources: {infra: k8s/prod}\nrun: x\n", "task.yaml")
    settings = effective(task[0], inventory_of(project, user, task))
    assert settings.queue_option.name == "prod-q"      # context beats global, quota beats kueue
    assert settings.timeout.value == 900 and settings.namespace == "base"
    other = load("resources: {infra: k8s/dev}\nrun: x\n", "task2.yaml")
    assert effective(other[0], inventory_of(user, project, other)).queue_option.name == "project-q"
    own = load("config:\n  kubernetes:\n    quota: {queue: task-q}\nrun: x\n", "task3.yaml")
    assert effective(own[0], inventory_of(user, own)).queue_option.name == "task-q"


def test_skypilot_workspace_scope():
    config = load("""
        active_workspace: research
        kubernetes: {kueue: {local_queue_name: default-q}}
        workspaces:
          research:
            kubernetes: {namespace: research, kueue: {local_queue_name: research-q}}
        """, "config.yaml")
    task = load("resources: {cpus: 1}\nrun: x\n", "task.yaml")
    settings = effective(task[0], inventory_of(config, task))
    assert (settings.queue_option.name, settings.namespace) == ("research-q", "research")
