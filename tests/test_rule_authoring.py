"""A project's own rules: their mistakes are reported as theirs, and the commands that list,
explain and test rules see them through the configuration."""

import json

from conftest import run_cli
from test_user_python_rules import RULE as PYTHON_RULE

# the same rule, decided by the CEL or Python given as ``implementation``
RULE = PYTHON_RULE.replace("implementation: python\npython: {module}:check", "{implementation}")
assert "{implementation}" in RULE

JOB = """apiVersion: batch/v1
kind: Job
metadata:{expect}
  name: trainer
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def _project(tmp_path, implementation: str, module: str | None = None):
    rules = tmp_path / "policies"
    rules.mkdir()
    (rules / "KQ951-team-label.yaml").write_text(RULE.format(implementation=implementation))
    if module is not None:
        (rules / "team.py").write_text(module)
    (tmp_path / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\n")
    (tmp_path / "job.yaml").write_text(JOB.replace("{expect}", ""))
    return rules


def _rule_errors(tmp_path) -> list[str]:
    proc = run_cli("check", "--no-source", "-q", "--select", "KQ9", "job.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "internal error" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return [line for line in proc.stdout.splitlines() if " KQ009 " in line]


def test_a_rule_returning_dicts_is_a_finding_naming_the_rule_file_and_the_object(tmp_path):
    _project(tmp_path, "python: team:check",
             "def check(obj, ctx):\n    yield {'message': 'no team'}\n")
    [line] = _rule_errors(tmp_path)
    assert line.startswith("job.yaml:1:1: KQ009 [error] rule KQ951 (team-label) failed on Job default/trainer")
    assert "returns Violation objects" in line and "got dict" in line
    assert "rule file policies/KQ951-team-label.yaml" in line


def test_a_rule_that_raises_names_the_line_of_its_own_code(tmp_path):
    _project(tmp_path, "python: team:check",
             "def check(obj, ctx):\n    labels = obj.labels\n    return labels['team']\n")
    [line] = _rule_errors(tmp_path)
    assert "KeyError: 'team'" in line and "policies/team.py:3" in line, line


def test_a_rule_module_that_does_not_compile_is_a_finding(tmp_path):
    _project(tmp_path, "python: team:check", "def check(obj, ctx:\n    return []\n")
    [line] = _rule_errors(tmp_path)
    assert "SyntaxError" in line and "policies/team.py:1" in line, line


def test_a_missing_function_is_named(tmp_path):
    _project(tmp_path, "python: team:chek", "def check(obj, ctx):\n    return []\n")
    [line] = _rule_errors(tmp_path)
    assert "has no function 'chek'" in line, line


def test_a_cel_rule_that_does_not_compile_is_a_finding_naming_the_rule_file(tmp_path):
    _project(tmp_path, "cel:\n  validations:\n    - expression: \"object.metadata.labels.exists(\"")
    [line] = _rule_errors(tmp_path)
    assert "CEL compile error" in line and "rule file policies/KQ951-team-label.yaml" in line, line


def _with_fixtures(rules):
    folder = rules / "KQ951"
    folder.mkdir()
    (folder / "fail-no-team.yaml").write_text(JOB.replace("{expect}", "  # expect: KQ951"))
    (folder / "pass-team.yaml").write_text(JOB.replace("{expect}", "\n  labels: {team: ml}"))


def test_test_rules_shows_the_rules_own_error_not_a_missing_finding(tmp_path):
    rules = _project(tmp_path, "python: team:check", "def check(obj, ctx):\n    return obj.nope\n")
    _with_fixtures(rules)
    proc = run_cli("test-rules", "policies", cwd=tmp_path)
    assert proc.returncode == 1
    assert "rule KQ951 itself failed" in proc.stdout and "AttributeError" in proc.stdout, proc.stdout
    assert "policies/team.py:2" in proc.stdout
    assert "missing  KQ951" not in proc.stdout


def test_test_rules_passes_a_working_rule(tmp_path):
    rules = _project(tmp_path, "python: team:check",
                     "from kueuelint.checks.api import Violation\n\n"
                     "def check(obj, ctx):\n    if 'team' not in obj.labels:\n"
                     "        yield Violation(path=('metadata',))\n")
    _with_fixtures(rules)
    proc = run_cli("test-rules", "policies", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("2 passed, 0 failed")


def test_test_rules_on_a_folder_without_rules_says_so_and_fails(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.yaml").write_text("a: 1\n")
    proc = run_cli("test-rules", "empty", cwd=tmp_path)
    assert proc.returncode == 2
    assert "no rule files" in proc.stderr and "passed" not in proc.stdout


def test_explain_and_rules_show_rules_of_the_configuration(tmp_path):
    _project(tmp_path, "cel:\n  validations:\n    - expression: \"true\"")
    explained = run_cli("explain", "KQ951", cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.startswith("KQ951 team-label (error)")
    assert "KQ951-team-label.yaml" in explained.stdout and "Fix: none" in explained.stdout
    by_name = run_cli("explain", "team-label", cwd=tmp_path)
    assert by_name.stdout == explained.stdout
    listed = run_cli("rules", cwd=tmp_path).stdout
    assert any(line.startswith("KQ951  team-label") for line in listed.splitlines())
    without = run_cli("explain", "KQ951")      # the repository's own configuration has no such rule
    assert without.returncode == 2 and "no rule 'KQ951'" in without.stderr


def test_explain_reads_the_configuration_named_with_config(tmp_path):
    _project(tmp_path, "cel:\n  validations:\n    - expression: \"true\"")
    (tmp_path / "sub").mkdir()
    proc = run_cli("explain", "--config", str(tmp_path / ".kueuelint.yaml"), "KQ951", cwd=tmp_path / "sub")
    assert proc.returncode == 0 and "team-label" in proc.stdout, proc.stderr


def test_rules_and_explain_say_which_rules_fix(cli):
    table = cli("rules").stdout.splitlines()
    fixable = {line[:5] for line in table if line.startswith("KQ") and "  [*]  " in line}
    assert fixable == {"KQ101", "KQ102", "KQ201", "KQ630"}
    listed = {rule["code"]: rule["fix"] for rule in json.loads(cli("rules", "--format", "json").stdout)}
    assert listed["KQ630"] == "set spec.shutdownAfterJobFinishes: true" and listed["KQ205"] is None
    assert "Fix: kueuelint check --fix moved kueue.x-k8s.io/queue-name" in cli("explain", "KQ201").stdout
    assert "Fix: none" in cli("explain", "KQ205").stdout
