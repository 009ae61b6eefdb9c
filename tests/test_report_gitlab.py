"""--format gitlab: GitLab's Code Quality report, checked against the fields GitLab documents."""

from __future__ import annotations

import json
import shutil

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
