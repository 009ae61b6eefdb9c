"""cel.bind and cel-expr-python 0.1.3: a binding whose value is a comprehension can be given
another comprehension's value when the source is compiled as written, so such bindings are
rewritten as ``[value].map(name, body)[0]``; bindings of plain values are compiled as written
(the rewrite costs time on every object)."""

import json

import pytest
import yaml

from kueuelint.cel.text import expand_binds
from kueuelint.checks.cel_rules import VARIABLES
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs

# Groups with a minimum on no queue, '' and 7: KQ801's `scores` (a list made by map and filter)
# is read as a map by `scores.max()` when the rule is compiled as written.
GANG = """
compute_config:
  head_node: {instance_type: 8CPU-32GB}
  worker_nodes:
    - {instance_type: 4CPU-16GB, min_nodes: 2}
    - {name: '', instance_type: '', min_nodes: 3,
       advanced_instance_config: {metadata: {labels: {kueue.x-k8s.io/queue-name: ''}}}}
    - {name: q, min_nodes: 1, advanced_instance_config: {metadata: {labels: {kueue.x-k8s.io/queue-name: 7}}}}
"""


def _engine():
    from kueuelint.cel.engine import get_engine

    pytest.importorskip("cel_expr_python")
    return get_engine("cel-expr-python")


def _value(engine, source: str, config: dict):
    try:
        return json.dumps(engine.compile(source, VARIABLES).evaluate(engine.activation({"object": config})),
                          sort_keys=True)
    except Exception as exc:  # noqa: BLE001 - the engine's error is the result being compared
        return f"error: {exc}"


def test_a_computed_binding_as_written_gets_another_value():
    engine = _engine()
    if engine.version != "0.1.3":
        pytest.skip(f"checked on cel-expr-python 0.1.3, not {engine.version}")
    source = load_rule_dirs([builtin_rules_dir()])["KQ801"].cel["violations"]
    as_written = _value(engine, source, yaml.safe_load(GANG))
    # if this fails, the engine got it right: the rewrite may no longer be needed
    assert "max" in as_written and as_written.startswith("error")


@pytest.mark.parametrize("engine", ["cel-expr-python", "cel-python"])
def test_the_rule_as_compiled_finds_the_gang_on_three_queues(tmp_path, engine):
    from kueuelint.config import Config
    from kueuelint.pipeline import check, load_inputs

    pytest.importorskip("cel_expr_python" if engine == "cel-expr-python" else "celpy")
    (tmp_path / "compute-config.yaml").write_text(GANG)
    config = Config(select=("KQ801",), cel_engine=engine)
    result = check(load_inputs([str(tmp_path / "compute-config.yaml")], config), config)
    assert [f.code for f in result.findings] == ["KQ801", "KQ801"]
    assert [f.field_path for f in result.findings] == [
        "compute_config.worker_nodes[1].advanced_instance_config.metadata.labels['kueue.x-k8s.io/queue-name']",
        "compute_config.worker_nodes[2].advanced_instance_config.metadata.labels['kueue.x-k8s.io/queue-name']"]


@pytest.mark.parametrize("source, expected", [
    ("cel.bind(a, 1, cel.bind(b, [1].map(x, x), a + b[0]))",
     "cel.bind(a, 1, [[1].map(x, x)].map(b, a + b[0])[0])"),
    ("cel.bind(a, [1, 2].filter(x, x > 1), cel.bind(b, a, b))",
     "[[1, 2].filter(x, x > 1)].map(a, cel.bind(b, a, b))[0]"),
    ("cel.bind(a, cel.bind(c, 1, c), a)", "[cel.bind(c, 1, c)].map(a, a)[0]"),
    ("cel.bind(a, 'x.map(y, y)', a)", "cel.bind(a, 'x.map(y, y)', a)"),   # a string is no macro
    ("cel.bind(a, has(object.spec) ? object.spec : {}, a)", "cel.bind(a, has(object.spec) ? object.spec : {}, a)"),
])
def test_only_bindings_of_comprehensions_are_rewritten(source, expected):
    assert expand_binds(source, computed_only=True) == expected


def test_builtin_rules_keep_plain_bindings_and_rewrite_computed_ones():
    rules = load_rule_dirs([builtin_rules_dir()])
    assert rules["KQ204"].cel_expanded_computed == {}   # its bindings hold names, literals, lookups
    kq801 = rules["KQ801"].cel_expanded_computed[rules["KQ801"].cel["violations"]]
    assert "cel.bind(scores" not in kq801 and "cel.bind(workers" in kq801
    # an engine without cel.bind (cel-python) gets every binding rewritten
    assert "cel.bind" not in rules["KQ801"].cel_expanded[rules["KQ801"].cel["violations"]]
    assert "cel.bind" not in rules["KQ204"].cel_expanded[rules["KQ204"].cel["violations"]]
