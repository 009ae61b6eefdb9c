"""Suppressions: YAML comments and the ``kueuelint.io/ignore`` annotation.

``# kueuelint: ignore[KQ123] reason`` on a line, or alone on the line above, silences that
code there; ``# kueuelint: ignore-file[KQ123]`` silences it in the whole file.  Every
suppression is tracked so the ones that matched nothing can be reported (like ruff's RUF100).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARKER = "kueuelint:"
ANNOTATION = "kueuelint.io/ignore"
_COMMENT_RE = re.compile(r"(?:^|(?<=\s))#\s*kueuelint:\s*(ignore-file|ignore)\s*(?:\[([^\]]*)\])?\s*(.*)$")
_TRAILING_COMMENT = re.compile(r"(?:^|\s+)#")  # "reason  # another comment" keeps only the reason


@dataclass
class Suppression:
    codes: tuple[str, ...]          # empty = every code
    reason: str
    path: str
    line: int                       # where the suppression itself is written
    column: int
    scope: str                      # "line", "file" or "object"
    target_lines: tuple[int, ...] = ()   # lines it covers ("line" scope)
    object_span: tuple[int, int] | None = None   # first/last line of the object ("object" scope)
    used: bool = False

    def covers(self, code: str, line: int) -> bool:
        if self.codes and not any(code.startswith(prefix) for prefix in self.codes):
            return False
        if self.scope == "file":
            return True
        if self.scope == "object":
            return self.object_span is not None and self.object_span[0] <= line <= self.object_span[1]
        return line in self.target_lines


@dataclass
class FileSuppressions:
    items: list[Suppression] = field(default_factory=list)

    def match(self, code: str, line: int) -> Suppression | None:
        for item in self.items:
            if item.covers(code, line):
                item.used = True
                return item
        return None


def unknown_code_message(item: Suppression, known) -> str | None:
    """An error text when the suppression names a code or prefix of no rule: such a typo would
    otherwise silence nothing while looking like it silences something."""
    from kueuelint.config import unknown_code_text

    names = sorted(known)
    for code in item.codes:
        if not any(rule.startswith(code) for rule in names):
            return f"suppression silences nothing: {unknown_code_text(code, names)}"
    return None


def scan_comments(path: str, text: str, string_lines: set[int] = frozenset()) -> list[Suppression]:
    """Find comment suppressions; cheap when the file mentions no ``kueuelint:`` at all.

    ``string_lines`` are lines inside block scalars, where a ``#`` is text, not a comment.
    """
    if MARKER not in text:
        return []
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        position = line.find("#")
        if position < 0 or MARKER not in line or number in string_lines:
            continue
        match = _COMMENT_RE.search(line, position)
        if match is None:
            continue
        scope = "file" if match.group(1) == "ignore-file" else "line"
        codes = _split_codes(match.group(2))
        standalone = not line[:match.start()].strip()
        targets = (number, number + 1) if standalone else (number,)
        reason = _TRAILING_COMMENT.split(match.group(3), maxsplit=1)[0].strip()
        found.append(Suppression(codes, reason, path, number, match.start() + 1, scope, targets))
    return found


def from_annotation(value, path: str, line: int, column: int, span: tuple[int, int]) -> Suppression:
    """``"KQ123,KQ124: reason"`` on an object; codes are required so nothing is silenced blindly."""
    text = str(value)
    codes_part, _, reason = text.partition(":")
    codes = _split_codes(codes_part)
    return Suppression(codes, reason.strip(), path, line, column, "object", object_span=span)


def _split_codes(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(code.strip().upper() for code in text.split(",") if code.strip())


def block_scalar_lines(roots) -> set[int]:
    """1-based lines that lie inside multi-line scalars of the given node trees."""
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    lines: set[int] = set()
    stack = [root for root in roots if root is not None]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            first, last = node.start_mark.line + 1, node.end_mark.line + 1
            if last > first:
                # a comment may follow the "|" indicator on the first line
                start = first + 1 if node.style in ("|", ">") else first
                lines.update(range(start, last + 1))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
    return lines
