"""Machine-readable JSON, described by ``docs/output-json-schema.json``.

``version`` is bumped only for incompatible changes; new keys may appear within a version.
Keys are written in a fixed order and every key is always present (``null`` when unknown),
so consumers never have to test for absence.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from kueuelint.findings import Finding, Fix, ObjectRef, RunResult
from kueuelint.report.common import TOOL_NAME, end_of, severity_counts
from kueuelint.report.options import ReportOptions

FORMAT_VERSION = 1


def render(result: RunResult, stream: TextIO, options: ReportOptions) -> None:
    # ASCII-only output cannot fail on a stream whose encoding is not UTF-8.
    json.dump(document(result, options), stream, indent=2, ensure_ascii=True, allow_nan=False)
    stream.write("\n")


def document(result: RunResult, options: ReportOptions) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "tool": {"name": TOOL_NAME, "version": options.tool_version},
        "summary": summary(result),
        "findings": [finding_dict(finding) for finding in result.findings],
        "internalError": result.internal_error,
    }


def summary(result: RunResult) -> dict[str, Any]:
    errors, warnings, info = severity_counts(result)
    return {
        "files": result.files,
        "objects": result.objects,
        "errors": errors,
        "warnings": warnings,
        "info": info,
        "fixable": result.fixable(),
        "seconds": round(result.seconds, 3),
    }


def finding_dict(finding: Finding) -> dict[str, Any]:
    loc = finding.location
    end_line, end_column = end_of(loc)
    return {
        "file": loc.path,
        "line": loc.line,
        "column": loc.column,
        "endLine": end_line,
        "endColumn": end_column,
        "code": finding.code,
        "name": finding.name,
        "severity": str(finding.severity),
        "message": finding.message,
        "object": object_dict(finding.obj),
        "fieldPath": finding.field_path,
        "fix": fix_dict(finding.fix),
    }


def fix_dict(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {"summary": fix.summary, "applicable": fix.applicable,
            "edits": [{"line": e.line, "column": e.column, "endLine": e.end_line,
                       "endColumn": e.end_column, "text": e.text} for e in fix.edits]}


def object_dict(obj: ObjectRef | None) -> dict[str, Any] | None:
    if obj is None:
        return None
    return {"apiVersion": obj.api_version, "kind": obj.kind, "namespace": obj.namespace, "name": obj.name}
