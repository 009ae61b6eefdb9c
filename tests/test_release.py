"""Releases: the version comes from the git tag, in a wheel built from a clone and from the
sdist, and `kueuelint --version` says it; a tree without git still builds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def tagged_clone(tmp_path_factory):
    """A clone of the committed project with a release tag on its head."""
    clone = tmp_path_factory.mktemp("release") / "kueuelint"
    _git("clone", "-q", "--no-hardlinks", str(REPO), str(clone), cwd=REPO)
    _git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "tag", "-a", "v9.8.7", "-m", "v9.8.7",
         cwd=clone)
    return clone


def _wheel(source, out) -> zipfile.ZipFile:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
                   check=True, capture_output=True, timeout=600)
    return zipfile.ZipFile(next(out.glob("kueuelint-*.whl")))


def _version_of(wheel: zipfile.ZipFile) -> str:
    metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    return next(line.split(": ", 1)[1] for line in wheel.read(metadata).decode().splitlines()
                if line.startswith("Version: "))


def _cli_version(wheel: zipfile.ZipFile, site) -> str:
    wheel.extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-m", "kueuelint", "--version"], cwd=site, env=env,
                          capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def test_a_wheel_from_a_tagged_clone_has_the_tags_version(tagged_clone, tmp_path):
    wheel = _wheel(tagged_clone, tmp_path / "dist")
    assert _version_of(wheel) == "9.8.7"
    assert _cli_version(wheel, tmp_path / "site") == "kueuelint 9.8.7"


def test_the_sdist_builds_a_wheel_of_the_same_version_without_git(tagged_clone, tmp_path):
    subprocess.run([sys.executable, "-m", "build", "--sdist", "-o", str(tmp_path / "sdist"), str(tagged_clone)],
                   check=True, capture_output=True, timeout=600)
    [sdist] = (tmp_path / "sdist").glob("kueuelint-9.8.7.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    [tree] = (tmp_path / "unpacked").iterdir()
    assert not (tree / ".git").exists()
    wheel = _wheel(tree, tmp_path / "dist")
    assert _version_of(wheel) == "9.8.7"


def test_a_tree_without_git_or_tags_still_installs(tagged_clone, tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(tagged_clone, plain, ignore=shutil.ignore_patterns(".git", "_version.py"))
    wheel = _wheel(plain, tmp_path / "dist")
    assert _version_of(wheel) == "0.0.0"
    untagged = tmp_path / "untagged"
    shutil.copytree(tagged_clone, untagged)
    _git("tag", "-d", "v9.8.7", cwd=untagged)
    assert ".dev" in _version_of(_wheel(untagged, tmp_path / "dist-untagged"))


def _tag_step() -> str:
    import yaml

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    [step] = [s for s in workflow["jobs"]["tag"]["steps"] if s.get("id") == "tag"]
    assert "${{" not in step["run"]
    return step["run"]


def _run_tag_step(clone, outputs, **env):
    full = {**os.environ, "GITHUB_OUTPUT": str(outputs), "EVENT": "workflow_dispatch", "VERSION": "",
            "PUSHED_TAG": "", **env}
    return subprocess.run(["bash", "-e", "-c", _tag_step()], cwd=clone, env=full, capture_output=True, text=True)


def test_the_release_workflow_tags_a_new_version_once(tmp_path):
    origin = tmp_path / "origin.git"
    _git("init", "-q", "--bare", str(origin), cwd=tmp_path)
    clone = tmp_path / "clone"
    _git("clone", "-q", "--no-hardlinks", str(REPO), str(clone), cwd=tmp_path)
    _git("remote", "set-url", "origin", str(origin), cwd=clone)
    outputs = tmp_path / "outputs"
    outputs.write_text("")
    made = _run_tag_step(clone, outputs, VERSION="3.4.5")
    assert made.returncode == 0, made.stderr
    assert outputs.read_text().splitlines()[-2:] == ["tag=v3.4.5", "version=3.4.5"]
    assert _git("tag", "--list", cwd=origin).split() == ["v3.4.5"]
    again = _run_tag_step(clone, outputs, VERSION="3.4.5")
    assert again.returncode == 1 and "already exists" in again.stderr
    wrong = _run_tag_step(clone, outputs, VERSION="v3.4")
    assert wrong.returncode == 1 and "must look like" in wrong.stderr
    pushed = _run_tag_step(clone, outputs, EVENT="push", PUSHED_TAG="v3.4.5")
    assert pushed.returncode == 0 and outputs.read_text().splitlines()[-1] == "version=3.4.5"
