"""``matches`` in cel-expr-python programs: answered once per text and pattern, with the same
results and error messages as the engine's own ``matches``, and the same compile errors."""

from __future__ import annotations

import pytest

from kueuelint.cel import CelCompileError, CelEvalError, available_engines, get_engine

if "cel-expr-python" not in available_engines():
    pytest.skip("cel-expr-python not installed", allow_module_level=True)

from cel_expr_python import cel  # noqa: E402 - only when installed

from kueuelint.cel import _cel_expr  # noqa: E402

VALUES = [
    ("team-a", r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"), ("Team_A", r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
    ("abc\n", "^abc$"), ("ABC", "(?i)abc"), ("日本", "^..$"), ("", ""), ("x", r"\p{L}"),
    ("abc", "["), ("abc", "a{1001}"), ("x", "\\"),                 # patterns RE2 rejects
    (1, "a"), ("a", 1), (None, "a"), ([1], "a"), ({"a": 1}, "a"), (b"abc", "b"), (1.5, "x"),
]
SOURCES = [
    "x.matches(p)", "x .matches (p) || true", "false && x.matches(p)",
    "[x].map(y, y.matches(p))", "'.matches(' + string(x.matches(p))",
    "dyn(1u).matches(p)", "dyn(duration('1s')).matches(p)", "dyn({1: 2}).matches(p)",
]


def _native(source: str, x, p):
    env = cel.NewEnv(variables={"x": cel.Type.DYN, "p": cel.Type.DYN})
    value = env.compile(source).eval(env.Activation({"x": x, "p": p}))
    return ("error", str(value.value())) if value.type() == cel.Type.ERROR else ("value", value.plain_value())


def _ours(engine, source: str, x, p):
    try:
        return "value", engine.compile(source, ["x", "p"]).evaluate(engine.activation({"x": x, "p": p}))
    except CelEvalError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("source", SOURCES)
def test_results_and_errors_are_the_engines_own(source):
    engine = get_engine("cel-expr-python")
    for x, p in VALUES:
        assert _ours(engine, source, x, p) == _native(source, x, p), (source, x, p)


def test_each_text_and_pattern_is_asked_once(monkeypatch):
    engine = _cel_expr.CelExprEngine()
    asked = []
    ask = _cel_expr._RememberedMatches._ask
    monkeypatch.setattr(_cel_expr._RememberedMatches, "_ask",
                        lambda self, text, pattern: asked.append(text) or ask(self, text, pattern))
    program = engine.compile("x.all(v, v.matches('^[a-z]+$'))", ["x"])
    assert program.evaluate(engine.activation({"x": ["ab", "cd", "ab", "ab"]})) is True
    assert program.evaluate(engine.activation({"x": ["cd", "Ab"]})) is False
    assert asked == ["ab", "cd", "Ab"]
    with pytest.raises(CelEvalError, match="invalid regular expression"):
        for _ in range(2):
            engine.compile("'a'.matches('[')", []).evaluate(engine.activation({}))
    assert asked == ["ab", "cd", "Ab", "a"]


def test_the_source_as_written_is_type_checked():
    engine = get_engine("cel-expr-python")
    with pytest.raises(CelCompileError, match="no matching overload for 'matches'"):
        engine.compile("1.matches('a')", [])
    for source in ("kueuelintMatches('a', 'b')", "'a'.kueuelintMatches('b')"):
        with pytest.raises(CelCompileError, match="undeclared reference to 'kueuelintMatches'"):
            engine.compile(source, [])
    assert engine.compile("'kueuelintMatches'.matches('M')", []).evaluate(engine.activation({}))


def test_cached_programs_keep_the_remembering_matches():
    engine = _cel_expr.CelExprEngine()
    source = "x.matches('^a')"
    blob = engine.serialize(engine.compile(source, ["x"]))
    again = engine.deserialize(source, ["x"], blob)
    assert again.evaluate(engine.activation({"x": "abc"})) is True
    assert _cel_expr._MATCHES_HELPER.encode() in blob
