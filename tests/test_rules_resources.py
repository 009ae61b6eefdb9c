"""Resource, coverage, gang and placement rules (KQ301-KQ320, KQ701-KQ703) beyond their fixtures:
corpus runs, ambiguous inputs, and the decisions that keep them quiet when the run cannot tell."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS

from kueuelint import pipeline
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
from kueuelint.config import Config

RULES = load_rule_dirs([builtin_rules_dir()])
MINE = ("KQ301", "KQ302", "KQ310", "KQ311", "KQ312", "KQ320", "KQ701", "KQ702", "KQ703")
EXAMPLES = CORPUS / "kueue" / "site" / "static" / "examples"


def findings(paths, **config):
    cfg = Config()
    for key, value in config.items():
        setattr(cfg, key, value)
    result = pipeline.check(pipeline.load_inputs([str(p) for p in paths], cfg), cfg, RULES)
    return [f for f in result.findings if f.code in MINE]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu, memory]
      flavors:
        - name: default
          resources:
            - {name: cpu, nominalQuota: 8}
            - {name: memory, nominalQuota: 32Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
          - name: w
            image: x
            resources:
              limits: {cpu: "1", nvidia.com/gpu: 1}
"""


def test_lws_groups_give_one_finding_per_request(tmp_path):
    found = findings([write(tmp_path, "all.yaml", QUEUES + "---\n" + LWS)])
    # three groups, one Workload each, all from the same template line
    assert len([f for f in found if f.code == "KQ310"]) == 1
    assert len([f for f in found if f.code == "KQ311"]) == 1


def test_queues_defined_twice_differently_are_not_judged(tmp_path):
    other = QUEUES.replace("[cpu, memory]", "[cpu, memory, nvidia.com/gpu]").replace(
        "{name: memory, nominalQuota: 32Gi}", "{name: memory, nominalQuota: 32Gi}\n"
        "            - {name: nvidia.com/gpu, nominalQuota: 8}")
    paths = [write(tmp_path, "a.yaml", QUEUES), write(tmp_path, "b.yaml", other),
             write(tmp_path, "lws.yaml", LWS)]
    assert findings(paths) == []


def test_identical_duplicates_are_not_ambiguous(tmp_path):
    paths = [write(tmp_path, "a.yaml", QUEUES), write(tmp_path, "b.yaml", QUEUES),
             write(tmp_path, "lws.yaml", LWS)]
    assert {f.code for f in findings(paths)} == {"KQ310", "KQ311"}


def test_one_file_without_queues_is_quiet(tmp_path):
    assert findings([write(tmp_path, "lws.yaml", LWS)]) == []


COHORT_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: big
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  parallelism: 4
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: x
          resources:
            requests: {cpu: "4"}
"""


def test_cohort_without_borrowing_limit_needs_a_complete_run(tmp_path):
    queues = QUEUES.replace("  namespaceSelector: {}\n", "  namespaceSelector: {}\n  cohortName: shared\n")
    path = write(tmp_path, "all.yaml", queues + "---\n" + COHORT_JOB)
    assert findings([path]) == []
    # With the run declared complete, the cohort is known to hold nothing else: 16 > 8.
    found = findings([path], require_complete=True)
    assert [f.code for f in found] == ["KQ320"]
    assert "16 cpu" in found[0].message and "8 cpu" in found[0].message


def test_zero_requests_follow_the_kueue_version(tmp_path):
    job = COHORT_JOB.replace('requests: {cpu: "4"}', 'requests: {cpu: "1", example.com/x: 0}')
    path = write(tmp_path, "all.yaml", QUEUES + "---\n" + job)
    assert findings([path], kueue_version=(0, 19)) == []
    assert {f.code for f in findings([path], kueue_version=(0, 15))} == {"KQ310", "KQ311"}


# --- Kueue's own examples: no error alone, or with the queue setup they are written for ---------

def _corpus_files():
    return sorted(CORPUS.rglob("*.yaml"))


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_file_alone_has_no_errors(path):
    assert [f.message for f in findings([path]) if str(f.severity) == "error"] == []


PAIRS = [
    ("admin/single-clusterqueue-setup.yaml", "jobs"),
    ("admin/shared-quota-setup.yaml", "admin/shared-quota-sample-job.yaml"),
    ("getting-started/quick-start-setup.yaml", "getting-started/quick-start-job.yaml"),
    ("provisioning/provisioning-setup.yaml", "provisioning/sample-job.yaml"),
    ("dra/sample-dra-queues.yaml", "dra/sample-dra-extended-resource-job.yaml"),
    ("tas/sample-gpu-queues.yaml", "serving-workloads/sample-leaderworkerset-tas.yaml"),
    ("tas/sample-queues.yaml", "tas/sample-job-required.yaml"),
    ("admin/single-clusterqueue-setup.yaml", "serving-workloads"),
    ("admin/single-clusterqueue-setup.yaml", "pods-kueue"),
]


@pytest.mark.parametrize("setup, jobs", PAIRS)
def test_kueue_examples_with_their_queues_have_no_errors(setup, jobs):
    target = EXAMPLES / jobs
    files = sorted(target.glob("*.yaml")) if target.is_dir() else [target]
    for job in files:
        if job.name.endswith("-setup.yaml") or "queues" in job.name:
            continue
        errors = [f.message for f in findings([EXAMPLES / setup, job]) if str(f.severity) == "error"]
        assert errors == [], job.name
