"""``kueuelint admit`` against decisions recorded from Kueue v0.19.2's own scheduler.

fixtures/admission/golden/ holds a sample of the golden scenarios (see its SOURCES.md): each
folder has ``snapshot.yaml``, ``pending.yaml`` and Kueue's decisions after one scheduling
cycle (``kueue-1.json``) and/or until nothing changes (``kueue.json``). Every decision
compared must agree: admitted or not, the result, the ClusterQueue, the flavor per resource
and the count per pod set, and the set of preempted workloads.
"""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from kueuelint.cli import main

HERE = os.path.dirname(__file__)
GOLDEN = os.path.join(HERE, "..", "fixtures", "admission", "golden")
MODES = {"kueue-1.json": ["--cycles", "1"], "kueue.json": []}
CASES = [(name, decisions) for name in sorted(os.listdir(GOLDEN))
         if os.path.isdir(os.path.join(GOLDEN, name))
         for decisions in MODES if os.path.isfile(os.path.join(GOLDEN, name, decisions))]


def admit(folder: str, extra: list[str]) -> dict:
    argv = ["admit", os.path.join(folder, "pending.yaml"), "--snapshot", os.path.join(folder, "snapshot.yaml"),
            "--format", "json", "-j", "1", "--no-progress", *extra]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    return json.loads(out.getvalue())


def decisions(data: dict) -> tuple[dict, set]:
    """What is compared, per workload, and the preempted set."""
    found = {}
    for entry in data["workloads"]:
        result = entry["result"]
        placed = result in ("admitted", "preempting")
        pod_sets = {ps["name"]: (ps["count"], dict(ps.get("flavors") or {}))
                    for ps in entry.get("podSets") or []} if placed else None
        found[entry["workload"]] = (result, entry.get("clusterQueue") if placed else None, pod_sets)
    preempted = {p if isinstance(p, str) else p["workload"] for p in data.get("preempted", [])}
    return found, preempted


def disagreements(kueue: dict, ours: dict) -> list[str]:
    (expected, expected_preempted), (got, got_preempted) = decisions(kueue), decisions(ours)
    lines = [f"{key}: kueue {expected.get(key)} / kueuelint {got.get(key)}"
             for key in sorted(set(expected) | set(got)) if expected.get(key) != got.get(key)]
    if expected_preempted != got_preempted:
        lines.append(f"preempted: kueue {sorted(expected_preempted)} / kueuelint {sorted(got_preempted)}")
    return lines


@pytest.mark.parametrize(("name", "recorded"), CASES)
def test_agrees_with_kueue(name, recorded):
    folder = os.path.join(GOLDEN, name)
    with open(os.path.join(folder, recorded)) as handle:
        kueue = json.load(handle)
    assert disagreements(kueue, admit(folder, MODES[recorded])) == []


def test_sample_covers_both_modes_and_every_kind():
    kinds = {name.split("-")[0] for name, _ in CASES}
    assert {"plain", "fair", "repro"} <= kinds
    assert {recorded for _, recorded in CASES} == set(MODES)


def test_a_changed_decision_is_caught():
    """The comparison itself: a recorded decision turned around is reported."""
    name, recorded = next(case for case in CASES if case[1] == "kueue-1.json")
    folder = os.path.join(GOLDEN, name)
    with open(os.path.join(folder, recorded)) as handle:
        kueue = json.load(handle)
    ours = admit(folder, MODES[recorded])
    entry = ours["workloads"][0]
    entry["result"] = "pending" if entry["result"] == "admitted" else "admitted"
    assert disagreements(kueue, ours)
