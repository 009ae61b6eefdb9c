"""``kueuelint review``: the fates worked out by hand in fixtures/review/*/expect.yaml match the
simulation, the JSON follows docs/review-json-schema.json, --baseline takes BEFORE from git,
and bad input fails closed."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from kueuelint.cli import main

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "review"
FIXTURE_MAP = FIXTURES / "map"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expect.yaml").is_file())
SCHEMA = json.loads((REPO / "docs" / "review-json-schema.json").read_text())


def review(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["review", *argv])
    return code, out.getvalue(), err.getvalue()


def review_case(case: str, *extra: str) -> tuple[int, dict]:
    folder = FIXTURES / case
    code, out, _ = review(str(folder / "before"), str(folder / "after"), "--snapshot",
                          str(folder / "snapshot.yaml"), "--format", "json", "--all", *extra)
    return code, json.loads(out)


def expectation(case: str) -> dict:
    return yaml.safe_load((FIXTURES / case / "expect.yaml").read_text())


def test_every_case_is_here():
    assert set(CASES) == {"lower-nominal", "move-cohort", "remove-flavor", "comment-only", "reclaim"}


@pytest.mark.parametrize("case", CASES)
def test_fates_match_the_hand_worked_ones(case):
    expect = expectation(case)
    _, data = review_case(case)
    found = {w["workload"]: {"before": w["before"]["state"], "after": w["after"]["state"], "flags": w["flags"]}
             for w in data["workloads"]}
    assert found == expect["fates"]
    assert [f"{o['kind']} {o['name']} {o['flavorResource']}" for o in data["overAdmitted"]] == expect["overAdmitted"]
    assert data["unchanged"] == sum(1 for fate in expect["fates"].values() if not fate["flags"])


@pytest.mark.parametrize("case", CASES)
def test_json_follows_its_schema(case):
    for every in ((), ("--all",)):
        folder = FIXTURES / case
        _, out, _ = review(str(folder / "before"), str(folder / "after"), "--snapshot",
                           str(folder / "snapshot.yaml"), "--format", "json", *every)
        jsonschema.validate(json.loads(out), SCHEMA)


@pytest.mark.parametrize("case", CASES)
def test_exit_status_follows_fail_on(case):
    for fail_on, status in expectation(case)["exit"].items():
        code, _ = review_case(case, "--fail-on", fail_on)
        assert code == status, fail_on


def test_quota_and_usage_deltas_of_a_lowered_quota():
    _, data = review_case("lower-nominal")
    rows = {(r["kind"], r["name"]): r for r in data["quotas"]}
    team_a = rows["ClusterQueue", "team-a"]
    assert (team_a["before"]["nominal"], team_a["after"]["nominal"]) == ("10", "4")
    assert (team_a["before"]["borrowingLimit"], team_a["after"]["borrowingLimit"]) == (None, "0")
    # a-running's 6 stay; a-pending's 3 are admitted before only
    assert (team_a["before"]["usage"], team_a["after"]["usage"]) == ("9", "6")
    cohort = rows["Cohort", "research"]
    assert (cohort["before"]["subtreeQuota"], cohort["after"]["subtreeQuota"]) == ("20", "14")
    assert any("evicts nothing" in note for note in data["notes"])


def test_a_moved_queue_is_a_placement_change():
    _, data = review_case("move-cohort")
    assert data["placements"] == [{"kind": "ClusterQueue", "name": "alpha", "before": "shared", "after": "other",
                                   "existsBefore": True, "existsAfter": True}]
    assert data["changedTrees"] == ["other", "shared"]


def test_text_report_names_each_changed_workload():
    folder = FIXTURES / "remove-flavor"
    code, out, _ = review(str(folder / "before"), str(folder / "after"), "--snapshot", str(folder / "snapshot.yaml"))
    assert code == 1
    assert out.splitlines()[0] == "1 stranded, 1 never admissible, 1 flavor changed (of 5 workloads compared)"
    assert "ml/p2: admitted in train (cpu=spot) -> admitted in train (cpu=on-demand) [flavor-changed]" in out
    assert "ml/p1" not in out


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_baseline_takes_before_from_git(tmp_path, cli):
    case = FIXTURES / "lower-nominal"
    shutil.copytree(case / "before", tmp_path / "queues")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "queues")
    shutil.copy(case / "after" / "queues.yaml", tmp_path / "queues" / "queues.yaml")
    done = cli("review", "--baseline", "HEAD", "queues", "--snapshot", str(case / "snapshot.yaml"),
               "--format", "json", "--all", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    from_git = {w["workload"]: w["flags"] for w in json.loads(done.stdout)["workloads"]}
    _, two_paths = review_case("lower-nominal")
    assert from_git == {w["workload"]: w["flags"] for w in two_paths["workloads"]}


def test_baseline_that_is_no_commit_is_a_usage_error(tmp_path, cli):
    _git(tmp_path, "init", "-q")
    done = cli("review", "--baseline", "no-such-ref", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "--baseline no-such-ref" in done.stderr


@pytest.mark.parametrize("argv", [
    ["review", "only-one-path"],
    ["review", "a", "b", "--fail-on", "stranded-ish"],
    ["review", "a", "b", "--format", "sarif"],
])
def test_usage_errors_exit_2(argv, cli):
    assert cli(*argv).returncode == 2


def test_missing_path_is_an_error_not_a_pass(tmp_path):
    folder = FIXTURES / "comment-only"
    code, _, err = review(str(folder / "before"), str(tmp_path / "nope"), "--snapshot", str(folder / "snapshot.yaml"))
    assert code == 2
    assert "nope" in err


def test_unreadable_after_file_names_its_position_and_the_run_goes_on(tmp_path):
    folder = FIXTURES / "comment-only"
    after = tmp_path / "after"
    shutil.copytree(folder / "after", after)
    (after / "broken.yaml").write_text("kind: ConfigMap\nmetadata: {name: x\n")
    code, out, err = review(str(folder / "before"), str(after), "--snapshot", str(folder / "snapshot.yaml"))
    assert code == 2
    assert f"kueuelint: error: {after / 'broken.yaml'}:2:19: YAML syntax error" in err
    assert out.startswith("no workload changes fate")


def test_check_rules_run_on_the_after_setup(tmp_path):
    folder = FIXTURES / "comment-only"
    after = tmp_path / "after"
    shutil.copytree(folder / "after", after)
    text = (after / "queues.yaml").read_text()
    # a v1beta1 spelling in a v1beta2 object: the API server rejects it (KQ407)
    (after / "queues.yaml").write_text(text.replace("metadata: {name: team-b}\nspec:\n",
                                                    "metadata: {name: team-b}\nspec:\n  admissionChecks: [gate]\n"))
    code, out, _ = review(str(folder / "before"), str(after), "--snapshot", str(folder / "snapshot.yaml"),
                          "--format", "json", "--fail-on", "any")
    codes = {f["code"] for f in json.loads(out)["findings"]}
    assert "KQ407" in codes
    assert code == 1
    code, _, _ = review(str(folder / "before"), str(folder / "after"), "--snapshot", str(folder / "snapshot.yaml"),
                        "--fail-on", "any")
    assert code == 0


def test_jobs_of_the_repository_are_submitted(tmp_path):
    _, data = review_case("move-cohort")
    job = next(w for w in data["workloads"] if w["workload"] == "beta/beta-job")
    assert job["source"]["kind"] == "Job"
    assert job["before"]["state"] == job["after"]["state"] == "admitted"


def _changes(data: dict) -> dict:
    changed = {w["workload"]: w for w in data["workloads"] if w["flags"]}
    return {"workloads": changed, "counts": data["counts"], "quotas": data["quotas"],
            "unchanged": data["unchanged"], "overAdmitted": data["overAdmitted"]}


def _run(before: Path, after: Path, snapshot: Path, *extra: str) -> dict:
    code, out, err = review(str(before), str(after), "--snapshot", str(snapshot), "--format", "json", *extra)
    assert code in (0, 1), err
    return json.loads(out)


@pytest.mark.parametrize("case", CASES)
def test_leaving_out_unreached_trees_changes_no_answer(case):
    folder = FIXTURES / case
    args = (folder / "before", folder / "after", folder / "snapshot.yaml")
    assert _changes(_run(*args)) == _changes(_run(*args, "--all"))


def test_workloads_of_trees_the_change_cannot_reach_are_not_simulated(tmp_path):
    # lowering vision's quota reaches the org tree (research and prod below it), not sandbox
    text = (FIXTURE_MAP / "queues.yaml").read_text()
    (tmp_path / "after.yaml").write_text(text.replace("{name: cpu, nominalQuota: 32, borrowingLimit: 8}",
                                                      "{name: cpu, nominalQuota: 30, borrowingLimit: 8}"))
    (tmp_path / "sandbox-job.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: toy, namespace: dev}\n"
        "spec: {queueName: try, podSets: [{name: main, count: 1, template: {spec: {containers: "
        "[{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}]}\n")
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    shutil.copy(FIXTURE_MAP / "snapshot.yaml", snapshot / "workloads.yaml")
    shutil.copy(tmp_path / "sandbox-job.yaml", snapshot / "toy.yaml")
    args = (FIXTURE_MAP / "queues.yaml", tmp_path / "after.yaml", snapshot)
    scoped, full = _run(*args), _run(*args, "--all")
    assert _changes(scoped) == _changes(full)
    assert "dev/toy" in {w["workload"] for w in full["workloads"]}
    assert scoped["unchanged"] == full["unchanged"] == 6
    assert scoped["changedTrees"] == ["org"]
    from kueuelint.config import Config
    from kueuelint.review.compare import compare
    from kueuelint.review.inputs import read_objects

    objects = [read_objects([str(p)], Config()).objects for p in args]
    assert compare(*objects).skipped == 1       # dev/toy, in sandbox's tree
    assert compare(*objects, every_workload=True).skipped == 0


def test_a_change_outside_the_queue_kinds_reaches_every_tree(tmp_path):
    from kueuelint.review.scope import changed_objects
    from kueuelint.review.inputs import read_objects
    from kueuelint.config import Config

    before = tmp_path / "before.yaml"
    before.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"
                      "metadata: {name: high}\nvalue: 100\n")
    after = tmp_path / "after.yaml"
    after.write_text(before.read_text().replace("100", "200"))
    read = [read_objects([str(p)], Config()).objects for p in (before, after)]
    assert changed_objects(*read) is None
    assert changed_objects(read[0], read[0]) == set()


def test_the_configuration_is_honoured(tmp_path):
    # exclude and default-namespace, read by the front door as check and admit read them
    folder = FIXTURES / "lower-nominal"
    after = tmp_path / "after"
    shutil.copytree(folder / "after", after)
    (after / "scratch.yaml").write_text("kind: [unclosed\n")
    text = (after / "queues.yaml").read_text()
    (after / "queues.yaml").write_text(text.replace("metadata: {name: jobs, namespace: team-b}",
                                                    "metadata: {name: jobs}"))
    config = tmp_path / ".kueuelint.yaml"
    config.write_text("exclude: [scratch.yaml]\ndefault-namespace: team-b\n")
    argv = (str(folder / "before"), str(after), "--snapshot", str(folder / "snapshot.yaml"), "--format", "json")
    code, out, _ = review(*argv, "--config", str(config))
    assert code == 1
    assert {w["workload"]: w["flags"] for w in json.loads(out)["workloads"]} == {
        "team-a/a-running": ["newly-preemptible"], "team-a/a-pending": ["stranded"],
        "team-a/a-big": ["never-admissible"]}
    config.write_text("{}\n")
    code, _, err = review(*argv, "--config", str(config))
    assert code == 2 and "scratch.yaml:1:" in err


def test_json_text_is_one_item_per_line_and_reads_back():
    from kueuelint.report.review_json import dump

    data = {"version": 1, "workloads": [{"a": [1, {"b": "x\ny"}]}, {"c": None}], "empty": [], "n": {"k": 2}}
    text = dump(data)
    assert json.loads(text) == data
    assert text.splitlines()[3] == '    {"a": [1, {"b": "x\\ny"}]},'
