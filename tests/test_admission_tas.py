"""Topology-aware scheduling in ``kueuelint admit``: each file in fixtures/tas/ is a scenario.

A scenario is read as tests/test_admission_scenarios.py reads its own (``include`` paths are
relative to fixtures/admission), with these ``expect`` fields: per workload its ``result``, ``message``,
``flavors``, and per pod set the ``topology`` (the JSON ``topologyAssignment``; a pod set not
listed has none) or the ``topologyNote``; the ``preempted`` workloads; a text the warnings
contain; the exit status.
"""

from __future__ import annotations

import os

import pytest
import yaml

from test_admission_scenarios import run_scenario

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tas")
SCENARIOS = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".yaml"))


def _per_pod_set(entry: dict, key: str) -> dict:
    return {ps["name"]: ps[key] for ps in entry["podSets"] if key in ps}


def _observed(entry: dict, field: str):
    if field == "topology":
        return _per_pod_set(entry, "topologyAssignment")
    if field == "topologyNote":
        return _per_pod_set(entry, "topology")
    if field == "flavors":
        return _per_pod_set(entry, "flavors")
    return entry.get(field)


@pytest.mark.parametrize("name", SCENARIOS)
def test_tas_scenario(name, tmp_path):
    with open(os.path.join(FIXTURES, name)) as handle:
        scenario = yaml.safe_load(handle)
    code, data = run_scenario(scenario, tmp_path)
    expect, found = scenario["expect"], {entry["workload"]: entry for entry in data["workloads"]}
    assert {key: {field: _observed(found[key], field) for field in fields}
            for key, fields in expect.get("workloads", {}).items()} == expect.get("workloads", {}), name
    if "preempted" in expect:
        assert [p["workload"] for p in data["preempted"]] == expect["preempted"]
    if "warningsContain" in expect:
        assert any(expect["warningsContain"] in w for w in data.get("warnings", [])), data.get("warnings")
    if "exit" in expect:
        assert code == expect["exit"]
