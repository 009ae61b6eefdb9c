"""``admit`` reads its inputs through the same front door as ``check``, so the project
configuration means the same to both: default-namespace, exclude, types and context."""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from pathlib import Path

from kueuelint.cli import EXIT_ERROR, EXIT_OK, main

# One ClusterQueue "cq" with 4 cpu and LocalQueue "lq" in namespace "ns" (the scenarios' setup).
QUEUES = (Path(__file__).parent.parent / "fixtures" / "admission" / "_setups" / "single.yaml").read_text()

JOB_WITHOUT_NAMESPACE = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j1, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  template:
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def _admit(tmp_path, config: str, *argv: str) -> tuple[int, dict | None, str]:
    (tmp_path / "kueuelint.yaml").write_text(textwrap.dedent(config) or "{}\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["admit", *argv, "--format", "json", "--config", str(tmp_path / "kueuelint.yaml")])
    return code, json.loads(out.getvalue()) if out.getvalue() else None, err.getvalue()


def _results(data: dict) -> dict:
    return {entry["workload"]: entry["result"] for entry in data["workloads"]}


def _setup(tmp_path, namespace: str = "default"):
    (tmp_path / "queues").mkdir()
    (tmp_path / "queues" / "queues.yaml").write_text(QUEUES.replace("namespace: ns}", f"namespace: {namespace}}}"))
    job = tmp_path / "job.yaml"
    job.write_text(JOB_WITHOUT_NAMESPACE)
    return str(tmp_path / "queues"), str(job)


def test_default_namespace_places_objects_without_one(tmp_path):
    queues, job = _setup(tmp_path, namespace="team-a")
    code, data, _ = _admit(tmp_path, "default-namespace: team-a\n", job, "--snapshot", queues)
    assert code == EXIT_OK
    assert _results(data) == {"team-a/j1": "admitted"}


def test_without_default_namespace_the_job_lands_in_default(tmp_path):
    queues, job = _setup(tmp_path, namespace="team-a")
    code, data, _ = _admit(tmp_path, "", job, "--snapshot", queues)
    assert list(_results(data)) == ["default/j1"]
    assert _results(data)["default/j1"] != "admitted"


def test_exclude_leaves_out_snapshot_files(tmp_path):
    queues, job = _setup(tmp_path)
    (tmp_path / "queues" / "scratch.yaml").write_text("kind: [unclosed\n")
    code, _, err = _admit(tmp_path, "", job, "--snapshot", queues)
    assert code == EXIT_ERROR and "scratch.yaml:1:" in err
    code, data, _ = _admit(tmp_path, "exclude: [scratch.yaml]\n", job, "--snapshot", queues)
    assert code == EXIT_OK
    assert _results(data) == {"default/j1": "admitted"}


def test_exclude_applies_to_workload_paths_too(tmp_path):
    queues, job = _setup(tmp_path)
    code, data, _ = _admit(tmp_path, "exclude: [job.yaml]\n", job, "--snapshot", queues)
    assert code == EXIT_OK
    assert data["workloads"] == []


SKY_TASK_WITHOUT_MARKERS = """\
name: train
resources: {cpus: 1, memory: 2}
config:
  kubernetes:
    kueue: {local_queue_name: lq}
"""


def test_types_make_a_compute_config_a_workload(tmp_path):
    queues, _ = _setup(tmp_path)
    task = tmp_path / "task.yaml"
    task.write_text(SKY_TASK_WITHOUT_MARKERS)
    _, data, _ = _admit(tmp_path, "", str(task), "--snapshot", queues)
    assert data["workloads"] == []      # not recognised by its shape alone
    code, data, _ = _admit(tmp_path, 'types: {"task.yaml": skypilot-task}\n', str(task), "--snapshot", queues)
    assert code == EXIT_OK
    assert _results(data) == {"default/train": "admitted"}


def test_context_adds_to_the_snapshot(tmp_path):
    _, job = _setup(tmp_path)
    code, data, _ = _admit(tmp_path, "context: [queues/]\n", job)
    assert code == EXIT_OK
    assert _results(data) == {"default/j1": "admitted"}


def test_a_missing_context_path_is_an_error(tmp_path):
    _, job = _setup(tmp_path)
    code, data, err = _admit(tmp_path, "context: [queues-typo/]\n", job)
    assert code == EXIT_ERROR and data is None
    assert "queues-typo" in err and "no such file or directory" in err
