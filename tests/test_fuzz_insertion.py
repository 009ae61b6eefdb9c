"""Junk inserted where a field may be, not only where a scenario already has one.

The other fuzz tests replace values a manifest already holds, so a field no scenario sets is
never tried. Here junk goes to field paths of Kueue's CRDs (every Kueue kind in a scenario)
and to the pod-spec and job fields the simulator and the rules read. ``admit`` may refuse the
input (InputError) but must not stop on it, and ``check`` must not fail a rule (KQ009).
"""

from __future__ import annotations

import copy
import os

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import KUEUE_CRDS
from helpers_admission import admit_json as admit
from kueuelint import pipeline
from kueuelint.admission import InputError
from kueuelint.config import Config
from test_admission_memo import SCENARIOS, _objects, _scenario

CRDS = KUEUE_CRDS
POD = ("spec", "template", "spec")
EXPRESSION = POD + ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms", 0, "matchExpressions", 0)
WORKLOAD_FIELDS = [
    POD + ("containers", 0, "resources", "requests", "cpu"), POD + ("containers", 0, "resources", "limits"),
    POD + ("containers", 0, "restartPolicy"), POD + ("initContainers", 0, "resources", "requests", "memory"),
    POD + ("tolerations", 0, "key"), POD + ("tolerations", 0, "operator"), POD + ("tolerations", 0, "effect"),
    POD + ("nodeSelector", "pool"), POD + ("nodeSelector",), EXPRESSION + ("key",), EXPRESSION + ("values",),
    EXPRESSION + ("operator",), POD + ("overhead", "cpu"), POD + ("runtimeClassName",), POD + ("priorityClassName",),
    POD + ("resources", "requests", "cpu"), ("spec", "parallelism"), ("spec", "completions"), ("spec", "suspend"),
    ("metadata", "labels", "kueue.x-k8s.io/queue-name"), ("metadata", "labels", "kueue.x-k8s.io/priority-class"),
    ("metadata", "annotations", "kueue.x-k8s.io/job-min-parallelism"), ("metadata", "namespace"),
    ("spec", "podSets", 0, "count"), ("spec", "podSets", 0, "minCount"), ("spec", "priority"),
    ("spec", "priorityClassRef"), ("spec", "queueName"), ("spec", "active")]
WORKLOAD_KINDS = ("Job", "Workload", "Pod", "RayJob", "RayCluster", "JobSet", "Deployment", "PyTorchJob")

junk = st.sampled_from([{"x": 1}, ["a"], 7, -1, True, None, "", "1e400", "Any", {"x": {"y": [1]}},
                        [{"a": 1}], 1e400])


def _schema_paths(schema: dict, prefix: tuple = (), depth: int = 0):
    if depth > 7 or not isinstance(schema, dict):
        return
    for name, child in (schema.get("properties") or {}).items():
        if prefix or name not in ("apiVersion", "kind"):
            yield prefix + (name,)
            yield from _schema_paths(child, prefix + (name,), depth + 1)
    if isinstance(schema.get("items"), dict):
        yield from _schema_paths(schema["items"], prefix + (0,), depth + 1)


def _kueue_fields() -> dict[str, list[tuple]]:
    fields = {}
    for name in sorted(os.listdir(CRDS)):
        if name.endswith(".yaml"):
            with open(CRDS / name) as handle:
                crd = yaml.safe_load(handle)
            for version in crd["spec"]["versions"]:
                if version["name"] == "v1beta2":
                    fields[crd["spec"]["names"]["kind"]] = list(_schema_paths(version["schema"]["openAPIV3Schema"]))
    return fields


FIELDS = _kueue_fields()


def _insert(node, path: tuple, value) -> None:
    """Set ``path`` to ``value``, making the mappings and lists on the way as needed."""
    for step, following in zip(path, path[1:]):
        empty = [] if isinstance(following, int) else {}
        if isinstance(node, list):
            if not node or not isinstance(node[0], (dict, list)):
                node[:1] = [empty]
            node = node[0]
        else:
            if not isinstance(node.get(step), (dict, list)):
                node[step] = empty
            node = node[step]
    if isinstance(node, list):
        node[:1] = [value]
    else:
        node[path[-1]] = value


def _fields_of(data) -> list[tuple]:
    kind = data.get("kind") if isinstance(data, dict) else None
    return FIELDS.get(kind, []) + (WORKLOAD_FIELDS if kind in WORKLOAD_KINDS else [])


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_junk_where_a_field_may_be_stops_neither_admit_nor_a_rule(data, tmp_path_factory):
    snapshot, incoming, _ = copy.deepcopy(_scenario(data.draw(st.sampled_from(SCENARIOS))))
    targets = [doc for doc in snapshot + incoming if _fields_of(doc)]
    for _ in range(data.draw(st.integers(1, 3))):
        target = data.draw(st.sampled_from(targets))
        _insert(target, data.draw(st.sampled_from(_fields_of(target))), copy.deepcopy(data.draw(junk)))
    try:
        admit(_objects(snapshot), _objects(incoming))
    except InputError:
        pass
    path = tmp_path_factory.mktemp("fuzz") / "repo.yaml"
    path.write_text(yaml.safe_dump_all(snapshot + incoming, sort_keys=False))
    config = Config()
    findings = pipeline.check(pipeline.load_inputs([str(path)], config), config).findings
    assert [f.message for f in findings if f.code == "KQ009"] == []
