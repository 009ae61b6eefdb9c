"""Apply the fixes for a run's findings to the files, safely.

A file is rewritten only when (1) every edit is local, (2) re-reading the edited text gives
exactly the data the fixes promise, and (3) the new text is written atomically with the
file's permissions kept.  Anything else leaves the file untouched and says why.
"""

from __future__ import annotations

import bisect
import copy
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field

from kueuelint.findings import Finding, Fix, TextEdit
from kueuelint.fix.edits import CannotFix, Edit, apply_edits
from kueuelint.fix.fixers import fixer_for
from kueuelint.identify.objects import identify
from kueuelint.load.limits import Limits
from kueuelint.load.source import SourceFile, parse_text


@dataclass
class FixReport:
    fixed: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    not_fixed: list[tuple[Finding, str]] = field(default_factory=list)


@dataclass
class FilePlan:
    """What fixing one file would do: its text now and after, and each fixed finding's edits
    (findings one edit fixes together share it)."""

    path: str
    text: str
    new_text: str
    edits: list[tuple[Finding, list[Edit]]]


def fixable(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if fixer_for(f.code) is not None and f.obj is not None]


def plan_fixes(findings: list[Finding], limits: Limits = Limits(),
               default_namespace: str = "default") -> tuple[list[FilePlan], FixReport]:
    """The verified new text of every file some finding can be fixed in; nothing is written."""
    report, plans = FixReport(), []
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in fixable(findings):
        by_file[finding.location.path].append(finding)
    for path, items in sorted(by_file.items()):
        if not os.path.isfile(path):
            report.not_fixed += [(f, "standard input cannot be fixed in place") for f in items]
            continue
        plan = _plan_file(path, items, limits, default_namespace, report)
        if plan is not None:
            plans.append(plan)
    return plans, report


def fix_files(findings: list[Finding], limits: Limits = Limits(),
              default_namespace: str = "default") -> FixReport:
    plans, report = plan_fixes(findings, limits, default_namespace)
    for plan in plans:
        _replace_atomically(plan.path, plan.new_text)
        report.fixed += [finding for finding, _ in plan.edits]
        report.files.append(plan.path)
    return report


def attach_fixes(findings: list[Finding], limits: Limits = Limits(), default_namespace: str = "default") -> None:
    """Set ``finding.fix`` to the edits ``--fix`` would make, for every finding it would fix."""
    plans, _ = plan_fixes(findings, limits, default_namespace)
    for plan in plans:
        lines = _LineIndex(plan.text)
        for finding, edits in plan.edits:
            summary = fixer_for(finding.code).summary
            finding.fix = Fix(summary, tuple(lines.text_edit(edit) for edit in sorted(edits)))


class _LineIndex:
    """Character offsets of a text as 1-based (line, column) pairs."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def text_edit(self, edit: Edit) -> TextEdit:
        return TextEdit(*self.position(edit.start), *self.position(edit.end), edit.text)


def _plan_file(path: str, findings: list[Finding], limits: Limits, namespace: str,
               report: FixReport) -> FilePlan | None:
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    loaded = parse_text(SourceFile(path, text), limits)
    expected = [copy.deepcopy(doc.data) for doc in loaded.documents]
    edits: list[Edit] = []
    done: list[tuple[Finding, list[Edit]]] = []
    planned_for: dict[tuple, list[Edit]] = {}
    for finding in findings:
        index, obj = _object_of(finding, loaded.documents, namespace)
        if obj is None:
            report.not_fixed.append((finding, "the object could not be found again"))
            continue
        fixer = fixer_for(finding.code)
        key = (index, type(fixer).__name__)
        if key in planned_for:   # one edit fixes every finding of this kind on the object
            done.append((finding, planned_for[key]))
            continue
        try:
            planned = fixer.edits(obj, text)
            expected[index] = fixer.expected(expected[index])
        except (CannotFix, LookupError, TypeError, AttributeError, ValueError) as exc:
            report.not_fixed.append((finding, str(exc) or "needs a manual change"))
            continue
        planned_for[key] = planned
        edits += planned
        done.append((finding, planned))
    if not done:
        return None
    new_text = _faithful_text(path, text, edits, expected, limits, [f for f, _ in done], report)
    return FilePlan(path, text, new_text, done) if new_text is not None else None


def _object_of(finding: Finding, documents, namespace: str):
    ref, line = finding.obj, finding.location.line
    for index, doc in enumerate(documents):
        node = doc.node
        if node is None or not (node.start_mark.line + 1 <= line <= node.end_mark.line + 1):
            continue
        obj = identify(doc, namespace)
        if obj is not None and (obj.kind, obj.name, obj.namespace) == (ref.kind, ref.name, ref.namespace):
            return index, obj
    return None, None


def _faithful_text(path, text, edits, expected, limits, done, report) -> str | None:
    """The edited text when re-reading it gives exactly the data the fixes promise."""
    try:
        new_text = apply_edits(text, edits)
    except CannotFix as exc:
        report.not_fixed += [(f, str(exc)) for f in done]
        return None
    reread = parse_text(SourceFile(path, new_text), limits)
    if reread.problems or [doc.data for doc in reread.documents] != expected:
        report.not_fixed += [(f, "the edit would change more than the fix; fix it by hand") for f in done]
        return None
    return new_text


def _replace_atomically(path: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".kueuelint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
