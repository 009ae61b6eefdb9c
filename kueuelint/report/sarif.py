"""SARIF 2.1.0 for GitHub / GitLab code scanning and other SARIF viewers.

One run. The driver lists every rule of the run (not only those that fired) so that the
catalogue shows up in code scanning; a finding whose code is not in ``result.rules`` (for
example a load problem) gets a minimal rule built from the finding, so every result has a
valid ``ruleIndex``. Relative paths use ``uriBaseId`` ``%SRCROOT%``; columns count Unicode
code points, as kueuelint's do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from kueuelint.findings import Finding, RunResult, Severity
from kueuelint.report.common import PROJECT_URL, TOOL_NAME, end_of, qualified_name, relative_path
from kueuelint.report.options import ReportOptions

if TYPE_CHECKING:
    from kueuelint.checks.meta import RuleMeta

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def render(result: RunResult, stream: TextIO, options: ReportOptions) -> None:
    json.dump(document(result, options), stream, indent=2, ensure_ascii=True, allow_nan=False)
    stream.write("\n")


def document(result: RunResult, options: ReportOptions) -> dict[str, Any]:
    rules = rule_list(result)
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {"driver": driver(rules, options)},
        "invocations": [invocation(result)],
        "columnKind": "unicodeCodePoints",
        "results": [result_dict(f, index[f.code], options) for f in result.findings],
    }
    if options.cwd_for_uris is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": _directory_uri(options.cwd_for_uris)}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def driver(rules: list[dict[str, Any]], options: ReportOptions) -> dict[str, Any]:
    return {
        "name": TOOL_NAME,
        "version": options.tool_version,
        "informationUri": PROJECT_URL,
        "rules": rules,
    }


def rule_list(result: RunResult) -> list[dict[str, Any]]:
    """All known rules by code, then stand-ins for codes that only findings mention."""
    rules = [rule_dict(result.rules[code]) for code in sorted(result.rules)]
    known = set(result.rules)
    for finding in result.findings:
        if finding.code not in known:
            known.add(finding.code)
            rules.append(stand_in_rule(finding))
    return rules


def rule_dict(meta: RuleMeta) -> dict[str, Any]:
    """A SARIF reportingDescriptor for one rule."""
    docs = meta.docs
    rule: dict[str, Any] = {
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": meta.summary or meta.name},
        "fullDescription": {"text": (docs.what or meta.summary or meta.name).strip()},
        "help": {"text": _help_text(meta), "markdown": docs.as_markdown() or meta.summary or meta.name},
        "defaultConfiguration": {"level": LEVELS[meta.severity]},
    }
    if meta.help_uri:
        rule["helpUri"] = meta.help_uri
    return rule


def stand_in_rule(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.code,
        "name": finding.name,
        "shortDescription": {"text": finding.name},
        "defaultConfiguration": {"level": LEVELS[finding.severity]},
    }


def _help_text(meta: RuleMeta) -> str:
    docs = meta.docs
    parts = [f"{title}: {text.strip()}" for title, text in (
        ("What it does", docs.what), ("Why it matters", docs.why),
        ("Example", docs.example), ("How to fix", docs.fix)) if text and text.strip()]
    return "\n\n".join(parts) or meta.summary or meta.name


def invocation(result: RunResult) -> dict[str, Any]:
    entry: dict[str, Any] = {"executionSuccessful": result.internal_error is None}
    if result.internal_error is not None:
        entry["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": result.internal_error}}]
    return entry


def result_dict(finding: Finding, rule_index: int, options: ReportOptions) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [location(finding, options)],
    }
    if finding.field_path:
        entry["properties"] = {"fieldPath": finding.field_path}
    if finding.fix is not None and finding.fix.applicable:
        entry["fixes"] = [fix_dict(finding, options)]
    elif finding.fix is not None:
        entry.setdefault("properties", {})["fix"] = finding.fix.summary   # advice without edits
    return entry


def fix_dict(finding: Finding, options: ReportOptions) -> dict[str, Any]:
    """The fix as SARIF replacements in the finding's file (an empty deleted region inserts)."""
    replacements = [{
        "deletedRegion": {"startLine": edit.line, "startColumn": edit.column,
                          "endLine": edit.end_line, "endColumn": edit.end_column},
        "insertedContent": {"text": edit.text},
    } for edit in finding.fix.edits]
    return {
        "description": {"text": finding.fix.summary},
        "artifactChanges": [{
            "artifactLocation": artifact_location(finding.location.path, options.cwd_for_uris),
            "replacements": replacements,
        }],
    }


def location(finding: Finding, options: ReportOptions) -> dict[str, Any]:
    entry: dict[str, Any] = {"physicalLocation": {
        "artifactLocation": artifact_location(finding.location.path, options.cwd_for_uris),
        "region": region(finding),
    }}
    if finding.obj is not None:
        entry["logicalLocations"] = [{
            "name": finding.obj.name,
            "fullyQualifiedName": qualified_name(finding.obj),
            "kind": "resource",
        }]
    return entry


def region(finding: Finding) -> dict[str, int]:
    loc = finding.location
    out = {"startLine": max(loc.line, 1), "startColumn": max(loc.column, 1)}
    end_line, end_column = end_of(loc)
    if end_line is not None:
        out["endLine"] = max(end_line, out["startLine"])
    if end_column is not None:
        same_line = out.get("endLine", out["startLine"]) == out["startLine"]
        out["endColumn"] = max(end_column, out["startColumn"] if same_line else 1)
    return out


def artifact_location(path: str, base: str | None) -> dict[str, str]:
    shown = relative_path(path, base)
    if os.path.isabs(shown):
        return {"uri": Path(shown).as_uri()}
    # a file name that is not UTF-8 (kept by Python as surrogate escapes) is quoted byte for byte
    return {"uri": quote(os.fsencode(shown), safe="/"), "uriBaseId": SRCROOT}


def _directory_uri(directory: str) -> str:
    # A base URI must end with a slash, or relative URIs would resolve against its parent.
    uri = Path(os.path.abspath(directory)).as_uri()
    return uri if uri.endswith("/") else uri + "/"
