"""Agreement with Kueue's own scheduler on a CI-sized sample of recorded TAS scenarios
(fixtures/tas/golden, see its SOURCES.md): per pending workload, admitted or not, the result,
ClusterQueue, flavor per resource, count and topology assignment per pod set; and the set of
preempted workloads. Every recorded file of the sample must agree.

With the project's shared data beside the checkout, ``test_all_recorded_tas_one_cycle`` also
checks every recorded TAS scenario after one cycle (skipped when the data is absent).
"""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from conftest import SHARED
from kueuelint.cli import main

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tas", "golden")
MODES = {"kueue-1.json": ["--cycles", "1"], "kueue.json": []}
CASES = sorted((folder, recorded) for folder in os.listdir(GOLDEN)
               if os.path.isdir(os.path.join(GOLDEN, folder))
               for recorded in MODES if os.path.isfile(os.path.join(GOLDEN, folder, recorded)))


def _decisions(data: dict) -> tuple[dict, set]:
    """What is compared, per workload; and the preempted keys."""
    workloads = {}
    for entry in data["workloads"]:
        admitted_or_preempting = entry["result"] in ("admitted", "preempting")
        pod_sets = {ps["name"]: (ps["count"], ps.get("flavors"), _placement(ps.get("topologyAssignment")))
                    for ps in entry.get("podSets") or []} if admitted_or_preempting else {}
        workloads[entry["workload"]] = (entry["result"], entry.get("clusterQueue") if admitted_or_preempting else None,
                                        pod_sets)
    preempted = {p if isinstance(p, str) else p["workload"] for p in data.get("preempted", [])}
    return workloads, preempted


def _placement(assignment: dict | None):
    if not assignment:
        return None
    return (tuple(assignment["levels"]), sorted((tuple(d["values"]), d["count"]) for d in assignment["domains"]))


def _without_unrecorded_placements(ours: dict, theirs: dict) -> dict:
    """Kueue records no placement for a preemptor: ours is then not compared."""
    trimmed = {}
    for key, (result, queue, pod_sets) in ours.items():
        recorded = theirs.get(key, (None, None, {}))[2]
        trimmed[key] = (result, queue, {name: (count, flavors, placement if (recorded.get(name) or (0, 0, None))[2] else None)
                                        for name, (count, flavors, placement) in pod_sets.items()})
    return trimmed


def run_admit(folder: str, arguments: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["admit", os.path.join(folder, "pending.yaml"), "--snapshot", os.path.join(folder, "snapshot.yaml"),
              "--format", "json", "-j", "1", "--no-progress", *arguments])
    return json.loads(out.getvalue())


def disagreements(folder: str, recorded: str) -> list[str]:
    with open(os.path.join(folder, recorded)) as handle:
        theirs, their_victims = _decisions(json.load(handle))
    ours, our_victims = _decisions(run_admit(folder, MODES[recorded]))
    ours = _without_unrecorded_placements(ours, theirs)
    found = [f"{key}: kueue {theirs.get(key)} / kueuelint {ours.get(key)}"
             for key in sorted(set(theirs) | set(ours)) if theirs.get(key) != ours.get(key)]
    if their_victims != our_victims:
        found.append(f"preempted: kueue {sorted(their_victims)} / kueuelint {sorted(our_victims)}")
    return found


@pytest.mark.parametrize("folder,recorded", CASES)
def test_agrees_with_kueue(folder, recorded):
    assert disagreements(os.path.join(GOLDEN, folder), recorded) == []


def test_the_sample_covers_both_modes():
    assert {recorded for _, recorded in CASES} == set(MODES)
    assert len({folder for folder, _ in CASES}) >= 10


@pytest.mark.slow
def test_all_recorded_tas_one_cycle():
    root = SHARED / "kueue-golden" / "tas"
    if not root.is_dir():
        pytest.skip("the shared golden data is not beside the checkout")
    failing = {folder: found for folder in sorted(os.listdir(root))
               if (root / folder / "kueue-1.json").is_file()
               for found in [disagreements(str(root / folder), "kueue-1.json")] if found}
    assert failing == {}
