"""Update checks: transition rules by the CRD and by the built-in table agree on every
transition fixture, on every engine; objects pair by identity across two trees."""

from __future__ import annotations

import glob
import os
from types import SimpleNamespace

import pytest
import yaml

from conftest import KUEUE_CRDS
from kueuelint.schema.sources import crd_index
from kueuelint.schema.transition import pair, transition_issues

CRD_DIR = str(KUEUE_CRDS)
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "schema", "crd-rules")
INDEX = crd_index(paths=[CRD_DIR])


def _transition_cases():
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.yaml"))):
        with open(path, encoding="utf-8") as handle:
            case = yaml.safe_load(handle)
        if "old" in case:
            yield pytest.param(case, id=os.path.basename(path))


@pytest.mark.parametrize("engine", ["cel-expr-python", "cel-python"])
@pytest.mark.parametrize("case", list(_transition_cases()))
def test_crd_and_builtin_transitions_agree(case, engine):
    from kueuelint.cel.engine import available_engines

    if engine not in available_engines():
        pytest.skip(f"{engine} not installed")
    args = ("kueue.x-k8s.io", case["version"], case["kind"], case["old"])
    for new, rejected in ((case["pass"], False), (case["fail"], True)):
        by_crd = transition_issues(*args, new, INDEX, engine)
        built = transition_issues(*args, new)
        assert bool(by_crd) == rejected, [i.message for i in by_crd]
        assert bool(built) == rejected, [i.message for i in built]


def test_plain_updates_pass():
    obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
           "metadata": {"name": "q", "namespace": "a"}, "spec": {"clusterQueue": "cq"}}
    assert transition_issues("kueue.x-k8s.io", "v1beta2", "LocalQueue", obj, obj, INDEX) == []
    assert transition_issues("kueue.x-k8s.io", "v1beta2", "LocalQueue", obj, obj) == []


def test_pair_by_identity():
    def obj(kind, name, namespace="a"):
        return SimpleNamespace(key=f"kueue.x-k8s.io/{kind}", name=name, namespace=namespace)

    old = [obj("LocalQueue", "q"), obj("ClusterQueue", "q", None)]
    new = [obj("LocalQueue", "q"), obj("LocalQueue", "q", "b"), obj("ClusterQueue", "other")]
    assert [(o.key, n.namespace) for o, n in pair(old, new)] == [("kueue.x-k8s.io/LocalQueue",
                                                                   "a")]
