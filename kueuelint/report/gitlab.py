"""GitLab Code Quality (a subset of Code Climate's issue format) for merge-request widgets:
``artifacts: reports: codequality: kueuelint-codequality.json``.

Each finding is one object with the fields GitLab documents as required: ``description``,
``check_name``, ``fingerprint``, ``severity`` and ``location`` (``path`` relative to the
repository, ``lines.begin``). GitLab shows one issue per fingerprint and compares them between
the source and target branch, so a fingerprint leaves out the line (an edit above a finding
does not make it "new") and counts repeats of the same finding in a file.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, TextIO

from kueuelint.findings import Finding, RunResult, Severity
from kueuelint.report.common import qualified_name, relative_path
from kueuelint.report.options import ReportOptions

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def render(result: RunResult, stream: TextIO, options: ReportOptions) -> None:
    json.dump(issues(result, options), stream, indent=2, ensure_ascii=True, allow_nan=False)
    stream.write("\n")


def issues(result: RunResult, options: ReportOptions) -> list[dict[str, Any]]:
    seen: dict[str, int] = {}
    out = []
    for finding in result.findings:
        path = relative_path(finding.location.path, options.cwd_for_uris)
        identity = _identity(finding, path)
        seen[identity] = seen.get(identity, 0) + 1
        out.append(issue(finding, path, _fingerprint(identity, seen[identity])))
    return out


def issue(finding: Finding, path: str, fingerprint: str) -> dict[str, Any]:
    return {
        "description": f"{finding.code} {finding.message}",
        "check_name": f"{finding.code} {finding.name}",
        "fingerprint": fingerprint,
        "severity": SEVERITIES[finding.severity],
        "location": {"path": path, "lines": {"begin": max(finding.location.line, 1)}},
    }


def _identity(finding: Finding, path: str) -> str:
    obj = qualified_name(finding.obj) if finding.obj else ""
    return "\0".join((finding.code, path, obj, finding.field_path or "", finding.message))


def _fingerprint(identity: str, occurrence: int) -> str:
    return hashlib.sha256(f"{identity}\0{occurrence}".encode("utf-8", "surrogateescape")).hexdigest()
