"""Hostile snapshots: random junk in any field must never crash the simulator."""

from __future__ import annotations

import copy
import os

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueuelint.admission import InputError, admit
from kueuelint.identify.objects import identify
from kueuelint.load.source import Document, SourceFile

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
