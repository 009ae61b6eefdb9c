"""Hostile snapshots: random junk in any field must never crash the simulator."""

from __future__ import annotations

import copy
import os

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueuelint.admission import InputError
from kueuelint.cli import main
from kueuelint.identify.objects import identify
from kueuelint.load.source import Document, SourceFile

from helpers_admission import admit_json as admit

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "admission")
with open(os.path.join(FIXTURES, "053-reclaim-within-cohort.yaml")) as handle:
    SCENARIO = yaml.safe_load(handle)
SNAPSHOT = list(SCENARIO.get("snapshot") or [])
for include in SCENARIO.get("include") or []:
    with open(os.path.join(FIXTURES, include)) as handle:
        SNAPSHOT += [doc for doc in yaml.safe_load_all(handle) if doc]

junk = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 10**20), st.text(max_size=6),
                              st.sampled_from(["", "1Gi", "-1", "Any", "Never", "1e400", "nan"])),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=6)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _replace(node, path, value):
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def _objects(dicts):
    source = SourceFile("<fuzz>")
    return [obj for obj in (identify(Document(source, i, d)) for i, d in enumerate(dicts)) if obj]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_junk_in_the_snapshot_never_crashes(data):
    snapshot = copy.deepcopy(SNAPSHOT)
    incoming = copy.deepcopy(SCENARIO["incoming"])
    for _ in range(data.draw(st.integers(1, 4))):
        target = data.draw(st.sampled_from(snapshot + incoming))
        paths = [p for p in _paths(target) if p and p[0] not in ("apiVersion", "kind")]
        if paths:
            _replace(target, data.draw(st.sampled_from(paths)), data.draw(junk))
    try:
        result, report = admit(_objects(snapshot), _objects(incoming))
    except InputError:
        return
    assert report["version"] == 1


NOT_A_NAME = [{"x": 1}, ["high"], 7, True]


@pytest.mark.parametrize("value", NOT_A_NAME, ids=repr)
def test_a_priority_class_name_that_is_no_string_is_an_input_error(value, tmp_path, capsys):
    """It used to stop the run (unhashable in the priority look-up); the API server would
    refuse the job, so admit names the field instead."""
    incoming = copy.deepcopy(SCENARIO["incoming"])
    incoming[0]["spec"]["template"]["spec"] = {"priorityClassName": value,
                                               **incoming[0]["spec"]["template"]["spec"]}
    (tmp_path / "job.yaml").write_text(yaml.safe_dump_all(incoming, sort_keys=False, default_flow_style=None))
    (tmp_path / "snapshot.yaml").write_text(yaml.safe_dump_all(SNAPSHOT, sort_keys=False))
    code = main(["admit", str(tmp_path / "job.yaml"), "--snapshot", str(tmp_path / "snapshot.yaml")])
    line = next(number for number, text in
                enumerate((tmp_path / "job.yaml").read_text().splitlines(), 1) if "priorityClassName" in text)
    assert code == 2
    assert f"job.yaml:{line}:" in capsys.readouterr().err
    with pytest.raises(InputError) as raised:
        admit(_objects(SNAPSHOT), _objects(incoming))
    assert [error.split(": ", 1)[1] for error in raised.value.errors] == [
        f"priorityClassName must be the name of a PriorityClass, got {_kind(value)}"]


@pytest.mark.parametrize("value", NOT_A_NAME, ids=repr)
def test_a_priority_class_name_that_is_no_string_in_the_snapshot_is_left_out(value):
    snapshot = copy.deepcopy(SNAPSHOT)
    workload = next(data for data in snapshot if data["kind"] == "Workload")
    workload["spec"]["podSets"][0]["template"]["spec"]["priorityClassName"] = value
    _, report = admit(_objects(snapshot), _objects(SCENARIO["incoming"]))
    _, expected = admit(_objects(SNAPSHOT), _objects(SCENARIO["incoming"]))
    assert report == expected


def _kind(value) -> str:
    return {dict: "a mapping", list: "a list", int: "an integer", bool: "a boolean"}[type(value)]


@pytest.mark.parametrize("key", [{"x": 1}, ["a"], 7])
def test_a_namespace_selector_key_that_is_no_string_selects_nothing(key):
    """Kueue rejects such a ClusterQueue; the simulation used to stop on it (unhashable key)."""
    snapshot = copy.deepcopy(SNAPSHOT)
    for data in snapshot:
        if data["kind"] == "ClusterQueue":
            data["spec"]["namespaceSelector"] = {"matchExpressions": [
                {"key": key, "operator": "In", "values": ["a"]}]}
    result, report = admit(_objects(snapshot), _objects(SCENARIO["incoming"]))
    assert {entry["message"] for entry in report["workloads"]} == {
        "workload namespace doesn't match ClusterQueue selector"}


@pytest.mark.parametrize("key", [{"x": 1}, ["pool"], None])
def test_a_node_affinity_key_that_is_no_string_matches_no_flavor_label(key):
    """The API server refuses such a pod; the flavor matching used to stop on it (unhashable
    key), in admit and in the placement rules. Such an expression is left out, as one on a
    label the flavor does not define."""
    incoming = copy.deepcopy(SCENARIO["incoming"])
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": ["a"]}]}]}}}
    incoming[0]["spec"]["template"]["spec"]["affinity"] = affinity
    _, report = admit(_objects(SNAPSHOT), _objects(incoming))
    _, expected = admit(_objects(SNAPSHOT), _objects(SCENARIO["incoming"]))
    assert report == expected


def test_a_node_selector_with_keys_of_several_types_is_scheduled():
    """Equivalence hashing sorted the selector's keys, and 0 and "pool" do not compare."""
    incoming = copy.deepcopy(SCENARIO["incoming"])
    incoming[0]["spec"]["template"]["spec"]["nodeSelector"] = {0: "x", "pool": "a"}
    _, report = admit(_objects(SNAPSHOT), _objects(incoming))
    assert [entry["result"] for entry in report["workloads"]]
