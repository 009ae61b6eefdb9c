"""Scenario tests for ``kueuelint admit``: every file in fixtures/admission/ is one scenario.

A scenario holds ``snapshot`` (objects, optionally ``include`` of shared setups), ``incoming``
objects, optional ``cycles`` and ``expect``: the parts of the JSON output it pins down. Under
``expect.workloads`` each workload key maps to fields of its JSON entry; ``flavors``, ``counts``
and ``usage`` are shorthands for the per-pod-set values.
"""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest
import yaml

from kueuelint.cli import main

HERE = os.path.dirname(__file__)
FIXTURES = os.path.join(HERE, "..", "fixtures", "admission")
SCENARIOS = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".yaml"))
PER_POD_SET = {"flavors": "flavors", "counts": "count", "usage": "usage"}


def _objects(scenario: dict, key: str) -> list:
    objects = []
    for include in scenario.get("include", []) if key == "snapshot" else []:
        with open(os.path.join(FIXTURES, include)) as handle:
            objects += [doc for doc in yaml.safe_load_all(handle) if doc]
    return objects + list(scenario.get(key) or [])


def run_scenario(scenario: dict, tmp_path) -> tuple[int, dict]:
    paths = {}
    for key in ("snapshot", "incoming"):
        paths[key] = tmp_path / f"{key}.yaml"
        paths[key].write_text(yaml.safe_dump_all(_objects(scenario, key), sort_keys=False))
    argv = ["admit", str(paths["incoming"]), "--snapshot", str(paths["snapshot"]), "--format", "json"]
    if scenario.get("cycles"):
        argv += ["--cycles", str(scenario["cycles"])]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, json.loads(out.getvalue())


def _project(entry: dict, field: str):
    if field in PER_POD_SET:
        return {ps["name"]: ps[PER_POD_SET[field]] for ps in entry["podSets"]}
    return entry.get(field)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario(name, tmp_path):
    with open(os.path.join(FIXTURES, name)) as handle:
        scenario = yaml.safe_load(handle)
    code, data = run_scenario(scenario, tmp_path)
    expect = scenario["expect"]
    by_key = {entry["workload"]: entry for entry in data["workloads"]}
    for key, fields in (expect.get("workloads") or {}).items():
        assert key in by_key, f"{key} missing from {sorted(by_key)}"
        got = {field: _project(by_key[key], field) for field in fields}
        assert got == fields, f"{name}: {key}"
    if "order" in expect:
        assert [e["workload"] for e in data["workloads"]] == expect["order"]
    if "preempted" in expect:
        assert data["preempted"] == expect["preempted"]
    if "cycles" in expect:
        assert data["cycles"] == expect["cycles"]
    if "exit" in expect:
        assert code == expect["exit"]
