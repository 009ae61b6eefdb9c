from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Real data files the tests read, copied into the repository (see tests/data/SOURCES.md), so
# that a fresh clone passes on its own.
DATA = REPO / "tests" / "data"
CORPUS = DATA / "corpus"
KUEUE_CRDS = DATA / "kueue-crds"
SARIF_SCHEMA = DATA / "schemas" / "sarif-schema-2.1.0.json"
# The team's shared folder, beside the checkout or where KUEUELINT_SHARED points: only for
# optional extra checks, which skip when it is absent.
SHARED = REPO.parent / "shared"
if not SHARED.is_dir():
    SHARED = Path(os.environ.get("KUEUELINT_SHARED", REPO.parent / "shared"))


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None, env: dict | None = None):
    """Run the installed command as a user would, in a separate process."""
    full_env = {**os.environ, "NO_COLOR": "", "KUEUELINT_NO_CACHE": "1", **(env or {})}
    full_env.pop("FORCE_COLOR", None)
    return subprocess.run([sys.executable, "-m", "kueuelint", *args], input=stdin, text=True,
                          capture_output=True, cwd=cwd or REPO, env=full_env, timeout=300)


@pytest.fixture
def cli():
    return run_cli
