"""KQ620–KQ665: job-integration and TAS rules, beyond what their fixtures show."""

from __future__ import annotations

import pytest

from helpers_load import CORPUS, load_corpus, load_text, only
from kueuelint.checks.api import RuleContext
from kueuelint.checks.builtin import integrations, tas

CODES = ("KQ620", "KQ621", "KQ630", "KQ631", "KQ632", "KQ633", "KQ634", "KQ635", "KQ640", "KQ641",
         "KQ650", "KQ651", "KQ652", "KQ660", "KQ661", "KQ665")


def ctx_of(inventory, version=(0, 19)):
    return RuleContext(inventory, version)


@pytest.mark.parametrize("version, limit", [((0, 16), 8), ((0, 17), 8), ((0, 18), 10), ((0, 19), 18),
                                            ((0, 20), 18)])
def test_pod_set_limit_follows_kueue_version(version, limit):
    assert integrations.max_pod_sets(version) == limit


@pytest.mark.parametrize("key, ok", [
    ("cloud.provider.com/topology-rack", True), ("kubernetes.io/hostname", True), ("rack", True),
    ("Rack Level", False), ("a/b/c", False), ("Example.com/rack", False), ("/rack", False),
    ("example.com/" + "x" * 64, False)])
def test_label_key_problem(key, ok):
    assert (tas.label_key_problem(key) is None) is ok


RAYJOB = """
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rj, namespace: team-a}
spec:
  entrypoint: python x.py
  rayClusterSpec:
    headGroupSpec: {template: {spec: {containers: [{name: h, image: ray}]}}}
"""


def test_unlabelled_job_is_managed_only_with_configuration_or_default_queue():
    objects, inventory = load_text(RAYJOB)
    assert integrations.managed(objects[0], ctx_of(inventory)) is None
    objects, inventory = load_text(RAYJOB + """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team-a}
spec: {clusterQueue: cq}
""")
    found = integrations.managed(only(objects, "ray.io/RayJob"), ctx_of(inventory))
    assert found is not None and found.queue == "default"


def test_selector_on_unknown_namespace_labels_does_not_claim_the_job():
    objects, inventory = load_text(RAYJOB + """---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
manageJobsWithoutQueueName: true
managedJobsNamespaceSelector: {matchLabels: {kueue: enabled}}
""")
    assert integrations.managed(only(objects, "ray.io/RayJob"), ctx_of(inventory)) is None


def test_rayjob_on_existing_cluster_only_is_never_checked():
    objects, inventory = load_text("""
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rj, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  clusterSelector: {ray.io/cluster: shared}
""")
    ctx = ctx_of(inventory)
    for check in (integrations.rayjob_keeps_cluster, integrations.rayjob_existing_cluster,
                  integrations.rayjob_cluster_spec_missing):
        assert list(check(objects[0], ctx)) == []


def test_level_resolution_counts_every_definition_of_a_duplicated_queue():
    # Two setups in one run both define LocalQueue default/q, pointing at different queues; the
    # level exists behind one of them, so nothing is reported.
    setup = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: %(t)s}
spec: {levels: [{nodeLabel: %(level)s}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: %(t)s-rf}
spec: {nodeLabels: {pool: %(t)s}, topologyName: %(t)s}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: %(t)s-cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: %(t)s-rf, resources: [{name: cpu, nominalQuota: 9}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: %(t)s-cq}
---
"""
    job = """
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  template:
    metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: example.com/rack}}
    spec: {restartPolicy: Never, containers: [{name: m, image: busybox}]}
"""
    text = setup % {"t": "a", "level": "example.com/block"} + setup % {"t": "b", "level": "example.com/rack"} + job
    objects, inventory = load_text(text)
    job_obj = only(objects, "batch/Job")
    assert list(tas.tas_level_not_in_topology(job_obj, ctx_of(inventory))) == []
    objects, inventory = load_text(setup % {"t": "a", "level": "example.com/block"} + job)
    found = list(tas.tas_level_not_in_topology(only(objects, "batch/Job"), ctx_of(inventory)))
    assert len(found) == 1 and "example.com/block" in found[0].args["detail"]


def test_copies_of_one_setup_are_judged_once_each_in_linear_time():
    """A repository of samples repeats one setup in many files. Every job was judged against every
    (flavor, topology) pair of every copy, n^3 in all: 150 copies of a KQ652 fixture took minutes."""
    import time
    from pathlib import Path
    one = (Path(__file__).parent.parent / "rules/integrations/KQ652/fail-level-missing.yaml").read_text()
    objects, inventory = load_text("---\n".join([one] * 120))
    jobs = [obj for obj in objects if obj.key == "batch/Job"]
    started = time.process_time()
    found = [list(tas.tas_level_not_in_topology(job, ctx_of(inventory))) for job in jobs]
    assert time.process_time() - started < 10     # about 0.1 s; the cubic version took minutes
    single, single_inventory = load_text(one)
    expected = [len(list(tas.tas_level_not_in_topology(job, ctx_of(single_inventory))))
                for job in single if job.key == "batch/Job"]
    assert [len(f) for f in found] == expected * 120 and sum(expected) > 0


def test_no_findings_on_the_upstream_examples():
    from kueuelint import pipeline
    from kueuelint.config import Config

    config = Config()
    result = pipeline.check(pipeline.load_inputs([CORPUS], config), config)
    assert [f for f in result.findings if f.code in CODES] == []


def test_queue_labelled_kuberay_samples_are_caught():
    # Mistake #8: KubeRay's own samples, queue-labelled, would all be rejected.
    objects, inventory = load_corpus("kuberay/ray-operator/config/samples/ray-cluster.autoscaler.yaml",
                                     "kuberay/ray-operator/config/samples/ray-job.sample.yaml")
    for obj in objects:
        if obj.key.startswith("ray.io/"):
            obj.data["metadata"].setdefault("labels", {})["kueue.x-k8s.io/queue-name"] = "user-queue"
    ctx = ctx_of(inventory)
    cluster = only(objects, "ray.io/RayCluster")
    job = only(objects, "ray.io/RayJob")
    assert len(list(integrations.ray_autoscaling_not_elastic(cluster, ctx))) == 1
    assert len(list(integrations.rayjob_keeps_cluster(job, ctx))) == 1
