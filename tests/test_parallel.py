"""-j N gives exactly the findings of -j 1, including cross-object ones across shards."""

from __future__ import annotations

import shutil

import pytest

from conftest import CORPUS, REPO

from kueuelint import pipeline
from kueuelint import cores
from kueuelint.checks import parallel
from kueuelint.config import Config


def findings_of(result):
    return [(f.location, f.code, f.message, f.severity) for f in result.findings]


@pytest.fixture
def repo_copy(tmp_path):
    shutil.copytree(CORPUS, tmp_path / "corpus")
    shutil.copytree(REPO / "fixtures" / "examples", tmp_path / "examples")
    (tmp_path / "missing-dir-is-fine").mkdir()
    return tmp_path


def test_parallel_equals_serial_on_the_corpus(repo_copy, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_FILES_PER_WORKER", 1)
    config = Config()
    rules = pipeline.load_rules(config)
    paths = [str(repo_copy), str(repo_copy / "nope.yaml")]
    serial = pipeline.run_check(paths, config, rules, jobs=1)
    spread = pipeline.run_check(paths, config, rules, jobs=3)
    assert findings_of(serial) == findings_of(spread)
    assert (serial.files, serial.objects) == (spread.files, spread.objects)
    assert any(f.code == "KQ003" for f in spread.findings)


def test_cross_file_references_are_seen_by_every_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_FILES_PER_WORKER", 1)
    (tmp_path / "a-queue.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: q\n  namespace: ns\n"
        "spec:\n  clusterQueue: cq\n")
    for n in range(6):
        (tmp_path / f"job-{n}.yaml").write_text(
            f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j{n}\n  namespace: ns\n  labels:\n"
            f"    kueue.x-k8s.io/queue-name: {'q' if n % 2 else 'missing'}\n")
    config = Config()
    rules = pipeline.load_rules(config)
    serial = pipeline.run_check([str(tmp_path)], config, rules, jobs=1)
    spread = pipeline.run_check([str(tmp_path)], config, rules, jobs=2)
    assert findings_of(serial) == findings_of(spread)


def test_shards_are_balanced_and_deterministic():
    sizes = [100, 1, 1, 1, 50, 50]
    assert parallel.shard(sizes, 2) == parallel.shard(sizes, 2)
    shards = parallel.shard(sizes, 2)
    loads = [sum(sizes[i] for i in s) for s in shards]
    assert max(loads) - min(loads) <= 3
    assert sorted(i for s in shards for i in s) == list(range(6))


def test_run_tables_are_merged_from_every_worker(tmp_path, monkeypatch):
    # KQ311 reports on the ClusterQueue what workloads in other shards request
    monkeypatch.setattr(parallel, "MIN_FILES_PER_WORKER", 1)
    (tmp_path / "queues.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n"
        "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
        "    - name: f\n      resources:\n      - name: cpu\n        nominalQuota: 10\n---\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: q\n  namespace: ns\n"
        "spec:\n  clusterQueue: cq\n")
    for n in range(5):
        (tmp_path / f"job-{n}.yaml").write_text(
            f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j{n}\n  namespace: ns\n  labels:\n"
            "    kueue.x-k8s.io/queue-name: q\nspec:\n  template:\n    spec:\n      containers:\n"
            f"      - name: c\n        resources:\n          requests: {{cpu: 1, example.com/res{n % 2}: 1}}\n")
    config = Config()
    rules = pipeline.load_rules(config)
    serial = pipeline.run_check([str(tmp_path)], config, rules, jobs=1)
    spread = pipeline.run_check([str(tmp_path)], config, rules, jobs=3)
    assert findings_of(serial) == findings_of(spread)
    assert [f.code for f in spread.findings].count("KQ311") == 2


@pytest.mark.parametrize("load, jobs", [(0.0, 4), (0.4, 4), (1.6, 2), (3.5, 1), (9.0, 1)])
def test_default_jobs_leaves_busy_cores_alone_by_load_average(monkeypatch, tmp_path, load, jobs):
    monkeypatch.setattr(cores, "_cores", lambda: 4)
    monkeypatch.setattr(cores, "PROC_LOADAVG", str(tmp_path / "absent"))   # not Linux
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (load, load, load))
    assert cores.default_jobs() == jobs


@pytest.mark.parametrize("runnable, jobs", [(1, 4), (2, 3), (3, 2), (4, 1), (12, 1)])
def test_default_jobs_counts_what_runs_now_not_the_last_minute(monkeypatch, tmp_path, runnable, jobs):
    monkeypatch.setattr(cores, "_cores", lambda: 4)
    proc = tmp_path / "loadavg"
    # a busy last minute (an earlier run, a build step) that has ended must not hold -j down
    proc.write_text(f"3.90 2.10 1.00 {runnable}/321 4242\n")
    monkeypatch.setattr(cores, "PROC_LOADAVG", str(proc))
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (3.9, 2.1, 1.0))
    assert cores.default_jobs() == jobs


def test_documents_cross_processes_intact_with_marshal_or_pickle():
    import datetime

    plain = [(0, 1, {"kind": "Job", "spec": {"parallelism": 2**70, "ratio": 0.5, "on": True,
                                              "items": [None, "x", b"\x00bin"]}})]
    packed = parallel._pack(plain)
    assert packed[:1] == b"m" and parallel._unpack(packed) == plain
    odd = [(3, 7, {"when": datetime.date(2024, 1, 2)})]    # marshal cannot hold a date
    packed = parallel._pack(odd)
    assert packed[:1] == b"p" and parallel._unpack(packed) == odd
