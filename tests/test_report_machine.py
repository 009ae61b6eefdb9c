"""JSON, SARIF, JUnit and GitHub reporters: schema validity, escaping, counts."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from conftest import SARIF_SCHEMA
from kueuelint.checks.meta import RuleDocs, RuleMeta
from kueuelint.findings import Finding, Fix, Location, ObjectRef, RunResult, Severity
from kueuelint.report import ReportOptions, get_reporter

REPO = Path(__file__).resolve().parent.parent
JSON_SCHEMA = REPO / "docs" / "output-json-schema.json"

JOB = "manifests/team-a/job.yaml"
CQ = "manifests/cluster-queue.yaml"
ODD = "odd dir/a,b:c%.yaml"
TRAIN = ObjectRef("batch/v1", "Job", "team-a", "train")
QUEUE = ObjectRef("kueue.x-k8s.io/v1beta1", "ClusterQueue", None, "research")


def rules() -> dict[str, RuleMeta]:
    docs = RuleDocs(what="Checks the queue label.", why="Kueue ignores unlabelled jobs.",
                    example="metadata:\n  labels: {}\n", fix="Add the label.")
    return {
        "KQ201": RuleMeta("KQ201", "queue-name-missing", Severity.ERROR, "Job has no queue label",
                          docs=docs, help_uri="https://example.invalid/rules/KQ201"),
        "KQ305": RuleMeta("KQ305", "requests-exceed-quota", Severity.WARNING, "Requests exceed quota"),
        "KQ410": RuleMeta("KQ410", "cohort-unknown", Severity.INFO, "Cohort is not defined"),
        "KQ999": RuleMeta("KQ999", "never-fires", Severity.ERROR, "Listed though unused"),
    }


def sample() -> RunResult:
    findings = [
        Finding("KQ201", "queue-name-missing", Severity.ERROR, "Job “train-ä” has no queue <&>",
                Location(JOB, 4, 3, 4, 9), TRAIN, "metadata.labels", "  labels:", Fix("add the label")),
        Finding("KQ305", "requests-exceed-quota", Severity.WARNING, "requests 120% of quota\r\nsee: a, b",
                Location(JOB, 17, 15), TRAIN, "spec.template.spec.containers[0].resources"),
        Finding("KQ410", "cohort-unknown", Severity.INFO, "cohort is not defined",
                Location(CQ, 9, 11, 10, 1), QUEUE),
        Finding("KQ001", "yaml-syntax-error", Severity.ERROR, "mapping values are not allowed here",
                Location(ODD, 3, 8, None, 9)),
    ]
    return RunResult(findings, files=4, objects=7, seconds=0.12345, rules=rules())


def render(fmt: str, result: RunResult, **options) -> str:
    stream = io.StringIO()
    get_reporter(fmt)(result, stream, ReportOptions(tool_version="1.2.3", **options))
    return stream.getvalue()


# --- registry -------------------------------------------------------------------------

def test_every_format_has_a_reporter():
    from kueuelint.report import FORMATS

    assert FORMATS == ("text", "json", "sarif", "junit", "github", "gitlab")
    assert all(callable(get_reporter(name)) for name in FORMATS)
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        get_reporter("xml")


def test_reporters_import_no_heavy_libraries():
    import subprocess
    import sys

    code = ("import sys\nfrom kueuelint.report import FORMATS, get_reporter\n"
            "assert not [m for m in sys.modules if m.startswith('kueuelint.report.') "
            "and m != 'kueuelint.report.options'], 'a reporter was imported eagerly'\n"
            "for name in FORMATS: get_reporter(name)\n"
            "heavy = {'jsonschema', 'yaml', 'pydantic', 'ruamel'} & {m.split('.')[0] for m in sys.modules}\n"
            "assert not heavy, heavy\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# --- json -----------------------------------------------------------------------------

def json_validator():
    schema = json.loads(JSON_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize("result", [sample(), RunResult([]), RunResult([], internal_error="boom")])
def test_json_validates_against_documented_schema(result):
    json_validator().validate(json.loads(render("json", result)))


def test_json_content_and_key_order():
    doc = json.loads(render("json", sample()))
    assert list(doc) == ["version", "tool", "summary", "findings", "internalError"]
    assert doc["tool"] == {"name": "kueuelint", "version": "1.2.3"}
    assert doc["summary"] == {"files": 4, "objects": 7, "errors": 2, "warnings": 1, "info": 1,
                              "fixable": 0, "seconds": 0.123}
    assert [f["code"] for f in doc["findings"]] == ["KQ201", "KQ305", "KQ410", "KQ001"]
    assert doc["findings"][0] == {
        "file": JOB, "line": 4, "column": 3, "endLine": 4, "endColumn": 9,
        "code": "KQ201", "name": "queue-name-missing", "severity": "error",
        "message": "Job “train-ä” has no queue <&>",
        "object": {"apiVersion": "batch/v1", "kind": "Job", "namespace": "team-a", "name": "train"},
        "fieldPath": "metadata.labels",
        "fix": {"summary": "add the label", "applicable": False, "edits": []},
    }
    assert doc["findings"][1]["endLine"] is None and doc["findings"][1]["message"].endswith("\r\nsee: a, b")
    assert doc["findings"][2]["object"]["namespace"] is None
    assert doc["findings"][3]["object"] is None
    assert (doc["findings"][3]["endLine"], doc["findings"][3]["endColumn"]) == (3, 9)
    assert doc["internalError"] is None


def test_json_is_ascii_and_indented():
    text = render("json", sample())
    assert text.isascii() and "\\u201c" in text
    assert text.startswith('{\n  "version": 1,\n') and text.endswith("}\n")


def test_json_schema_rejects_a_missing_key():
    doc = json.loads(render("json", sample()))
    del doc["findings"][0]["fieldPath"]
    with pytest.raises(jsonschema.ValidationError):
        json_validator().validate(doc)


# --- sarif ----------------------------------------------------------------------------

def sarif_validator():
    schema = json.loads(SARIF_SCHEMA.read_text())
    # The schema declares draft-04 and only refers to itself; validator_for honours that.
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif(result: RunResult, base: str | None = None) -> dict:
    return json.loads(render("sarif", result, cwd_for_uris=base))


@pytest.mark.parametrize("result", [sample(), RunResult([]), RunResult([], internal_error="boom")])
@pytest.mark.parametrize("base", [None, "/srv/checkout"])
def test_sarif_validates_against_the_oasis_schema(result, base):
    sarif_validator().validate(sarif(result, base))


def test_sarif_validator_catches_an_invalid_level():
    doc = sarif(sample())
    doc["runs"][0]["results"][0]["level"] = "info"
    with pytest.raises(jsonschema.ValidationError):
        sarif_validator().validate(doc)


def test_sarif_rules_list_the_whole_catalogue_plus_unknown_codes():
    run = sarif(sample())["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("kueuelint", "1.2.3")
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == ["KQ201", "KQ305", "KQ410", "KQ999", "KQ001"]
    first = driver["rules"][0]
    assert first["name"] == "queue-name-missing"
    assert first["shortDescription"] == {"text": "Job has no queue label"}
    assert first["fullDescription"] == {"text": "Checks the queue label."}
    assert first["help"]["text"].startswith("What it does: Checks the queue label.\n\nWhy it matters:")
    assert "**How to fix**" in first["help"]["markdown"]
    assert first["helpUri"] == "https://example.invalid/rules/KQ201"
    assert [r["defaultConfiguration"]["level"] for r in driver["rules"]] == [
        "error", "warning", "note", "error", "error"]
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_results():
    run = sarif(sample())["runs"][0]
    results = run["results"]
    assert [r["level"] for r in results] == ["error", "warning", "note", "error"]
    first = results[0]
    assert first["message"] == {"text": "Job “train-ä” has no queue <&>"}
    physical = first["locations"][0]["physicalLocation"]
    assert physical == {"artifactLocation": {"uri": JOB, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 4, "startColumn": 3, "endLine": 4, "endColumn": 9}}
    assert first["locations"][0]["logicalLocations"] == [
        {"name": "train", "fullyQualifiedName": "Job/team-a/train", "kind": "resource"}]
    assert first["properties"] == {"fieldPath": "metadata.labels", "fix": "add the label"}
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 17, "startColumn": 15}
    assert results[2]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "ClusterQueue/research"
    odd = results[3]["locations"][0]
    assert "logicalLocations" not in odd
    assert odd["physicalLocation"]["artifactLocation"]["uri"] == "odd%20dir/a%2Cb%3Ac%25.yaml"
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_sarif_paths_relative_to_the_uri_base(tmp_path):
    inside = tmp_path / "deploy" / "job.yaml"
    outside = Path(os.path.abspath("/elsewhere/job.yaml"))
    result = RunResult([Finding("KQ201", "queue-name-missing", Severity.ERROR, "m", Location(str(p)))
                        for p in (inside, outside)])
    run = sarif(result, str(tmp_path))["runs"][0]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert uris == [{"uri": "deploy/job.yaml", "uriBaseId": "%SRCROOT%"}, {"uri": outside.as_uri()}]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"


def test_sarif_reports_internal_errors_as_notifications():
    run = sarif(RunResult([], internal_error="Traceback: boom"))["runs"][0]
    assert run["invocations"] == [{"executionSuccessful": False, "toolExecutionNotifications": [
        {"level": "error", "message": {"text": "Traceback: boom"}}]}]
    assert run["results"] == []


# --- junit ----------------------------------------------------------------------------

def junit(result: RunResult) -> ET.Element:
    text = render("junit", result)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    return ET.fromstring(text.encode("utf-8"))


def test_junit_one_case_per_file_errors_fail_warnings_pass():
    root = junit(sample())
    suite = root.find("testsuite")
    assert suite.get("name") == "kueuelint"
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "3", "failures": "2", "errors": "0", "skipped": "0"}
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "2", "0")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [JOB, CQ, ODD]
    job, queue, odd = cases
    failure = job.find("failure")
    assert failure.get("message") == "1 error, 1 warning"
    assert failure.text.splitlines() == [
        f"{JOB}:4:3: KQ201 [error] Job “train-ä” has no queue <&> (queue-name-missing)",
        f"{JOB}:17:15: KQ305 [warning] requests 120% of quota\\x0d",
        "    see: a, b (requests-exceed-quota)",
    ]
    assert queue.find("failure") is None
    assert queue.find("system-out").text == f"{CQ}:9:11: KQ410 [info] cohort is not defined (cohort-unknown)"
    assert odd.find("failure").get("message") == "1 error"


def test_junit_clean_run_is_one_passing_case():
    root = junit(RunResult([], files=2, objects=5))
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 1 and cases[0].get("name") == "kueuelint"
    assert list(cases[0]) == [cases[0].find("system-out")]
    assert cases[0].find("system-out").text == "All checks passed: 2 files, 5 objects"
    assert root.find("testsuite").get("failures") == "0"


def test_junit_internal_error_and_unrepresentable_characters():
    finding = Finding("KQ001", "yaml-syntax-error", Severity.ERROR, "bad \x00 byte \ud800",
                      Location("x\x01.yaml", 1, 1))
    root = junit(RunResult([finding], internal_error="crash\x1b"))
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "1")
    error = suite.find("testcase[@name='internal error']/error")
    assert error.text == "crash\ufffd"
    assert "\ufffd" in suite.find("testcase").get("name")


# --- github ---------------------------------------------------------------------------

def test_github_workflow_commands():
    assert render("github", sample()).splitlines() == [
        f"::error file={JOB},line=4,col=3,endLine=4,endColumn=9,title=KQ201 queue-name-missing"
        "::Job “train-ä” has no queue <&>",
        f"::warning file={JOB},line=17,col=15,title=KQ305 requests-exceed-quota"
        "::requests 120%25 of quota%0D%0Asee: a, b",
        f"::notice file={CQ},line=9,col=11,endLine=10,endColumn=1,title=KQ410 cohort-unknown"
        "::cohort is not defined",
        "::error file=odd dir/a%2Cb%3Ac%25.yaml,line=3,col=8,endLine=3,endColumn=9,"
        "title=KQ001 yaml-syntax-error::mapping values are not allowed here",
    ]


def test_github_paths_relative_to_workspace_and_internal_error(tmp_path):
    path = tmp_path / "k8s" / "job.yaml"
    finding = Finding("KQ201", "queue-name-missing", Severity.ERROR, "m", Location(str(path), 2, 1))
    lines = render("github", RunResult([finding], internal_error="boom\nline 2"),
                   cwd_for_uris=str(tmp_path)).splitlines()
    assert lines == ["::error file=k8s/job.yaml,line=2,col=1,title=KQ201 queue-name-missing::m",
                     "::error title=kueuelint internal error::boom%0Aline 2"]


def test_github_clean_run_prints_nothing():
    assert render("github", RunResult([], files=3)) == ""
