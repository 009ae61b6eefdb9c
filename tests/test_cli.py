"""The command line as users drive it: exit codes, formats, stdin, pipes, config, errors."""

from __future__ import annotations

import json

from conftest import CORPUS

BAD_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: j
  annotations:
    kueue.x-k8s.io/queue-name: q
"""
GOOD_CQ = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: f\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_text_output_has_location_code_source_and_summary(cli, tmp_path):
    path = write(tmp_path, "job.yaml", BAD_JOB)
    proc = cli("check", path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == (f"{path}:6:5: KQ201 [*] [error] Job default/j sets kueue.x-k8s.io/queue-name as an "
                        "annotation; Kueue reads only the label (queue-name-annotation)")
    assert "kueue.x-k8s.io/queue-name: q" in lines[1]
    assert "1 file" in lines[-1] and "1 error" in lines[-1]
    assert "\x1b[" not in proc.stdout  # no colour on a pipe


def test_clean_run_exits_zero(cli, tmp_path):
    proc = cli("check", write(tmp_path, "rf.yaml", GOOD_CQ))
    assert proc.returncode == 0, proc.stdout


def test_exit_zero_fail_on_and_colour(cli, tmp_path):
    path = write(tmp_path, "rf.yaml", GOOD_CQ.replace("v1beta2", "v1beta1"))
    assert cli("check", path).returncode == 0  # a warning does not fail by default
    assert cli("check", "--fail-on", "warning", path).returncode == 1
    assert cli("check", "--exit-zero", "--fail-on", "warning", path).returncode == 0
    assert "\x1b[" in cli("check", "--color", "always", path).stdout


def test_stdin_with_a_name(cli):
    proc = cli("check", "-", "--stdin-filename", "chart/job.yaml", stdin=BAD_JOB)
    assert proc.returncode == 1
    assert proc.stdout.startswith("chart/job.yaml:6:5: KQ201")


def test_json_and_sarif_written_in_one_run(cli, tmp_path):
    path = write(tmp_path, "job.yaml", BAD_JOB)
    out_json, out_sarif = tmp_path / "r.json", tmp_path / "r.sarif"
    proc = cli("check", path, "--format", "json", "--output", str(out_json),
               "--format", "sarif", "--output", str(out_sarif))
    assert proc.returncode == 1 and proc.stdout == ""
    report = json.loads(out_json.read_text())
    finding = report["findings"][0]
    assert (finding["code"], finding["line"], finding["column"]) == ("KQ201", 6, 5)
    assert finding["object"]["kind"] == "Job"
    sarif = json.loads(out_sarif.read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "KQ201"


def test_github_annotations(cli, tmp_path):
    path = write(tmp_path, "job.yaml", BAD_JOB)
    proc = cli("check", "--format", "github", path)
    assert proc.stdout.startswith(f"::error file={path},line=6,col=5")


def test_select_and_ignore(cli, tmp_path):
    path = write(tmp_path, "job.yaml", BAD_JOB)
    assert cli("check", "--ignore", "KQ2", path).returncode == 0
    assert cli("check", "--select", "KQ1", path).returncode == 0
    assert cli("check", "--select", "KQ201", path).returncode == 1


def test_bad_file_does_not_stop_the_others(cli, tmp_path):
    write(tmp_path, "a-broken.yaml", "a: [1\n")
    write(tmp_path, "b-job.yaml", BAD_JOB)
    proc = cli("check", str(tmp_path))
    codes = [line.split()[1] for line in proc.stdout.splitlines() if ": KQ" in line]
    assert codes == ["KQ001", "KQ201"]
    assert "Traceback" not in proc.stderr


def test_usage_errors_exit_two_with_one_line(cli, tmp_path):
    (tmp_path / ".kueuelint.yaml").write_text("selct: [KQ1]\n")
    proc = cli("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("kueuelint: error: " + str(tmp_path / ".kueuelint.yaml")
                                   + ": unknown option 'selct'; did you mean 'select'?")
    assert cli("check").returncode == 2
    assert cli("check", "--format", "json", "--format", "sarif", "x").returncode == 2


def test_missing_path_is_a_finding_not_a_crash(cli, tmp_path):
    proc = cli("check", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 1
    assert "KQ003" in proc.stdout and "no such file" in proc.stdout


def test_context_is_loaded_but_not_reported(cli, tmp_path):
    bad = write(tmp_path, "ctx.yaml", BAD_JOB)
    ok = write(tmp_path, "rf.yaml", GOOD_CQ)
    proc = cli("check", ok, "--context", bad)
    assert proc.returncode == 0 and "KQ201" not in proc.stdout


def test_version_help_rules_explain(cli):
    assert cli("--version").stdout.startswith("kueuelint ")
    assert "--fail-on" in cli("check", "--help").stdout
    listing = cli("rules").stdout
    assert "KQ201  queue-name-annotation" in listing
    explained = cli("explain", "KQ201")
    assert "**How to fix**" in explained.stdout
    wrong = cli("explain", "queue-name-anotation")
    assert wrong.returncode == 2 and "did you mean 'queue-name-annotation'" in wrong.stderr


def test_rules_json(cli):
    rules = json.loads(cli("rules", "--format", "json").stdout)
    assert {"code", "name", "severity", "summary", "docs"} <= set(rules[0])


def test_test_rules_command_on_a_user_rule_dir(cli, tmp_path):
    rules = tmp_path / "team-rules"
    (rules / "KQ950").mkdir(parents=True)
    (rules / "KQ950-team-label.yaml").write_text(
        "code: KQ950\nname: team-label\nseverity: error\nsummary: Jobs need a team label.\n"
        "kinds: [batch/Job]\nmessage: '{object} has no team label'\nimplementation: cel\n"
        "cel:\n  validations:\n    - expression: \"has(object.metadata.labels) && 'team' in object.metadata.labels\"\n"
        "      fieldPath: metadata\ndocs: {what: Requires a team label.}\n")
    (rules / "KQ950" / "fail-no-team.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:  # expect: KQ950\n  name: j\n")
    (rules / "KQ950" / "pass-team.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  labels: {team: a}\n")
    proc = cli("test-rules", str(rules))
    assert proc.returncode == 0, proc.stdout
    assert "2 passed, 0 failed" in proc.stdout
    (rules / "KQ950" / "pass-team.yaml").write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n")
    failed = cli("test-rules", str(rules))
    assert failed.returncode == 1 and "extra    KQ950 on line 3" in failed.stdout


def test_whole_corpus_has_no_traceback(cli):
    proc = cli("check", str(CORPUS), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["summary"]["files"] >= 150
    assert not [f for f in report["findings"] if f["code"] == "KQ009"]
