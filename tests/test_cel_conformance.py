"""One CEL conformance suite (tests/cel_conformance.yaml) run on every installed engine."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest
import yaml

from kueuelint.cel import CelCompileError, CelEvalError, available_engines, get_engine
from kueuelint.cel.k8s_library import cel_equal, kind_of

DATA = yaml.safe_load((Path(__file__).parent / "cel_conformance.yaml").read_text(encoding="utf-8"))
CASES = DATA["cases"]
VARIABLES = ("self", "oldSelf", "n", "w")
ENGINES = available_engines()
KNOWN_ENGINES = ("cel-expr-python", "cel-python")


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    return get_engine(request.param)


@cache
def _activation(engine_name: str):
    old = copy.deepcopy(DATA["object"])
    old["spec"]["queueingStrategy"] = "StrictFIFO"
    values = {"self": DATA["object"], "oldSelf": old, "n": None, "w": 0.5}
    return get_engine(engine_name).activation(values)


def _run(engine, expr: str):
    return engine.compile(expr, VARIABLES).evaluate(_activation(engine.name))


def _per_engine(value, engine_name: str):
    return value.get(engine_name) if isinstance(value, dict) else value


def test_cases_are_well_formed():
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    for case in CASES:
        assert ("expect" in case) != ("error" in case), case["id"]
        special = {*case.get("unsupported", []), *case.get("deviation", {})}
        assert special <= set(KNOWN_ENGINES), case["id"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_conformance(engine, case):
    if engine.name in case.get("unsupported", []):
        # Must fail loudly: an unsupported feature may never produce a value.
        with pytest.raises((CelCompileError, CelEvalError)):
            _run(engine, case["expr"])
        return
    if engine.name in case.get("deviation", {}):
        _assert_result(_run(engine, case["expr"]), case["deviation"][engine.name])
        return
    error = _per_engine(case.get("error"), engine.name)
    if error == "compile":
        _assert_compile_error(engine, case)
    elif error == "eval":
        with pytest.raises(CelEvalError):
            _run(engine, case["expr"])
    else:
        _assert_result(_run(engine, case["expr"]), case["expect"])


def _assert_result(result, expected):
    assert cel_equal(result, expected), f"{result!r} != {expected!r}"
    assert kind_of(result) == kind_of(expected), f"{result!r} is not a {kind_of(expected)}"


def _assert_compile_error(engine, case):
    with pytest.raises(CelCompileError) as info:
        engine.compile(case["expr"], VARIABLES)
    err = info.value
    assert err.message and err.line >= 1 and err.column >= 1
    if "line" in case:
        assert err.line == case["line"], err
    column = _per_engine(case.get("column"), engine.name)
    if column is not None:
        assert err.column == column, err


def test_eval_error_keeps_message(engine):
    with pytest.raises(CelEvalError) as info:
        _run(engine, "self.spec.nosuch == 'x'")
    assert "nosuch" in info.value.message
    assert "activation" not in info.value.message  # no dump of the input data


def test_activation_is_reusable_across_programs(engine):
    act = engine.activation({"self": {"a": [1, 2]}})
    first = engine.compile("self.a.size()", ["self"])
    second = engine.compile("self.a[1]", ["self", "oldSelf"])
    assert [first.evaluate(act), second.evaluate(act), first.evaluate(act)] == [2, 2, 2]


def test_results_are_plain_python(engine):
    result = _run(engine, "{'b': true, 'i': 1, 'd': 1.5, 's': 'x', 'l': [null], 'm': self.metadata.labels}")
    assert result == {"b": True, "i": 1, "d": 1.5, "s": "x", "l": [None], "m": {"team": "a", "tier": "gold"}}
    assert [type(result[k]) for k in "bidslm"] == [bool, int, float, str, list, dict]


def test_program_keeps_source(engine):
    assert engine.compile("1 + 1", []).source == "1 + 1"
