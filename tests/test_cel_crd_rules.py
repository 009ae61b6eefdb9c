"""Every x-kubernetes-validations rule in Kueue's CRDs compiles and evaluates on every engine.

The CRDs are test data in tests/data/kueue-crds (not shipped with the package).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import yaml
from conftest import CORPUS, KUEUE_CRDS

from kueuelint.cel import CelCompileError, CelEvalError, available_engines, get_engine

CRD_DIR = KUEUE_CRDS
CORPUS_DIR = CORPUS / "kueue"
VARIABLES = ("self", "oldSelf")
ENGINES = available_engines()


def _load_all(path: Path) -> list:
    return [doc for doc in yaml.load_all(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) if doc]


def _walk(schema: dict, steps: tuple) -> Iterator[tuple[tuple, str]]:
    """(steps from the object root, rule) for each rule; a step is a key, "[]" or "{}"."""
    for validation in schema.get("x-kubernetes-validations", []):
        yield steps, validation["rule"]
    for name, child in schema.get("properties", {}).items():
        yield from _walk(child, (*steps, name))
    if isinstance(schema.get("items"), dict):
        yield from _walk(schema["items"], (*steps, "[]"))
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _walk(schema["additionalProperties"], (*steps, "{}"))


@cache
def crd_rules() -> tuple[tuple[str, str, tuple, str], ...]:
    """(kind, version, steps, rule) for every rule site in every CRD."""
    sites = []
    for path in sorted(CRD_DIR.glob("*.yaml")):
        for crd in _load_all(path):
            kind = crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                schema = version["schema"]["openAPIV3Schema"]
                sites += [(kind, version["name"], steps, rule) for steps, rule in _walk(schema, ())]
    return tuple(sites)


def unique_rules() -> list[str]:
    return sorted({rule for *_, rule in crd_rules()})


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    return get_engine(request.param)


def test_crds_have_rules():
    assert len(crd_rules()) >= 70
    assert len(unique_rules()) >= 35


def test_every_rule_compiles(engine):
    failures = []
    for rule in unique_rules():
        try:
            engine.compile(rule, VARIABLES)
        except CelCompileError as err:
            failures.append(f"{rule!r}: {err}")
    assert not failures, "\n".join(failures)


# Hand-made objects with the answer the API server gives, per kueue-validation.md §2.2.
TOPOLOGY_NEEDS_LABELS = "!has(self.topologyName) || self.nodeLabels.size() >= 1"
UNIQUE = "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0"
RULE_CASES = [
    (TOPOLOGY_NEEDS_LABELS, {"topologyName": "t", "nodeLabels": {"a": "b"}}, True),
    (TOPOLOGY_NEEDS_LABELS, {"topologyName": "t"}, "error"),  # the API server rejects it too
    (TOPOLOGY_NEEDS_LABELS, {}, True),
    (
        "self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
        {"coveredResources": ["cpu", "memory"], "flavors": [{"resources": [{}, {}]}, {"resources": [{}]}]},
        False,
    ),
    (UNIQUE, [{"nodeLabel": "a"}, {"nodeLabel": "a"}], False),
    (UNIQUE, [{"nodeLabel": "a"}, {"nodeLabel": "b"}], True),
    (
        "[has(self.kubeConfig),has(self.clusterProfileRef)].filter(x,x==true).size() == 1",
        {"kubeConfig": {}, "clusterProfileRef": {}},
        False,
    ),
    ("self.all(x, !has(x.key) ? x.operator == 'Exists' : true)", [{"operator": "Equal"}], False),
    ("has(self.minCount) ? self.minCount <= self.count : true", {"minCount": 3, "count": 2}, False),
]


@pytest.mark.parametrize(("rule", "value", "expected"), RULE_CASES)
def test_rule_results(engine, rule, value, expected):
    assert rule in unique_rules(), "rule text drifted from the CRDs"
    assert _outcome(engine, rule, value) == expected


def _outcome(engine, rule: str, value) -> object:
    try:
        program = engine.compile(rule, VARIABLES)
        return program.evaluate(engine.activation({"self": value}))
    except CelEvalError:
        return "error"


def _values_at(node, steps: tuple) -> Iterator:
    if not steps:
        yield node
        return
    step, rest = steps[0], steps[1:]
    if step == "[]" and isinstance(node, list):
        children = node
    elif step == "{}" and isinstance(node, dict):
        children = list(node.values())
    elif isinstance(node, dict) and step in node:
        children = [node[step]]
    else:
        children = []
    for child in children:
        yield from _values_at(child, rest)


@cache
def corpus_evaluations() -> tuple[tuple[str, object], ...]:
    """(rule, value at the rule's location) for Kueue documents of the corpus."""
    sites: dict[tuple[str, str], list] = {}
    for kind, version, steps, rule in crd_rules():
        if "oldSelf" not in rule:  # transition rules only run on updates
            sites.setdefault((kind, version), []).append((steps, rule))
    found = []
    for path in sorted(CORPUS_DIR.rglob("*.yaml")):
        for doc in _load_all(path):
            if not isinstance(doc, dict) or not str(doc.get("apiVersion", "")).startswith("kueue.x-k8s.io/"):
                continue
            key = (doc.get("kind"), doc["apiVersion"].split("/")[1])
            for steps, rule in sites.get(key, []):
                found += [(rule, value) for value in _values_at(doc, steps)]
    return tuple(found)


@pytest.mark.skipif(len(ENGINES) < 2, reason="needs two engines")
def test_engines_agree_on_corpus():
    evaluations = corpus_evaluations()
    assert len(evaluations) >= 50
    engines = [get_engine(name) for name in ENGINES]
    disagreements = []
    for rule, value in evaluations:
        outcomes = [_outcome(engine, rule, value) for engine in engines]
        if any(o != outcomes[0] for o in outcomes):
            disagreements.append(f"{rule!r} on {value!r}: {outcomes}")
    assert not disagreements, "\n".join(disagreements)
