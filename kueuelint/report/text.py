"""Human-readable output in the ``path:line:col: CODE [severity] message (name)`` form.

Each finding may be followed by its source line with a caret under the reported column.
``statistics`` appends a table of counts per code after the findings (it does not replace
them). ``quiet`` prints only findings (plus the statistics table when it is asked for and
any internal error, which is never hidden).
"""

from __future__ import annotations

import unicodedata
from typing import TextIO

from kueuelint.findings import Finding, RunResult, Severity
from kueuelint.report.common import TOOL_NAME, end_of, plural, severity_counts
from kueuelint.report.options import ReportOptions

TAB_WIDTH = 4
FIX_MARKER = "[*]"   # ruff's mark for a finding --fix can fix
_RESET = "\x1b[0m"
_SEVERITY_COLOR = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "34"}


class _Paint:
    """ANSI styling that becomes a no-op when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, codes: str) -> str:
        return f"\x1b[{codes}m{text}{_RESET}" if self.enabled else text

    def severity(self, text: str, severity: Severity, bold: bool = False) -> str:
        codes = _SEVERITY_COLOR[severity]
        return self(text, f"1;{codes}" if bold else codes)


_NO_COLOR = _Paint(False)


class _Out:
    """Writes lines and keeps exactly one blank line between sections."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.at_gap = True  # nothing written yet: no leading blank line

    def line(self, text: str = "") -> None:
        self.stream.write(text + "\n")
        self.at_gap = text == ""

    def gap(self) -> None:
        if not self.at_gap:
            self.line()


def render(result: RunResult, stream: TextIO, options: ReportOptions) -> None:
    paint = _Paint(options.color)
    out = _Out(stream)
    snippets = options.show_source and not options.quiet
    for finding in result.findings:
        out.line(headline(finding, paint))
        if snippets and finding.source_line is not None:
            for text in snippet(finding, paint):
                out.line(text)
            out.line()
    if result.internal_error:
        out.gap()
        detail = result.internal_error.removeprefix("internal error").lstrip(":, ")
        out.line(f"{paint(TOOL_NAME + ': internal error:', '1;31')} {_printable(detail)}")
    if options.statistics and result.findings:
        out.gap()
        for text in statistics(result):
            out.line(text)
    if not options.quiet:
        out.gap()
        out.line(summary(result, paint))


def headline(finding: Finding, paint: _Paint = _NO_COLOR) -> str:
    loc = finding.location
    sev = finding.severity
    # Continuation lines are indented so every finding still starts with its path.
    message = _printable(finding.message).replace("\n", "\n    ")
    marker = f"{FIX_MARKER} " if finding.fix is not None and finding.fix.applicable else ""
    return (f"{paint(loc.path, '1')}:{loc.line}:{loc.column}: "
            f"{paint.severity(finding.code, sev, bold=True)} {marker}{paint.severity(f'[{sev}]', sev)} "
            f"{message} ({finding.name})")


def snippet(finding: Finding, paint: _Paint) -> list[str]:
    """The source line under a line-number gutter, then a caret line under the span."""
    loc = finding.location
    raw = finding.source_line.rstrip("\r\n").replace("\n", " ")
    column = min(max(loc.column, 1), len(raw) + 1)
    end_line, end_column = end_of(loc)
    raw, shift = _window(raw, column)
    column -= shift
    end_column = end_column - shift if end_column is not None else None
    width = 1
    if end_line == loc.line and end_column is not None and end_column > column:
        width = max(1, _width(_printable(raw[column - 1:end_column - 1])))
    # Measure the prefix as it will be shown, so tabs and escaped characters keep the caret aligned.
    pad = _width(_printable(raw[:column - 1]).expandtabs(TAB_WIDTH))
    number = str(loc.line)
    marker = paint.severity("^" + "~" * (width - 1), finding.severity)
    shown = _printable(raw).expandtabs(TAB_WIDTH)
    return [f"  {number} | {shown}".rstrip(), f"  {' ' * len(number)} | {' ' * pad}{marker}"]


SNIPPET_WIDTH = 240   # a 1 MB line is shown as the part around the column, not all of it


def _window(raw: str, column: int) -> tuple[str, int]:
    """The part of a long line around ``column``, and how many characters were cut before it."""
    if len(raw) <= SNIPPET_WIDTH:
        return raw, 0
    start = max(0, min(column - 1 - SNIPPET_WIDTH // 3, len(raw) - SNIPPET_WIDTH))
    shown = raw[start:start + SNIPPET_WIDTH]
    head = "…" if start else ""
    tail = "…" if start + SNIPPET_WIDTH < len(raw) else ""
    return head + shown + tail, start - len(head)


def statistics(result: RunResult) -> list[str]:
    """One row per code: count, code and rule name, most frequent first."""
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for finding in result.findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
        names.setdefault(finding.code, finding.name)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    count_width = len(str(rows[0][1]))
    code_width = max(len(code) for code in counts)
    return [f"{count:>{count_width}}  {code:<{code_width}}  {names[code]}" for code, count in rows]


def summary(result: RunResult, paint: _Paint) -> str:
    scope = f"{plural(result.files, 'file')}, {plural(result.objects, 'object')}"
    took = f"in {result.seconds:.2f}s"
    if not result.findings and not result.internal_error:
        return f"{paint('All checks passed', '1;32')}: {scope} {took}"
    errors, warnings, info = severity_counts(result)
    counts = f"{plural(errors, 'error')}, {plural(warnings, 'warning')}, {info} info"
    fixable = result.fixable()
    fixes = f". {FIX_MARKER} {fixable} fixable with --fix (preview: --diff)" if fixable else ""
    return f"{scope}: {counts} {took}{fixes}"


def _width(text: str) -> int:
    """Terminal columns ``text`` occupies: wide East Asian characters take two, combining
    marks none, so carets line up under non-ASCII names."""
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def _printable(text: str) -> str:
    """Make control characters visible: manifests are untrusted and must not be able to
    send escape sequences to the user's terminal."""
    if text.isprintable():
        return text
    return "".join(_show(char) for char in text)


def _show(char: str) -> str:
    if char in "\n\t" or char.isprintable() or not unicodedata.category(char).startswith("C"):
        return char
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
