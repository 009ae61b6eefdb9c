"""Small helpers shared by several reporters (kept free of heavy imports)."""

from __future__ import annotations

import os

from kueuelint.findings import Location, ObjectRef, RunResult, Severity

TOOL_NAME = "kueuelint"
# Where users learn about the tool; SARIF viewers link to it.
PROJECT_URL = "https://github.com/kueuelint/kueuelint"


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def end_of(location: Location) -> tuple[int | None, int | None]:
    """(end_line, end_column); an end column alone means the span ends on the start line."""
    end_line = location.end_line
    if end_line is None and location.end_column is not None:
        end_line = location.line
    return end_line, location.end_column


def severity_counts(result: RunResult) -> tuple[int, int, int]:
    counts = result.count_by_severity()
    return counts[Severity.ERROR], counts[Severity.WARNING], counts[Severity.INFO]


def relative_path(path: str, base: str | None) -> str:
    """``path`` relative to ``base`` with forward slashes when it lies inside ``base``;
    otherwise as given (absolute paths stay absolute). CI tools match annotations to
    repository files by such relative paths."""
    if base is not None:
        absolute = os.path.abspath(path)
        try:
            rel = os.path.relpath(absolute, os.path.abspath(base))
        except ValueError:  # another drive on Windows
            rel = None
        path = absolute if rel is None or rel.split(os.sep)[0] == os.pardir else rel
    if not os.path.isabs(path):
        path = os.path.normpath(path)
    return to_posix(path)


def to_posix(path: str) -> str:
    if os.sep != "/":
        path = path.replace(os.sep, "/")
    if os.altsep and os.altsep != "/":
        path = path.replace(os.altsep, "/")
    return path


def qualified_name(obj: ObjectRef) -> str:
    """``Kind/namespace/name`` for namespaced objects, ``Kind/name`` for cluster-scoped ones."""
    parts = [obj.kind or "object"]
    if obj.namespace:
        parts.append(obj.namespace)
    parts.append(obj.name)
    return "/".join(parts)
