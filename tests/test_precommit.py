"""The real pre-commit, using this checkout as the hook repository (pre-commit try-repo)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: user-queue
  namespace: team-a
spec:
  clusterQueue: team-a
"""
GOOD_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: user-queue
"""
BAD_JOB = GOOD_JOB.replace("labels:", "annotations:")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    # one hook environment for the module: building it installs kueuelint and its dependencies
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "kueuelint",
                           "--color", "never", *args], cwd=project, capture_output=True, text=True,
                          env=env, timeout=900)


def make_project(tmp_path: Path, job: str) -> Path:
    project = tmp_path / "manifests"
    (project / "queues").mkdir(parents=True)
    (project / "jobs").mkdir()
    (project / "queues" / "team-a.yaml").write_text(QUEUES)
    (project / ".kueuelint.yaml").write_text("context: [queues/]\n")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "queues")
    (project / "jobs" / "train.yaml").write_text(job)
    git(project, "add", "jobs/train.yaml")
    return project


@pytest.mark.slow
def test_clean_change_passes(tmp_path, pre_commit_home):
    result = try_repo(make_project(tmp_path, GOOD_JOB), pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kueuelint" in result.stdout and "Passed" in result.stdout


@pytest.mark.slow
def test_bad_change_fails_with_the_finding(tmp_path, pre_commit_home):
    result = try_repo(make_project(tmp_path, BAD_JOB), pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "jobs/train.yaml:7:5: KQ201" in result.stdout


def cross_referencing_project(tmp_path: Path, jobs: int = 12) -> Path:
    """Queues in one folder, many Jobs pointing at them in another, declared complete, and no
    ``context`` in the configuration: any process that sees only some files would report the
    queues as missing, as errors."""
    project = tmp_path / "monorepo"
    (project / "queues").mkdir(parents=True)
    (project / "jobs").mkdir()
    (project / "queues" / "team-a.yaml").write_text(QUEUES + CLUSTER_QUEUE)
    for number in range(jobs):
        (project / "jobs" / f"train-{number:02}.yaml").write_text(GOOD_JOB.replace("train", f"train-{number}"))
    (project / ".kueuelint.yaml").write_text("require-complete: true\n")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "all")
    return project


CLUSTER_QUEUE = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 8}]}]
"""


def test_the_project_needs_its_queues(tmp_path, cli):
    # the control: checked without the queues, the Jobs' queue is missing, as an error
    project = cross_referencing_project(tmp_path)
    proc = cli("check", "--config", str(project / ".kueuelint.yaml"), str(project / "jobs"))
    assert proc.returncode == 1 and "KQ205 [error]" in proc.stdout


@pytest.mark.slow
def test_all_files_run_sees_every_cross_reference(tmp_path, pre_commit_home):
    result = try_repo(cross_referencing_project(tmp_path), pre_commit_home, "--all-files")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


@pytest.mark.slow
def test_a_changed_job_meets_its_unchanged_queue(tmp_path, pre_commit_home):
    project = cross_referencing_project(tmp_path, jobs=1)
    (project / "jobs" / "train-00.yaml").write_text(GOOD_JOB.replace("user-queue", "user-queu"))
    git(project, "add", ".")
    result = try_repo(project, pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "jobs/train-00.yaml:7:32: KQ205 [error]" in result.stdout
    assert "did you mean 'user-queue'?" in result.stdout
