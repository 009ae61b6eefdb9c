"""Engine selection, lazy imports and error conversion."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from kueuelint.cel import CelCompileError, available_engines, get_engine
from kueuelint.cel import engine as engine_module


def test_available_engines_lists_installed_ones():
    assert available_engines(), "no CEL engine installed"
    assert set(available_engines()) <= {"cel-expr-python", "cel-python"}


def test_default_engine_is_cel_expr_python():
    if "cel-expr-python" not in available_engines():
        pytest.skip("cel-expr-python not installed")
    assert get_engine().name == "cel-expr-python"
    assert get_engine("auto") is get_engine(None) is get_engine("cel-expr-python")


def test_engines_are_cached_per_process():
    for name in available_engines():
        assert get_engine(name) is get_engine(name)
        assert get_engine(name).name == name
        assert get_engine(name).version[0].isdigit()


def test_unknown_engine_lists_choices():
    with pytest.raises(ValueError, match="cel-expr-python, cel-python"):
        get_engine("cel-go")


def test_auto_falls_back_when_default_cannot_import(monkeypatch):
    if "cel-python" not in available_engines():
        pytest.skip("cel-python not installed")
    monkeypatch.setattr(engine_module, "_engines", {"cel-python": get_engine("cel-python")})
    monkeypatch.setitem(sys.modules, "cel_expr_python", None)  # makes the import fail
    monkeypatch.delitem(sys.modules, "kueuelint.cel._cel_expr", raising=False)
    assert get_engine().name == "cel-python"


def test_no_engine_at_all_is_an_import_error(monkeypatch):
    monkeypatch.setattr(engine_module, "_engines", {})
    for module in ("cel_expr_python", "celpy"):
        monkeypatch.setitem(sys.modules, module, None)
    for adapter in ("kueuelint.cel._cel_expr", "kueuelint.cel._celpy"):
        monkeypatch.delitem(sys.modules, adapter, raising=False)
    with pytest.raises(ImportError, match="no CEL engine installed"):
        get_engine()


def test_importing_the_package_imports_no_engine():
    code = (
        "import sys, kueuelint.cel, kueuelint.cel.cache\n"
        "kueuelint.cel.available_engines()\n"
        "loaded = {'cel_expr_python', 'celpy', 'lark', 'importlib.metadata'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("report", "line", "column", "message"),
    [
        (
            "INVALID_ARGUMENT: ERROR: <input>:2:46: Syntax error: mismatched input ')'\n | x\n | ..^",
            2,
            46,
            "Syntax error: mismatched input ')'",
        ),
        ("ERROR: <input>:1:3: no overload\n | 1 == 1.0\n | ..^ [INVALID_ARGUMENT]", 1, 3, "no overload"),
        ("ERROR: <input>:1:3: undeclared 'x' [INVALID_ARGUMENT]", 1, 3, "undeclared 'x'"),
        ("something without a position", 1, 1, "something without a position"),
    ],
)
def test_compile_error_from_report(report, line, column, message):
    err = CelCompileError.from_report(report)
    assert (err.line, err.column, err.message) == (line, column, message)
    assert err.details == report
    assert str(err) == f"{line}:{column}: {message}"


def test_missing_engine_names_its_library(monkeypatch):
    monkeypatch.setattr(engine_module, "_engines", {})
    monkeypatch.setitem(sys.modules, "celpy", None)
    monkeypatch.delitem(sys.modules, "kueuelint.cel._celpy", raising=False)
    with pytest.raises(ImportError, match="'cel-python' cannot be used: celpy"):
        get_engine("cel-python")


def _default_engine():
    if "cel-expr-python" not in available_engines():
        pytest.skip("cel-expr-python not installed")
    return get_engine("cel-expr-python")


def _value_and_extensions_loaded(source: str, obj: dict) -> tuple[str, list[str]]:
    """Evaluate ``source`` in a fresh interpreter: its value and the extension modules it loaded."""
    code = (
        "import sys\n"
        "from kueuelint.cel import get_engine\n"
        "engine = get_engine('cel-expr-python')\n"
        f"program = engine.compile({source!r}, ['object'])\n"
        f"value = program.evaluate(engine.activation({{'object': {obj!r}}}))\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('cel_expr_python.ext.') "
        "or m.startswith('kueuelint.cel.k8s'))\n"
        "print(repr(value)); print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    value, loaded = out.strip().splitlines()
    return value, ast.literal_eval(loaded)


def test_core_only_rules_do_not_load_the_extension_libraries():
    value, loaded = _value_and_extensions_loaded(
        "has(object.metadata) && type(object.metadata) == map && "
        "'q' in object.metadata.labels && object.metadata.name.startsWith('a')",
        {"metadata": {"name": "ab", "labels": {"q": "x"}}})
    assert (value, loaded) == ("True", [])


def test_string_and_bind_rules_load_only_those_two_extensions():
    value, loaded = _value_and_extensions_loaded(
        "cel.bind(v, object.name, v.lowerAscii().replace('_', '-'))", {"name": "Team_A"})
    assert (value, loaded) == ("'team-a'", ["cel_expr_python.ext.ext_bindings", "cel_expr_python.ext.ext_strings"])


@pytest.mark.parametrize("source, expected", [
    ("'ABC'.lowerAscii()", "abc"),                                     # strings extension
    ("math.greatest(1, 7, 3)", 7),                                      # math extension
    ("cel.bind(x, 2, x * x)", 4),                                       # bindings
    ("optional.of(1).orValue(0) + {'a': 1}[?'b'].orValue(5)", 6),       # optional syntax
    ("base64.encode(b'hi')", "aGk="),                                   # encoders
    ("quantity('1Gi').isGreaterThan(quantity('1Mi'))", True),           # Kubernetes quantity
    ("sets.contains([1, 2, 3], [2])", True),                            # Kubernetes sets
    ("[3, 1, 2].max() + [1, 2].indexOf(2)", 4),                         # Kubernetes lists
    ("size(object) == 1 && object.a.endsWith('z')", True),              # core only
    ("cel.bind(s, 'A-b', s.lowerAscii().split('-').join('+'))", "a+b"),  # strings and bind only
    ("cel.bind(x, ['a', 'b'], x.indexOf('b'))", 1),                     # indexOf on a list: all
    ("cel.bind(x, 4, math.greatest(x, 2))", 4),                         # bind with a namespace
])
def test_library_and_core_expressions_evaluate_alike(source, expected):
    engine = _default_engine()
    program = engine.compile(source, ["object"])
    assert program.evaluate(engine.activation({"object": {"a": "yz"}})) == expected
    # the cached form keeps the environment it needs
    blob = engine.serialize(program)
    again = engine.deserialize(source, ["object"], blob)
    assert again.evaluate(engine.activation({"object": {"a": "yz"}})) == expected


def test_a_typo_is_reported_as_before_and_an_unmarked_cache_blob_is_recompiled():
    engine = _default_engine()
    with pytest.raises(CelCompileError, match="startswith"):
        engine.compile("object.name.startswith('a')", ["object"])
    blob = engine.serialize(engine.compile("object.a == 'x'", ["object"]))
    assert engine.deserialize("object.a == 'x'", ["object"], blob[1:]) is None
