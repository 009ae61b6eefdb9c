"""Topology-aware scheduling in ``kueuelint admit``: each file in fixtures/tas/ is a scenario.

A scenario has ``include`` (setups under fixtures/tas/_setups), ``snapshot`` and ``incoming``
objects, optional ``cycles``, and ``expect``: per workload its ``result``, ``message``,
``flavors``, and per pod set the ``topology`` (the JSON ``topologyAssignment``; a pod set not
listed has none) or the ``topologyNote``; the ``preempted`` workloads; a text the warnings
contain; the exit status.
"""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest
import yaml

from kueuelint.cli import main

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tas")
SCENARIOS = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".yaml"))


def _load(path: str) -> list:
    with open(path) as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc]


def admit(scenario: dict, tmp_path) -> tuple[int, dict]:
    snapshot = []
    for include in scenario.get("include", []):
        snapshot += _load(os.path.join(FIXTURES, include))[0]
    snapshot += scenario.get("snapshot") or []
    (tmp_path / "snapshot.yaml").write_text(yaml.safe_dump_all(snapshot, sort_keys=False))
    (tmp_path / "incoming.yaml").write_text(yaml.safe_dump_all(scenario["incoming"], sort_keys=False))
    argv = ["admit", str(tmp_path / "incoming.yaml"), "--snapshot", str(tmp_path / "snapshot.yaml"),
            "--format", "json", "-j", "1"]
    if scenario.get("cycles"):
        argv += ["--cycles", str(scenario["cycles"])]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, json.loads(out.getvalue())


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
    code, data = admit(scenario, tmp_path)
    expect = scenario["expect"]
    by_key = {entry["workload"]: entry for entry in data["workloads"]}
    for key, fields in expect.get("workloads", {}).items():
        got = {field: _observed(by_key[key], field) for field in fields}
        assert got == fields, f"{name}: {key}"
    if "preempted" in expect:
        assert [p["workload"] for p in data["preempted"]] == expect["preempted"]
    if "warningsContain" in expect:
        assert any(expect["warningsContain"] in w for w in data.get("warnings", [])), data.get("warnings")
    if "exit" in expect:
        assert code == expect["exit"]
