"""A gate fails closed: a typo in a rule code, a version or a path is a usage error, never a pass."""

from __future__ import annotations

import pytest

from kueuelint.config import ConfigError, from_mapping, parse_kueue_version

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: team-a
  annotations:
    kueue.x-k8s.io/queue-name: q
"""


@pytest.fixture()
def job(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(JOB)
    return str(path)


@pytest.mark.parametrize("flag", ["--select", "--ignore", "--extend-select"])
def test_unknown_code_on_the_command_line_is_a_usage_error(cli, job, flag):
    proc = cli("check", flag, "KQ2O1", job)
    assert proc.returncode == 2
    assert f"{flag}: 'KQ2O1' is not a rule code or prefix; did you mean 'KQ201'?" in proc.stderr


def test_a_prefix_that_selects_rules_is_accepted(cli, job):
    assert cli("check", "--select", "KQ2", job).returncode == 1
    assert cli("check", "--ignore", "KQ2", job).returncode == 0


@pytest.mark.parametrize("setting", [
    "select: [KQ999]", "ignore: [KQ8x]", "severity: {KQ2011: warning}",
    "per-file-ignores: {'*.yaml': [KQ7O1]}", "rules: {KQ9999: {}}",
])
def test_unknown_code_in_the_configuration_is_a_usage_error(cli, tmp_path, job, setting):
    (tmp_path / ".kueuelint.yaml").write_text(setting + "\n")
    proc = cli("check", "--config", str(tmp_path / ".kueuelint.yaml"), job)
    assert proc.returncode == 2, proc.stdout
    assert "not a rule" in proc.stderr
    assert proc.stderr.count("\n") == 1   # one line


def test_codes_of_project_rules_are_known(cli, tmp_path, job):
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "KQ950-team-label.yaml").write_text(
        "code: KQ950\nname: team-label\nseverity: error\nsummary: s\nkinds: [batch/Job]\n"
        "message: m\ncel:\n  validations:\n    - expression: 'true'\n")
    (tmp_path / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\nselect: [KQ950]\n")
    assert cli("check", "--config", str(tmp_path / ".kueuelint.yaml"), job).returncode == 0


def test_a_suppression_with_an_unknown_code_is_an_error(cli, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(JOB.replace("queue-name: q", "queue-name: q  # kueuelint: ignore[KQ2O1] old"))
    proc = cli("check", "--format", "json", str(path))
    assert proc.returncode == 1
    import json

    findings = {(f["code"], f["severity"]) for f in json.loads(proc.stdout)["findings"]}
    assert ("KQ010", "error") in findings and ("KQ201", "error") in findings


@pytest.mark.parametrize("value", ["0.25", "1.0", "0.19.x", "nineteen"])
def test_an_unknown_kueue_version_is_a_usage_error(cli, job, value):
    with pytest.raises(ConfigError):
        parse_kueue_version(value)
    proc = cli("check", "--kueue-version", value, job)
    assert proc.returncode == 2 and "--kueue-version" in proc.stderr


@pytest.mark.parametrize("value,expected", [("0.14", (0, 14)), ("v0.19.2", (0, 19)), ("0.20", (0, 20)),
                                            ("latest", (0, 19))])
def test_known_kueue_versions_parse(value, expected):
    assert parse_kueue_version(value) == expected
    assert from_mapping({"kueue-version": value}).kueue_version == expected


@pytest.mark.parametrize("args", [("--context", "no-such-dir"), ("--crd", "no-such-crds.yaml")])
def test_a_missing_context_or_crd_path_is_a_usage_error(cli, job, args):
    proc = cli("check", *args, job)
    assert proc.returncode == 2 and "does not exist" in proc.stderr and args[1] in proc.stderr


@pytest.mark.parametrize("setting", ["context: [clusters/prod/]", "crds: [crds/]", "rule-dirs: [policies/]"])
def test_a_missing_path_in_the_configuration_is_a_usage_error(cli, tmp_path, job, setting):
    (tmp_path / ".kueuelint.yaml").write_text(setting + "\n")
    proc = cli("check", "--config", str(tmp_path / ".kueuelint.yaml"), job)
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_an_existing_context_is_accepted(cli, tmp_path, job):
    (tmp_path / "queues").mkdir()
    assert cli("check", "--context", str(tmp_path / "queues"), job).returncode == 1


def test_a_run_that_finds_no_file_says_so(cli, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("no manifests here\n")
    proc = cli("check", str(tmp_path / "docs"))
    assert proc.returncode == 2
    assert "no files found to check" in proc.stderr


def test_diff_fails_closed_on_an_unknown_code_too(cli, tmp_path, job):
    (tmp_path / ".kueuelint.yaml").write_text("ignore: [KQ1I2]\n")
    proc = cli("diff", "--config", str(tmp_path / ".kueuelint.yaml"), job, job)
    assert proc.returncode == 2 and "did you mean 'KQ112'?" in proc.stderr
