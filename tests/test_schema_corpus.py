"""The real corpus validates with no false error through both judges."""

from __future__ import annotations


import pytest
import yaml

from conftest import CORPUS as CORPUS_DIR, KUEUE_CRDS
from kueuelint.identify.objects import identify
from kueuelint.load.discover import expand, read_target
from kueuelint.load.limits import Limits
from kueuelint.schema import builtin, crd
from kueuelint.schema.sources import crd_index

CORPUS = str(CORPUS_DIR)
CRD_DIR = str(KUEUE_CRDS)
GROUPS = ("kueue.x-k8s.io", "config.kueue.x-k8s.io")

def _kueue_objects():
    targets, _ = expand([CORPUS])
    found = []
    for target in targets:
        for doc in read_target(target, Limits()).documents:
            obj = identify(doc)
            if obj is not None and obj.group in GROUPS:
                found.append(obj)
            elif obj is not None and obj.kind == "ConfigMap":
                found.extend(_embedded_configuration(obj))
    return found


def _embedded_configuration(obj):
    text = (obj.get("data") or {}).get("controller_manager_config.yaml")
    if not isinstance(text, str):
        return []
    return [("configmap", obj.path, yaml.safe_load(text))]


OBJECTS = _kueue_objects()


def test_corpus_has_kueue_objects():
    assert len([o for o in OBJECTS if not isinstance(o, tuple)]) >= 50


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: o[1] if isinstance(o, tuple) else
                         f"{o.path}:{o.doc.line}")
def test_builtin_models_accept_corpus(obj):
    if isinstance(obj, tuple):
        data = obj[2]
        group, _, version = data["apiVersion"].rpartition("/")
        issues = builtin.validate(group, version, data["kind"], data)
    else:
        issues = builtin.validate(obj.group, obj.version, obj.kind, obj.data)
    assert issues is not None, "no built-in model"
    assert issues == [], [i.message for i in issues]


@pytest.mark.parametrize("engine", ["cel-expr-python", "cel-python"])
def test_crds_accept_corpus(engine):
    from kueuelint.cel.engine import available_engines

    if engine not in available_engines():
        pytest.skip(f"{engine} not installed")
    index = crd_index(paths=[CRD_DIR])
    problems = []
    for obj in OBJECTS:
        if isinstance(obj, tuple) or obj.group != "kueue.x-k8s.io":
            continue
        version = index.get(obj.group, obj.kind, obj.version)
        assert version is not None, f"no CRD for {obj.key} {obj.version}"
        issues, _ = crd.validate(version, obj.data, engine=engine)
        problems.extend(f"{obj.path}: {i.message}" for i in issues)
    assert problems == []
