"""The values every stage of the pipeline produces and every reporter consumes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Severity(enum.IntEnum):
    """Ordered so that ``severity >= Severity.WARNING`` reads naturally."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None

    def __str__(self) -> str:
        return self.name.lower()


# Location, ObjectRef, TextEdit and Fix are NamedTuples, not dataclasses: every run imports
# this module, and a frozen dataclass costs a one-file run 3 to 6 million instructions to define
# (measured with callgrind).  Tuples also order a Location by its fields, as findings sort.
class Location(NamedTuple):
    """A 1-based span in a file; end is exclusive-ish like most linters (end column points past)."""

    path: str
    line: int = 1
    column: int = 1
    end_line: int | None = None
    end_column: int | None = None


class ObjectRef(NamedTuple):
    """Which Kubernetes object a finding is about (absent for file-level findings)."""

    api_version: str = ""
    kind: str = ""
    namespace: str | None = None
    name: str = ""

    def display(self) -> str:
        if self.namespace:
            return f"{self.kind} {self.namespace}/{self.name}"
        return f"{self.kind} {self.name}"


class TextEdit(NamedTuple):
    """Replace the text from (line, column) up to (end_line, end_column), exclusive, with
    ``text``; 1-based, columns in code points. An empty span inserts."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


class Fix(NamedTuple):
    """How to fix a finding: in words, and as the edits ``--fix`` would make (none when the
    fix is advice only)."""

    summary: str
    edits: tuple[TextEdit, ...] = ()

    @property
    def applicable(self) -> bool:
        return bool(self.edits)


@dataclass
class Finding:
    code: str
    name: str
    severity: Severity
    message: str
    location: Location
    obj: ObjectRef | None = None
    field_path: str | None = None
    source_line: str | None = None
    fix: Fix | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)


def format_path(path: tuple | list | None) -> str | None:
    """Render ('spec', 'containers', 0, 'image') as ``spec.containers[0].image``."""
    if path is None:
        return None
    out = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out and ("." in part or "/" in part):
            out.append(f"[{part!r}]")
        else:
            out.append(("." if out else "") + str(part))
    return "".join(out)


# The codes kueuelint.fix.fixers can fix (tests/test_fix_visible.py keeps the two equal): a run
# without such findings does not import the fix machinery at all (start-up time).
FIXER_CODES = frozenset({"KQ101", "KQ102", "KQ201", "KQ630"})


@dataclass
class RunStatistics:
    """Counters for ``-v``, summed over the run (a parallel run adds up its workers')."""

    cel_rules_evaluated: int = 0        # CEL rules of CRDs evaluated
    transition_rules_skipped: int = 0   # rules using oldSelf: a plain file has no old version

    def add(self, other: RunStatistics) -> None:
        self.cel_rules_evaluated += other.cel_rules_evaluated
        self.transition_rules_skipped += other.transition_rules_skipped


@dataclass
class RunResult:
    """Everything a reporter needs about one run."""

    findings: list[Finding]
    files: int = 0
    objects: int = 0
    seconds: float = 0.0
    rules: dict[str, Any] = field(default_factory=dict)  # code -> checks.meta.RuleMeta
    internal_error: str | None = None
    stats: RunStatistics = field(default_factory=RunStatistics)

    def may_have_fixes(self) -> bool:
        """Whether any finding is of a code that has a fixer (else the fixers need not load)."""
        return any(finding.code in FIXER_CODES for finding in self.findings)

    def fixable(self) -> int:
        return sum(1 for finding in self.findings if finding.fix is not None and finding.fix.applicable)

    def count_by_severity(self) -> dict[Severity, int]:
        counts = {sev: 0 for sev in Severity}
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts
