"""`kueuelint diff OLD NEW`: update-only checks (immutable fields, CEL transition rules)."""

from __future__ import annotations

import json

from conftest import KUEUE_CRDS

OLD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: q
  namespace: a
spec:
  clusterQueue: cq-1
"""


def test_changed_immutable_field_is_reported_in_new(cli, tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(OLD.replace("cq-1", "cq-2"))
    proc = cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    finding = json.loads(proc.stdout)["findings"][0]
    assert (finding["line"], finding["fieldPath"]) == (7, "spec.clusterQueue")
    assert "immutable" in finding["message"]


def test_crd_transition_rules_judge_when_given(cli, tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(OLD.replace("cq-1", "cq-2"))
    proc = cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
               "--crd", str(KUEUE_CRDS))
    assert proc.returncode == 1
    assert "KQ112" in proc.stdout and "localqueues.kueue.x-k8s.io" in proc.stdout


def test_unchanged_and_unpaired_objects_pass(cli, tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(OLD + "---\n" + OLD.replace("name: q", "name: other"))
    proc = cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"))
    assert proc.returncode == 0, proc.stdout


# --- --baseline REF: the old side comes from git ---------------------------------------------

def _git_repo(tmp_path):
    import shutil
    import subprocess

    import pytest

    if shutil.which("git") is None:
        pytest.skip("git is not installed")

    def git(*args):
        subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                       cwd=tmp_path, check=True, capture_output=True)
    git("init", "-q")
    (tmp_path / "queues").mkdir()
    (tmp_path / "queues" / "lq.yaml").write_text(OLD)
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "lq.yaml").write_text(OLD)
    git("add", ".")
    git("commit", "-q", "-m", "queues")
    return git


def test_baseline_takes_old_objects_from_a_git_revision(cli, tmp_path):
    _git_repo(tmp_path)
    (tmp_path / "queues" / "lq.yaml").write_text(OLD.replace("cq-1", "cq-2"))
    proc = cli("diff", "--baseline", "HEAD", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    finding, = json.loads(proc.stdout)["findings"]
    assert (finding["file"], finding["line"], finding["fieldPath"]) == ("queues/lq.yaml", 7, "spec.clusterQueue")


def test_baseline_paths_are_relative_to_the_current_folder(cli, tmp_path):
    _git_repo(tmp_path)
    (tmp_path / "queues" / "lq.yaml").write_text(OLD.replace("cq-1", "cq-2"))
    proc = cli("diff", "--baseline", "HEAD", "lq.yaml", cwd=tmp_path / "queues")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("lq.yaml:7:3: KQ110")


def test_baseline_with_only_new_files_passes(cli, tmp_path):
    git = _git_repo(tmp_path)
    (tmp_path / "queues" / "other.yaml").write_text(OLD.replace("name: q", "name: other"))
    git("add", ".")
    proc = cli("diff", "--baseline", "HEAD", "queues", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 files" in proc.stdout


def test_baseline_names_a_missing_revision_in_one_line(cli, tmp_path):
    _git_repo(tmp_path)
    proc = cli("diff", "--baseline", "no-such-branch", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("kueuelint: error: --baseline no-such-branch: "
                                   "'no-such-branch' is not a commit in this repository")


def test_diff_without_baseline_needs_two_paths(cli, tmp_path):
    proc = cli("diff", str(tmp_path))
    assert proc.returncode == 2
    assert "diff needs OLD and NEW" in proc.stderr
