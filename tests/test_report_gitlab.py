"""--format gitlab: GitLab's Code Quality report, checked against the fields GitLab documents."""

from __future__ import annotations

import json
import shutil
import subprocess

import jsonschema

from conftest import REPO, run_cli

# The fields GitLab's "Code Quality report format" documents as required for each issue
# (docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format), with the severities
# it accepts. Extra keys are allowed by GitLab; kueuelint writes none.
CODE_QUALITY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "additionalProperties": False,
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string", "pattern": "^[^/]"},
                    "lines": {"type": "object", "required": ["begin"], "additionalProperties": False,
                              "properties": {"begin": {"type": "integer", "minimum": 1}}},
                },
            },
        },
    },
}


def _reports(tmp_path):
    tree = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures" / "examples", tree)
    gitlab = run_cli("check", "--format", "gitlab", ".", cwd=tree)
    as_json = run_cli("check", "--format", "json", ".", cwd=tree)
    return tree, json.loads(gitlab.stdout), json.loads(as_json.stdout)["findings"], gitlab


def test_the_report_has_gitlabs_fields_for_every_finding(tmp_path):
    _, report, findings, proc = _reports(tmp_path)
    assert proc.returncode == 1
    jsonschema.Draft7Validator(CODE_QUALITY).validate(report)
    assert len(report) == len(findings) > 0
    for issue, finding in zip(report, findings):
        assert issue["location"] == {"path": finding["file"], "lines": {"begin": finding["line"]}}
        assert issue["check_name"] == f"{finding['code']} {finding['name']}"
        assert finding["message"] in issue["description"]
        assert issue["severity"] == {"error": "major", "warning": "minor", "info": "info"}[finding["severity"]]
    assert len({issue["fingerprint"] for issue in report}) == len(report)


def test_paths_are_relative_to_the_repository(tmp_path):
    tree, _, _, _ = _reports(tmp_path)
    proc = run_cli("check", "--format", "gitlab", str(tree), cwd=tree)
    assert all(not issue["location"]["path"].startswith("/") for issue in json.loads(proc.stdout))


def test_fingerprints_survive_an_edit_above_and_repeats_are_told_apart(tmp_path):
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
           "    kueue.x-k8s.io/queue-name: q\nspec: {}\n")
    (tmp_path / "a.yaml").write_text(job + "---\n" + job)
    first = json.loads(run_cli("check", "--format", "gitlab", "a.yaml", cwd=tmp_path).stdout)
    (tmp_path / "a.yaml").write_text("# a comment above\n" + job + "---\n" + job)
    second = json.loads(run_cli("check", "--format", "gitlab", "a.yaml", cwd=tmp_path).stdout)
    assert [i["fingerprint"] for i in first] == [i["fingerprint"] for i in second]
    assert [i["location"]["lines"]["begin"] for i in first] != [i["location"]["lines"]["begin"] for i in second]
    assert len({i["fingerprint"] for i in first}) == len(first) >= 2


def test_gitlab_and_another_format_in_one_run(tmp_path):
    tree, _, _, _ = _reports(tmp_path)
    proc = run_cli("check", "--format", "gitlab", "-o", "cq.json", "--format", "text", ".", cwd=tree)
    assert proc.returncode == 1 and "error" in proc.stdout
    jsonschema.Draft7Validator(CODE_QUALITY).validate(json.loads((tree / "cq.json").read_text()))


def test_the_gitlab_ci_job_writes_the_report_it_declares(tmp_path):
    """The job's script lines run in a shell as GitLab's runner would (its variables as
    environment); `pip` is a recorder here, since the release would come from PyPI."""
    import os
    import stat
    import sys

    import yaml

    template = yaml.safe_load((REPO / "ci" / "kueuelint.gitlab-ci.yml").read_text())
    job = template["kueuelint"]
    report_name = job["artifacts"]["reports"]["codequality"]
    assert job["artifacts"]["when"] == "always"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pip").write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path / 'pip-args'}\n")
    (bin_dir / "kueuelint").write_text(f"#!/bin/sh\nexec {sys.executable} -m kueuelint \"$@\"\n")
    for tool in bin_dir.iterdir():
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    tree = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures" / "examples", tree)
    env = {**os.environ, **template["variables"], "KUEUELINT_VERSION": "0.2.0",
           "KUEUELINT_PATHS": "jobs queues", "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    script = "\n".join(job["script"])
    proc = subprocess.run(["sh", "-c", script], cwd=tree, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr                      # findings fail the job
    assert (tmp_path / "pip-args").read_text().split() == ["install", "--quiet", "kueuelint==0.2.0"]
    report = json.loads((tree / report_name).read_text())
    jsonschema.Draft7Validator(CODE_QUALITY).validate(report)
    assert report and {issue["location"]["path"].split("/")[0] for issue in report} <= {"jobs", "queues"}
    assert "error" in proc.stdout                                    # and the log shows them
