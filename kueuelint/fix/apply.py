"""Apply the fixes for a run's findings to the files, safely.

A file is rewritten only when (1) every edit is local, (2) re-reading the edited text gives
exactly the data the fixes promise, and (3) the new text is written atomically with the
file's permissions kept.  Anything else leaves the file untouched and says why.
"""

from __future__ import annotations

import copy
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field

from kueuelint.findings import Finding
from kueuelint.fix.edits import CannotFix, apply_edits
from kueuelint.fix.fixers import fixer_for
from kueuelint.identify.objects import identify
from kueuelint.load.limits import Limits
from kueuelint.load.source import SourceFile, parse_text


@dataclass
class FixReport:
    fixed: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    not_fixed: list[tuple[Finding, str]] = field(default_factory=list)


def fixable(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if fixer_for(f.code) is not None and f.obj is not None]


def fix_files(findings: list[Finding], limits: Limits = Limits(),
              default_namespace: str = "default") -> FixReport:
    report = FixReport()
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in fixable(findings):
        by_file[finding.location.path].append(finding)
    for path, items in sorted(by_file.items()):
        if not os.path.isfile(path):
            report.not_fixed += [(f, "standard input cannot be fixed in place") for f in items]
            continue
        _fix_file(path, items, limits, default_namespace, report)
    return report


def _fix_file(path: str, findings: list[Finding], limits: Limits, namespace: str, report: FixReport) -> None:
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    loaded = parse_text(SourceFile(path, text), limits)
    expected = [copy.deepcopy(doc.data) for doc in loaded.documents]
    edits, done, seen = [], [], set()
    for finding in findings:
        index, obj = _object_of(finding, loaded.documents, namespace)
        fixer = fixer_for(finding.code)
        key = (index, type(fixer).__name__)
        if obj is None or key in seen:
            if obj is None:
                report.not_fixed.append((finding, "the object could not be found again"))
            continue
        try:
            planned = fixer.edits(obj, text)
            expected[index] = fixer.expected(expected[index])
        except (CannotFix, LookupError, TypeError, AttributeError, ValueError) as exc:
            report.not_fixed.append((finding, str(exc) or "needs a manual change"))
            continue
        seen.add(key)
        edits += planned
        done.append(finding)
    if done:
        _write_if_faithful(path, text, edits, expected, limits, done, report)


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


def _write_if_faithful(path, text, edits, expected, limits, done, report) -> None:
    try:
        new_text = apply_edits(text, edits)
    except CannotFix as exc:
        report.not_fixed += [(f, str(exc)) for f in done]
        return
    reread = parse_text(SourceFile(path, new_text), limits)
    if reread.problems or [doc.data for doc in reread.documents] != expected:
        report.not_fixed += [(f, "the edit would change more than the fix; fix it by hand") for f in done]
        return
    _replace_atomically(path, new_text)
    report.fixed += done
    report.files.append(path)


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
