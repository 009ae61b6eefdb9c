"""The simulator's memo (answers reused while a cohort tree's usage is unchanged) must be
invisible: every scenario, and a generated cluster with many cycles of preemption, gives the
same JSON when the memo never answers."""

from __future__ import annotations

import importlib.util
import os

import pytest
import yaml

from kueuelint.admission.memo import UsageMemo
from kueuelint.identify.objects import identify
from kueuelint.load.source import Document, SourceFile
from helpers_admission import admit_json as admit
from helpers_build import patches_simulator

HERE = os.path.dirname(__file__)
FIXTURES = os.path.join(HERE, "..", "fixtures", "admission")
SCENARIOS = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".yaml"))


def _objects(dicts: list) -> list:
    source = SourceFile("<memo>")
    return [obj for obj in (identify(Document(source, i, d)) for i, d in enumerate(dicts)) if obj]


def _scenario(name: str) -> tuple[list, list, int | None]:
    with open(os.path.join(FIXTURES, name)) as handle:
        scenario = yaml.safe_load(handle)
    snapshot = []
    for include in scenario.get("include") or []:
        with open(os.path.join(FIXTURES, include)) as handle:
            snapshot += [doc for doc in yaml.safe_load_all(handle) if doc]
    snapshot += list(scenario.get("snapshot") or [])
    return snapshot, list(scenario.get("incoming") or []), scenario.get("cycles")


def _admit_both_ways(snapshot: list, incoming: list, cycles, monkeypatch) -> tuple[dict, dict]:
    snapshot_objects, incoming_objects = _objects(snapshot), _objects(incoming)
    _, remembered = admit(snapshot_objects, incoming_objects, cycles)
    with monkeypatch.context() as patch:
        patch.setattr(UsageMemo, "recall", lambda self, key, root, frs, compute, *args: compute(*args))
        _, recomputed = admit(_objects(snapshot), _objects(incoming), cycles)
    return remembered, recomputed


@patches_simulator
@pytest.mark.parametrize("name", SCENARIOS)
def test_memo_changes_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    remembered, recomputed = _admit_both_ways(snapshot, incoming, cycles, monkeypatch)
    assert remembered == recomputed


def _bench_generator():
    path = os.path.join(HERE, "..", "bench", "admit_bench.py")
    spec = importlib.util.spec_from_file_location("admit_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate


@patches_simulator
@pytest.mark.parametrize("seed", [1, 2])
def test_memo_changes_nothing_on_a_generated_cluster(seed, monkeypatch):
    objects = _bench_generator()(0.04, seed)
    remembered, recomputed = _admit_both_ways(objects, [], None, monkeypatch)
    assert remembered["cycles"] > 20 and remembered["preempted"]
    assert remembered == recomputed


def _tainted_cluster(taints: list) -> list[dict]:
    kueue = "kueue.x-k8s.io/v1beta2"
    return [
        {"apiVersion": kueue, "kind": "ResourceFlavor", "metadata": {"name": "spot"},
         "spec": {"nodeTaints": taints}},
        {"apiVersion": kueue, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": "spot", "resources": [{"name": "cpu", "nominalQuota": 4}]}]}]}},
        {"apiVersion": kueue, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "team"},
         "spec": {"clusterQueue": "cq"}},
    ]


def _job() -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "train", "namespace": "team", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "main", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}}


def test_a_flavor_refusal_is_not_carried_to_another_snapshot():
    """Whether a flavor can host an unconstrained pod set is kept per flavor name across
    runs of one process: a flavor of the same name with other taints must be judged anew."""
    taint = {"key": "spot", "value": "true", "effect": "NoSchedule"}
    _, tainted = admit(_objects(_tainted_cluster([taint])), _objects([_job()]), None)
    _, clean = admit(_objects(_tainted_cluster([])), _objects([_job()]), None)
    _, tainted_again = admit(_objects(_tainted_cluster([taint])), _objects([_job()]), None)
    assert [w["result"] for w in tainted["workloads"]] == ["pending"]
    assert "untolerated taint {spot true NoSchedule <nil>} in flavor spot" in tainted["workloads"][0]["message"]
    assert [w["result"] for w in clean["workloads"]] == ["admitted"]
    assert tainted_again["workloads"][0]["message"] == tainted["workloads"][0]["message"]
