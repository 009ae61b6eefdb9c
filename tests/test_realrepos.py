"""The real-repository corpus (tests/data/realrepos), linted in one run as a monorepo gate would.

Every error and warning it reports was reviewed by hand, and the verdicts are pinned in
reviewed-findings.txt: a finding nobody reviewed (a new false error, say) fails the run, and so
does a reviewed one that disappears (a true finding lost, or a false one fixed without its line
being deleted).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import DATA, run_cli

REALREPOS = DATA / "realrepos"
REVIEWED = REALREPOS / "reviewed-findings.txt"
PREFIX = "tests/data/realrepos/"
NOT_MANIFESTS = {"SOURCES.md", "REVIEW.md", "reviewed-findings.txt"}


@pytest.fixture(scope="module")
def report() -> dict:
    proc = run_cli("check", PREFIX, "--format", "json", "--exit-zero")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def reported(report: dict) -> Counter:
    return Counter((f["severity"], f["code"], f"{f['file'].removeprefix(PREFIX)}:{f['line']}")
                   for f in report["findings"] if f["severity"] in ("error", "warning"))


def reviewed() -> dict[tuple[str, str, str], list[str]]:
    """(severity, code, file:line) -> the verdicts of the findings listed there."""
    verdicts: dict[tuple[str, str, str], list[str]] = {}
    for line in REVIEWED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            verdict, severity, code, where, *_ = line.split()
            assert verdict in ("true", "false"), line
            verdicts.setdefault((severity, code, where), []).append(verdict)
    return verdicts


def listed(verdicts: dict) -> Counter:
    return Counter({key: len(values) for key, values in verdicts.items()})


def test_every_error_and_warning_was_reviewed(report):
    unreviewed = reported(report) - listed(reviewed())
    assert not unreviewed, (
        f"findings nobody reviewed; read each file, judge the finding and list it in {REVIEWED.name}:\n"
        + "\n".join(f"{severity} {code} {where}" for severity, code, where in sorted(unreviewed.elements())))


def test_every_reviewed_finding_is_still_reported(report):
    verdicts = reviewed()
    gone = listed(verdicts) - reported(report)
    lost = sorted(key for key in gone.elements() if "true" in verdicts[key])
    fixed = sorted(key for key in gone.elements() if "true" not in verdicts[key])
    assert not gone, (f"true findings no longer reported: {lost}\n"
                      f"false findings fixed (delete their lines from {REVIEWED.name}): {fixed}")


def test_the_run_reads_the_whole_corpus(report):
    manifests = [p for p in REALREPOS.rglob("*") if p.is_file() and p.name not in NOT_MANIFESTS]
    assert len(manifests) >= 150
    assert report["summary"]["objects"] >= 300
    assert report["internalError"] is None
