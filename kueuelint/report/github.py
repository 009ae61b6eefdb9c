"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

``::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=KQ123 rule-name::message``
(warning -> ``::warning``, info -> ``::notice``). Positions are left out when unknown. Paths
are made relative to ``cwd_for_uris`` (the workspace) when it is set, since GitHub matches
annotations to repository files by relative path.
"""

from __future__ import annotations

from typing import TextIO

from kueuelint.findings import Finding, RunResult, Severity
from kueuelint.report.common import TOOL_NAME, end_of, relative_path
from kueuelint.report.options import ReportOptions

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def render(result: RunResult, stream: TextIO, options: ReportOptions) -> None:
    for finding in result.findings:
        stream.write(annotation(finding, options.cwd_for_uris) + "\n")
    if result.internal_error:
        stream.write(command("error", {"title": f"{TOOL_NAME} internal error"}, result.internal_error) + "\n")


def annotation(finding: Finding, base: str | None) -> str:
    loc = finding.location
    end_line, end_column = end_of(loc)
    properties = {
        "file": relative_path(loc.path, base),
        "line": loc.line,
        "col": loc.column,
        "endLine": end_line,
        "endColumn": end_column,
        "title": f"{finding.code} {finding.name}",
    }
    return command(COMMANDS[finding.severity], properties, finding.message)


def command(name: str, properties: dict[str, object], message: str) -> str:
    """``::name key=value,...::message`` with GitHub's escaping; None values are dropped."""
    props = ",".join(f"{key}={escape_property(str(value))}"
                     for key, value in properties.items() if value is not None)
    return f"::{name} {props}::{escape_data(message)}" if props else f"::{name}::{escape_data(message)}"


def escape_data(text: str) -> str:
    # '%' first, or the escapes added for the other characters would be escaped again.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
