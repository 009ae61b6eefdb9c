"""The wheel users install carries the rules and works outside the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
                   check=True, capture_output=True, timeout=600)
    return next(out.glob("kueuelint-*.whl"))


@pytest.mark.slow
def test_wheel_contains_every_rule_file_and_fixture(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in (REPO / "rules").rglob("*"):
        if path.is_file():
            assert f"kueuelint/builtin_rules/{path.relative_to(REPO / 'rules').as_posix()}" in names


@pytest.mark.slow
def test_installed_wheel_runs_outside_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    manifest = tmp_path / "job.yaml"
    manifest.write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
                        "    kueue.x-k8s.io/queue-name: q\n")
    env = {**os.environ, "PYTHONPATH": str(site), "KUEUELINT_NO_CACHE": "1"}
    run = lambda *args: subprocess.run([sys.executable, "-m", "kueuelint", *args], cwd=tmp_path, env=env,
                                       capture_output=True, text=True, timeout=300)
    checked = run("check", str(manifest), "--format", "json")
    assert checked.returncode == 1, checked.stderr
    assert '"code": "KQ201"' in checked.stdout
    where = subprocess.run([sys.executable, "-c", "import kueuelint; print(kueuelint.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True)
    assert where.stdout.startswith(str(site))
    tested = run("test-rules")
    assert tested.returncode == 0, tested.stdout[-2000:]
