"""JUnit XML for the test tabs of GitLab, Jenkins, Azure DevOps and similar CI systems.

Scheme (one ``<testsuite name="kueuelint">`` inside ``<testsuites>``):

* one ``<testcase>`` per file that has findings, named by the file's path (classname
  ``kueuelint``), so a CI test tab lists the files to fix and tracks each across runs;
* a file with at least one error-severity finding gets a single ``<failure>`` whose message
  counts the findings and whose body lists all of them (errors, warnings, info) one per line
  in the text format. CI tools show one failure per test case well, many poorly;
* a file with only warnings or info passes (they do not fail the run either) and lists its
  findings in ``<system-out>``;
* an internal error becomes a test case ``internal error`` with an ``<error>``;
* a run without findings emits one passing test case named ``kueuelint`` so CI shows green.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TextIO

from kueuelint.findings import Finding, RunResult, Severity
from kueuelint.report.common import TOOL_NAME, plural
from kueuelint.report.options import ReportOptions
from kueuelint.report.text import headline

# Characters XML 1.0 cannot carry even escaped; a stray one would make the report unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render(result: RunResult, stream: TextIO, options: ReportOptions) -> None:
    suite = build_suite(result)
    root = ET.Element("testsuites", {"name": TOOL_NAME, **_counts(suite), "time": suite.get("time")})
    root.append(suite)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode"))
    stream.write("\n")


def build_suite(result: RunResult) -> ET.Element:
    cases = [file_case(path, findings) for path, findings in by_file(result.findings).items()]
    if result.internal_error:
        cases.append(internal_error_case(result.internal_error))
    if not cases:
        cases.append(passing_case(result))
    suite = ET.Element("testsuite")
    suite.extend(cases)
    suite.attrib.update({"name": TOOL_NAME, **_counts(suite), "skipped": "0", "time": f"{result.seconds:.3f}"})
    return suite


def by_file(findings: list[Finding]) -> dict[str, list[Finding]]:
    """Group findings by path, keeping the order in which files first appear."""
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.location.path, []).append(finding)
    return groups


def file_case(path: str, findings: list[Finding]) -> ET.Element:
    case = _case(path, file=_clean(path))
    listing = _clean("\n".join(headline(finding) for finding in findings))
    errors = sum(1 for finding in findings if finding.severity is Severity.ERROR)
    if errors:
        failure = ET.SubElement(case, "failure", {"type": "error", "message": _clean(_tally(findings))})
        failure.text = listing
    else:
        ET.SubElement(case, "system-out").text = listing
    return case


def internal_error_case(message: str) -> ET.Element:
    case = _case("internal error")
    error = ET.SubElement(case, "error", {
        "type": "internal-error", "message": "kueuelint failed part-way; findings may be incomplete"})
    error.text = _clean(message)
    return case


def passing_case(result: RunResult) -> ET.Element:
    case = _case(TOOL_NAME)
    ET.SubElement(case, "system-out").text = (
        f"All checks passed: {plural(result.files, 'file')}, {plural(result.objects, 'object')}")
    return case


def _case(name: str, **extra: str) -> ET.Element:
    return ET.Element("testcase", {"classname": TOOL_NAME, "name": _clean(name), **extra})


def _tally(findings: list[Finding]) -> str:
    counts = {severity: 0 for severity in Severity}
    for finding in findings:
        counts[finding.severity] += 1
    parts = [plural(counts[Severity.ERROR], "error")]
    if counts[Severity.WARNING]:
        parts.append(plural(counts[Severity.WARNING], "warning"))
    if counts[Severity.INFO]:
        parts.append(f"{counts[Severity.INFO]} info")
    return ", ".join(parts)


def _counts(suite: ET.Element) -> dict[str, str]:
    cases = suite.findall("testcase")
    return {
        "tests": str(len(cases)),
        "failures": str(sum(1 for case in cases if case.find("failure") is not None)),
        "errors": str(sum(1 for case in cases if case.find("error") is not None)),
    }


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
