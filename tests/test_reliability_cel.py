"""CEL that loops, nests or builds huge values is stopped and reported; it never hangs the run.

Bounds (kueuelint/checks/cel_rules.py): the engine's own limits (100,000 code points and 32
levels of nesting per expression, a shared comprehension-iteration budget per evaluation), and
for expressions that can grow values geometrically a forked evaluation stopped after
CEL_TIME_LIMIT (2 s) and CEL_MEMORY_LIMIT (1 GiB).
"""

from __future__ import annotations

import json
import time

import pytest

from conftest import run_cli
from kueuelint.checks import cel_rules
from kueuelint.checks.cel_rules import CelLimitExceeded, may_grow, run_bounded

TEN = "[1,2,3,4,5,6,7,8,9,10]"


def doubling_bind(steps: int) -> str:
    body = f"size(x{steps}) > 0"
    for step in range(steps, 0, -1):
        body = f"cel.bind(x{step}, x{step - 1} + x{step - 1}, {body})"
    return f"cel.bind(x0, [1], {body})"


HOSTILE = {
    "KQ991": doubling_bind(26),                                       # 2^26-element list
    "KQ992": "[[1]]" + ".map(x, x + x)" * 24 + ".size() > 0",        # doubling through map
    "KQ993": f"{TEN}.map(a, {TEN}.map(b, {TEN}.map(c, {TEN}.map(d, {TEN}.map(e, 1))))).size() > 0",
    "KQ994": "'ab'" + ".replace('a', 'aaaaaaaa')" * 12 + ".size() > 0",
    "KQ995": "(" * 200 + "true" + ")" * 200,                          # recursion
    "KQ996": "object.spec.size() > 0",                                # raises: no spec
}
FINE = "object.metadata.name != 'bad'"


def write_rule(folder, code: str, expression: str, name: str) -> None:
    (folder / f"{code}-{name}.yaml").write_text(
        f"code: {code}\nname: {name}\nseverity: warning\nsummary: test rule\nkinds: [ConfigMap]\n"
        f"message: \"{name} fails\"\nimplementation: cel\n"
        f"cel:\n  validations:\n    - expression: {json.dumps(expression)}\ndocs: {{what: test}}\n")


@pytest.fixture
def project(tmp_path):
    rules = tmp_path / "policies"
    rules.mkdir()
    for code, expression in HOSTILE.items():
        write_rule(rules, code, expression, f"hostile-{code.lower()}")
    write_rule(rules, "KQ997", FINE, "fine")
    (tmp_path / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\nselect: [KQ9]\n")
    objects = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n"
                      for name in ("bad", "ok", "third"))
    (tmp_path / "cms.yaml").write_text(objects)
    return tmp_path


def test_hostile_rules_are_stopped_reported_as_kq009_and_the_others_still_run(project):
    started = time.monotonic()
    proc = run_cli("check", "--format", "json", "cms.yaml", cwd=project)
    elapsed = time.monotonic() - started
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    errors = {(f["line"], f["message"].split(")")[0]) for f in findings if f["code"] == "KQ009"}
    for code in HOSTILE:
        for line in (2, 6, 10):               # every object: the rule's code and the object
            assert any(m.startswith(f"rule {code} (") for at, m in errors if at == line), (code, line)
    assert [(f["code"], f["line"]) for f in findings if f["code"] == "KQ997"] == [("KQ997", 2)]
    # each rule that runs past the time limit is stopped once, then skipped
    assert elapsed < 3 * cel_rules.CEL_TIME_LIMIT + 20


def test_kq009_names_the_rule_the_object_and_the_limit(project):
    proc = run_cli("check", "--no-source", "-q", "cms.yaml", cwd=project)
    lines = proc.stdout.splitlines()
    stopped = [line for line in lines if "rule KQ991" in line]
    assert stopped[0].startswith("cms.yaml:2:1: KQ009")
    assert "ConfigMap default/bad" in stopped[0]
    assert "kueuelint's time limit" in stopped[0] or "kueuelint's memory limit" in stopped[0]
    budget = next(line for line in lines if "rule KQ993" in line)
    assert "Iteration budget exceeded" in budget
    raised = next(line for line in lines if "rule KQ996" in line)
    assert "ConfigMap default/bad" in raised and "spec" in raised


@pytest.mark.parametrize("source,grows", [
    ("object.spec.containers.map(c, c.name)", False),
    ("object.metadata.name.startsWith('a')", False),
    ("'cel.bind(' + object.metadata.name", False),
    ("cel.bind(x, object.spec, x)", True),
    ("a.map(x, x).map(y, y + y)", True),
    ("object.metadata.name.replace('a', 'b')", True),
    ("['a'].join(',')", True),
])
def test_which_expressions_are_bounded(source, grows):
    assert may_grow(source) is grows


def test_run_bounded_passes_results_and_errors_back():
    assert run_bounded(lambda: {"a": [1, 2]}) == {"a": [1, 2]}
    with pytest.raises(cel_rules.CelRuleError, match="ValueError: nope"):
        run_bounded(lambda: (_ for _ in ()).throw(ValueError("nope")))


def test_run_bounded_stops_a_hang():
    started = time.monotonic()
    with pytest.raises(CelLimitExceeded, match="stopped after 0.5 s"):
        run_bounded(lambda: time.sleep(60), seconds=0.5)
    assert time.monotonic() - started < 5


def test_run_bounded_reports_running_out_of_memory_as_a_limit():
    with pytest.raises(CelLimitExceeded, match="memory limit"):
        run_bounded(lambda: bytearray(4 * cel_rules.CEL_MEMORY_LIMIT))


def test_run_bounded_survives_a_child_that_dies():
    import os

    with pytest.raises(CelLimitExceeded, match="ended the process"):
        run_bounded(lambda: os._exit(3))


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: %s
              message: too big
            properties:
              size: {type: integer}
"""


def test_a_hostile_crd_validation_rule_in_the_scanned_tree_is_bounded(tmp_path):
    (tmp_path / "crd.yaml").write_text(CRD % json.dumps(doubling_bind(26)))
    widgets = "".join(f"---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w{n}}}\n"
                      f"spec: {{size: 1}}\n" for n in range(3))
    (tmp_path / "widgets.yaml").write_text(widgets)
    started = time.monotonic()
    proc = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    assert time.monotonic() - started < 3 * cel_rules.CEL_TIME_LIMIT + 20
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert json.loads(proc.stdout)["internalError"] is None
    limited = [f for f in findings if "kueuelint's time limit" in f["message"]
               or "kueuelint's memory limit" in f["message"]]
    assert limited and all(f["file"] == "widgets.yaml" for f in limited)
