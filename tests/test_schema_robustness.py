"""Neither judge crashes on arbitrary data: any value anywhere becomes issues, never an
exception (a crash would turn into a KQ009 rule error and hide the real findings)."""

from __future__ import annotations

import copy
import datetime
import os
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import KUEUE_CRDS
from kueuelint.schema import builtin, crd
from kueuelint.schema.sources import crd_index

CRD_DIR = str(KUEUE_CRDS)
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fixtures", "schema",
                                "crd-rules"))
from cases import base  # noqa: E402

INDEX = crd_index(paths=[CRD_DIR])
KINDS = ("ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "AdmissionCheck", "Topology",
         "MultiKueueConfig", "MultiKueueCluster", "Workload")
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(),
                    st.text(max_size=8), st.dates(), st.datetimes())
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6) | st.integers(), inner,
                                                 max_size=3)), max_leaves=8)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _paths(item, prefix + (position,))


def _replace(obj, path, value):
    if not path:
        return value
    obj = copy.deepcopy(obj)
    node = obj
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return obj


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), version=st.sampled_from(("v1beta1", "v1beta2")),
       choice=st.integers(0, 10_000), value=VALUES)
def test_no_judge_crashes(kind, version, choice, value):
    obj = base(kind, version)
    paths = list(_paths(obj))
    mutated = _replace(obj, paths[choice % len(paths)], value)
    built = builtin.validate("kueue.x-k8s.io", version, kind, mutated)
    assert built is not None
    issues, _ = crd.validate(INDEX.get("kueue.x-k8s.io", kind, version), mutated)
    assert all(isinstance(i.message, str) for i in issues)


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=60))
def test_embedded_configuration_never_crashes(text):
    """Whatever the manager ConfigMap embeds, KQ110 reports or stays silent, never crashes."""
    import tempfile

    import yaml

    from kueuelint import pipeline
    from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
    from kueuelint.config import Config

    rules = load_rule_dirs([builtin_rules_dir() / "schema"])
    embedded = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + text
    doc = {"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
           "data": {"controller_manager_config.yaml": embedded}}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        yaml.safe_dump(doc, handle)
    config = Config()
    result = pipeline.check(pipeline.load_inputs([handle.name], config), config, rules)
    os.unlink(handle.name)
    assert not [f for f in result.findings if f.code == "KQ009"]


def test_yaml_timestamps_reach_cel_as_strings():
    obj = base("Workload", "v1beta2")
    obj["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "R",
                                     "message": "", "lastTransitionTime":
                                     datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)}]}
    issues, _ = crd.validate(INDEX.get("kueue.x-k8s.io", "Workload", "v1beta2"), obj)
    assert issues == []
