"""Fixes users can see before they run --fix: markers, counts, the JSON and SARIF edits, --diff."""

from __future__ import annotations

import json
import shutil
import subprocess

import jsonschema
import pytest

from conftest import REPO, run_cli

FIXTURES = REPO / "fixtures" / "fix"
SARIF_SCHEMA = REPO / "tests" / "data" / "schemas" / "sarif-schema-2.1.0.json"
FIXED_CODES = {"KQ102", "KQ201", "KQ630"}


@pytest.fixture
def before(tmp_path):
    target = tmp_path / "queues.yaml"
    shutil.copy(FIXTURES / "before.yaml", target)
    return target


def _after() -> str:
    return (FIXTURES / "after.yaml").read_text()


def apply_line_edits(text: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    """Apply (line, column, end line, end column, new text) edits, 1-based, as an editor would."""
    starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    spans = [(starts[l - 1] + c - 1, starts[el - 1] + ec - 1, new) for l, c, el, ec, new in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_text_marks_fixable_findings_and_counts_them(before):
    proc = run_cli("check", "--no-source", before.name, cwd=before.parent)
    headlines = [line for line in proc.stdout.splitlines() if line.startswith("queues.yaml:")]
    marked = {line.split()[1] for line in headlines if " [*] " in line}
    assert marked == FIXED_CODES
    assert all(" [*] " not in line for line in headlines if line.split()[1] not in FIXED_CODES)
    assert proc.stdout.rstrip().endswith("[*] 3 fixable with --fix (preview: --diff)")


def test_a_finding_fix_cannot_make_is_not_marked(tmp_path):
    (tmp_path / "job.yaml").write_text("apiVersion: batch/v1\nkind: Job\n"
                                       "metadata: {name: j, annotations: {kueue.x-k8s.io/queue-name: q}}\n")
    proc = run_cli("check", "--no-source", "job.yaml", cwd=tmp_path)
    assert " KQ201 [error] " in proc.stdout and "[*]" not in proc.stdout


def test_json_fix_holds_the_edits_that_fix_writes(before):
    original = before.read_text()
    proc = run_cli("check", "--format", "json", before.name, cwd=before.parent)
    report = json.loads(proc.stdout)
    fixes = {f["code"]: f["fix"] for f in report["findings"] if f["fix"]}
    assert set(fixes) == FIXED_CODES and report["summary"]["fixable"] == 3
    assert all(fix["applicable"] for fix in fixes.values())
    edits = [(e["line"], e["column"], e["endLine"], e["endColumn"], e["text"])
             for fix in fixes.values() for e in fix["edits"]]
    assert apply_line_edits(original, edits) == _after()
    schema = json.loads((REPO / "docs" / "output-json-schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)


def test_sarif_fixes_carry_the_replacements_and_validate(before):
    original = before.read_text()
    proc = run_cli("check", "--format", "sarif", before.name, cwd=before.parent)
    sarif = json.loads(proc.stdout)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    results = sarif["runs"][0]["results"]
    with_fixes = [r for r in results if "fixes" in r]
    assert {r["ruleId"] for r in with_fixes} == FIXED_CODES
    edits = []
    for result in with_fixes:
        [fix] = result["fixes"]
        [change] = fix["artifactChanges"]
        assert change["artifactLocation"] == {"uri": "queues.yaml", "uriBaseId": "%SRCROOT%"}
        assert fix["description"]["text"]
        for replacement in change["replacements"]:
            region = replacement["deletedRegion"]
            edits.append((region["startLine"], region["startColumn"], region["endLine"], region["endColumn"],
                          replacement["insertedContent"]["text"]))
    assert apply_line_edits(original, edits) == _after()


def test_diff_prints_a_patch_and_writes_nothing(before):
    original = before.read_text()
    proc = run_cli("check", "--diff", before.name, cwd=before.parent)
    assert proc.returncode == 1, proc.stderr
    assert before.read_text() == original
    assert proc.stdout.startswith("--- queues.yaml\n+++ queues.yaml\n@@ ")
    assert "-apiVersion: kueue.x-k8s.io/v1beta1   # old\n+apiVersion: kueue.x-k8s.io/v1beta2   # old\n" \
        in proc.stdout
    assert "Would fix 3 findings in 1 file." in proc.stderr
    patched = subprocess.run(["patch", "-s", "-p0"], input=proc.stdout, text=True, cwd=before.parent,
                             capture_output=True)
    assert patched.returncode == 0, patched.stderr
    assert before.read_text() == _after()


def test_diff_without_changes_exits_zero(tmp_path):
    (tmp_path / "rf.yaml").write_text((FIXTURES / "after.yaml").read_text())
    proc = run_cli("check", "--diff", "rf.yaml", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


def test_diff_marks_a_last_line_without_newline(tmp_path):
    (tmp_path / "rj.yaml").write_text("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n"
                                      "  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n  entrypoint: x")
    proc = run_cli("check", "--diff", "rj.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.endswith("+  shutdownAfterJobFinishes: true\n   entrypoint: x\n"
                                "\\ No newline at end of file\n"), proc.stdout


@pytest.mark.parametrize("extra", [["--fix"], ["--format", "json"], ["-o", "out.txt"]])
def test_diff_refuses_other_outputs(before, extra):
    proc = run_cli("check", "--diff", *extra, before.name, cwd=before.parent)
    assert proc.returncode == 2 and "--diff" in proc.stderr


def test_check_knows_every_fixer_without_importing_them():
    from kueuelint.findings import FIXER_CODES
    from kueuelint.fix.fixers import FIXERS

    assert FIXER_CODES == set(FIXERS)
