"""Queue-label, workload-metadata and pod-group rules (KQ202–KQ212, KQ601–KQ610): behaviour the
fixtures cannot show (several files, context files, versions, one finding per mistake)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from conftest import CORPUS
from kueuelint import pipeline
from kueuelint.checks.builtin.queue_labels import name_problem
from kueuelint.checks.builtin.workload_metadata import gate_problems
from kueuelint.config import Config, from_mapping
from kueuelint.derive.metadata import outline

MINE = ("KQ2", "KQ6")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def findings(paths, config: Config | None = None, context=()):
    config = config or Config()
    inputs = pipeline.load_inputs([str(p) for p in paths], config,
                                  extra_context=tuple(str(c) for c in context))
    result = pipeline.check(inputs, config)
    return [f for f in result.findings if f.code.startswith(MINE) and f.code != "KQ201"]


POD = """
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/pod-group-name: g
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "{count}"
spec:
  containers: [{{name: main, image: busybox}}]
"""


def test_gate_names():
    assert gate_problems("example.com/a, example.com/b") == []
    assert gate_problems("a") == ["'a' must be a domain-prefixed path (such as \"acme.io/foo\")"]
    assert "duplicate gate name: x.io/a" in gate_problems("x.io/a,x.io/a")
    assert gate_problems("x.io/a,") == ["cannot contain empty gate names"]
    assert any("longer than 63" in p for p in gate_problems("example.com/" + "g" * 60))
    assert any("not a DNS-1123 subdomain" in p for p in gate_problems("Example.com/a"))


def test_queue_names():
    assert name_problem("team-a.gpu") is None
    assert "did you mean 'team-a'" in name_problem("Team-A")
    assert "63" in name_problem("q" * 64)


def test_metadata_maps_finds_nested_templates_but_not_status():
    data = {"metadata": {"labels": {"a": "1"}},
            "spec": {"jobs": [{"template": {"metadata": {"labels": {"b": "2"}}}}]},
            "status": {"metadata": {"labels": {"c": "3"}}}}
    assert [path for path, _ in outline(data).labels] == [
        ("metadata", "labels"), ("spec", "jobs", 0, "template", "metadata", "labels")]


def test_labels_as_string_is_one_finding(tmp_path):
    path = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: train
          namespace: team-a
          labels: user-queue
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: main, image: busybox}]
        """)
    assert [f.code for f in findings([path])] == ["KQ202"]


def test_numeric_queue_name_is_only_a_type_error(tmp_path):
    path = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: train
          namespace: team-a
          labels:
            kueue.x-k8s.io/queue-name: 42
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: main, image: busybox}]
        """)
    assert [f.code for f in findings([path])] == ["KQ202"]


def test_missing_local_queue_is_reported_only_when_the_run_could_know(tmp_path):
    job = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: train
          namespace: team-a
          labels:
            kueue.x-k8s.io/queue-name: user-queue
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: main, image: busybox}]
        """)
    queues = write(tmp_path, "queues.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {name: other-queue, namespace: team-a}
        spec: {clusterQueue: cq}
        """)
    assert findings([job]) == []                       # a one-file pre-commit run
    assert [f.code for f in findings([job], context=[queues])] == ["KQ205"]
    complete = from_mapping({"require-complete": True})
    assert [f.code for f in findings([job], complete)] == ["KQ205"]


def test_pod_group_split_over_files_is_counted_once(tmp_path):
    first = write(tmp_path, "a.yaml", POD.format(name="p0", count=2))
    second = write(tmp_path, "b.yaml", POD.format(name="p1", count=2) + "---\n"
                   + POD.format(name="p2", count=2))
    found = findings([first, second])
    assert [(f.code, Path(f.location.path).name) for f in found] == [("KQ606", "a.yaml")]
    # pods only seen as context count, but the finding goes to a checked pod
    found = findings([second], context=[first])
    assert [(f.code, Path(f.location.path).name) for f in found] == [("KQ606", "b.yaml")]


def test_pod_group_only_in_context_is_not_reported(tmp_path):
    first = write(tmp_path, "a.yaml", POD.format(name="p0", count=1))
    second = write(tmp_path, "b.yaml", POD.format(name="p1", count=1))
    other = write(tmp_path, "other.yaml", """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: unrelated, namespace: team-a}
        """)
    assert findings([other], context=[first, second]) == []


def test_a_large_pod_group_is_judged_once_not_once_per_pod(tmp_path, monkeypatch):
    """Each pod compared itself with every other pod of its group: n^2 for a group of n pods
    (copies of a pod-group sample make one big group; 560 files took two minutes)."""
    from kueuelint.checks.builtin import pod_groups
    reads = []
    read_total = pod_groups._total_text
    monkeypatch.setattr(pod_groups, "_total_text", lambda pod: reads.append(pod) or read_total(pod))
    pods = [POD.format(name=f"p{i}", count=1000) for i in range(300)]
    pods[7] = pods[7].replace("user-queue", "other-queue")
    found = findings([write(tmp_path, "big.yaml", "---\n".join(pods))])
    assert len(reads) < 10 * len(pods)      # the quadratic version read 300 x 300 counts
    assert sorted(f.code for f in found) == ["KQ605", "KQ607"]   # 300 of 1,000 pods
    assert "299 other pod(s) of the group have 'user-queue'" in next(
        f.message for f in found if f.code == "KQ605")


def test_elastic_and_gated_by_follow_the_kueue_version(tmp_path):
    path = write(tmp_path, "jobset.yaml", """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata:
          name: train
          namespace: team-a
          annotations:
            kueue.x-k8s.io/elastic-job: "true"
            kueue.x-k8s.io/admission-gated-by: "approval"
        spec:
          replicatedJobs: []
        """)
    assert sorted(f.code for f in findings([path])) == ["KQ209", "KQ210"]
    old = from_mapping({"kueue-version": "0.17"})
    assert findings([path], old) == []


def test_corpus_has_no_errors_from_these_rules():
    config = Config()
    result = pipeline.check(pipeline.load_inputs([str(CORPUS)], config), config)
    mine = [f for f in result.findings if f.code.startswith(MINE) and f.code != "KQ201"]
    assert [f for f in mine if f.severity.name == "ERROR"] == []
    # Kueue's own pod-group example is complete and consistent
    assert not [f for f in mine if "kueue-pod-group" in f.location.path]
    assert {f.code for f in mine} <= {"KQ205", "KQ211", "KQ212"}


def test_outline_finds_gates_everywhere_but_status_and_maps_outside_metadata():
    data = {"metadata": {"labels": {"a": "1"}, "x": {"metadata": {"labels": {"no": "1"}}}},
            "spec": {"schedulingGates": [{"name": "g1"}, "bad", {"metadata": {"annotations": {"b": "2"}}}],
                     "template": {"spec": {"schedulingGates": [{"name": "g2"}]}}},
            "status": {"schedulingGates": [{"name": "g3"}]}}
    found = outline(data)
    assert [path for path, _ in found.labels] == [("metadata", "labels")]
    assert [path for path, _ in found.annotations] == [("spec", "schedulingGates", 2, "metadata", "annotations")]
    assert found.gates == [(("spec", "schedulingGates", 0, "name"), "g1"),
                           (("spec", "template", "spec", "schedulingGates", 0, "name"), "g2")]
