"""The simulator's memo (answers reused while a cohort tree's usage is unchanged) must be
invisible: every scenario, and a generated cluster with many cycles of preemption, gives the
same JSON when the memo never answers."""

from __future__ import annotations

import importlib.util
import os

import pytest
import yaml

from kueuelint.admission import admit
from kueuelint.admission.memo import UsageMemo
from kueuelint.identify.objects import identify
from kueuelint.load.source import Document, SourceFile
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
        patch.setattr(UsageMemo, "get", lambda self, key, stamp: None)
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
