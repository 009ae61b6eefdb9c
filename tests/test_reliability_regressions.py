"""Every input that once crashed kueuelint or produced a wrong finding (fixtures/regressions/).

``expected.json`` says, for each file, how it was found and which findings (code, line) it must
produce now.  New fuzzer finds go there too: ``bench/fuzz --save fixtures/regressions/new``.
"""

from __future__ import annotations

import json
import sys

import pytest

from conftest import REPO, run_cli

FOLDER = REPO / "fixtures" / "regressions"
EXPECTED = json.loads((FOLDER / "expected.json").read_text(encoding="utf-8"))
sys.path.insert(0, str(REPO / "bench"))
import fuzz  # noqa: E402  (bench/ is not a package)


def test_every_fixture_is_listed_and_every_listed_fixture_exists():
    files = {p.name for p in FOLDER.iterdir() if p.name != "expected.json"}
    assert files == set(EXPECTED)


def test_the_command_reports_each_regression_as_expected():
    proc = run_cli("check", "--format", "json", "-j", "1", *sorted(EXPECTED), cwd=FOLDER)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    assert report["internalError"] is None
    for name, entry in EXPECTED.items():
        found = [[f["code"], f["line"]] for f in report["findings"] if f["file"] == name]
        assert found == entry["expect"], name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_regression_keeps_the_fuzzers_invariants(name):
    from kueuelint.config import Config
    from kueuelint.pipeline import load_rules

    path = str(FOLDER / name)
    config = Config()
    _, problems = fuzz.check_paths([path], config, load_rules(config), {path: (FOLDER / name).read_bytes()})
    assert problems == []
