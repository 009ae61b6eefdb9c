"""A project's own Python rules: their modules sit next to the rule files, no PYTHONPATH."""

from conftest import run_cli

RULE = """code: KQ951
name: team-label
severity: error
summary: Jobs carry a team label.
kinds: [batch/Job]
message: "{{object}} has no team label"
implementation: python
python: {module}:check
docs: {{what: Requires a team label.}}
"""

CHECK = """from kueuelint.checks.api import Violation

def check(obj, ctx):
    if "team" not in (obj.get("metadata", "labels") or {{}}):
        yield Violation(path=("metadata",), message={message!r})
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}{labels}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox}}]
"""


def _policies(tmp_path, module: str, message: str = "no team label"):
    rules = tmp_path / "policies"
    module_file = rules.joinpath(*module.split(".")).with_suffix(".py")
    module_file.parent.mkdir(parents=True, exist_ok=True)
    module_file.write_text(CHECK.format(message=message))
    (rules / "KQ951-team-label.yaml").write_text(RULE.format(module=module))
    (tmp_path / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\nselect: [KQ951]\n")
    return rules


def test_a_rule_module_beside_the_rule_file_is_found(tmp_path):
    _policies(tmp_path, "team")
    (tmp_path / "job.yaml").write_text(JOB.format(name="a", labels=""))
    proc = run_cli("check", "--no-source", "-q", "job.yaml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("job.yaml:3:1: KQ951 [error] no team label")


def test_a_rule_module_in_a_subfolder_is_found_by_its_dotted_name(tmp_path):
    _policies(tmp_path, "lib.labels")
    (tmp_path / "job.yaml").write_text(JOB.format(name="a", labels="\n  labels: {team: ml}"))
    proc = run_cli("check", "-q", "job.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_rule_folder_wins_over_an_installed_module_of_the_same_name(tmp_path):
    # 'json' is in the standard library; the project's json.py beside the rule is meant
    _policies(tmp_path, "json", message="from the project's own json.py")
    (tmp_path / "job.yaml").write_text(JOB.format(name="a", labels=""))
    proc = run_cli("check", "--no-source", "-q", "job.yaml", cwd=tmp_path)
    assert "from the project's own json.py" in proc.stdout, proc.stdout + proc.stderr


def test_rule_fixtures_of_a_python_rule_run_without_pythonpath(tmp_path):
    rules = _policies(tmp_path, "team")
    fixtures = rules / "KQ951"
    fixtures.mkdir()
    (fixtures / "fail-no-label.yaml").write_text(JOB.format(name="a", labels="").replace(
        "metadata:\n", "metadata:  # expect: KQ951\n"))
    (fixtures / "pass-label.yaml").write_text(JOB.format(name="a", labels="\n  labels: {team: ml}"))
    proc = run_cli("test-rules", "policies", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
