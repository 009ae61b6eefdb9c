"""Rewriting CEL source text.

Rules may bind helpers with ``cel.bind``, which Kubernetes CEL lacks and cel-expr-python 0.1.3
evaluates wrongly inside nested comprehensions; both get it as ``[value].map(name, body)[0]``.
A ValidatingAdmissionPolicy offers the rule's ``workloads``, ``params`` and ``kueueVersion`` as
``variables.<name>``.  These functions work on the source text with a small scanner that knows
string literals and brackets, which is all the rewriting needs.
"""

from __future__ import annotations

import functools
import re
import string

_STRING = re.compile("|".join((r"[rRbB]*('''|\"\"\")(?:.|\n)*?\1", r"[rRbB]*'(?:\\.|[^'\\\n])*'",
                                  r'[rRbB]*"(?:\\.|[^"\\\n])*"')))
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BIND = re.compile(r"\bcel\s*\.\s*bind\s*\(")
# ``object.a.b...``: a chain of field selections.  Any other use of ``object`` (indexing, a
# macro, optional selection, passing it to a function) may read all of it.
_OBJECT_CHAIN = re.compile(r"\bobject((?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*\b)+)")
_OBJECT = re.compile(r"\bobject\b")
# ``has(chain)`` and ``type(chain)`` need the last field to be there, with its type, not its content.
_PRESENCE_OPENER = re.compile(r"(?<![\w.])(?:has|type)\s*\(\s*$")
_OPENING, _CLOSING = "([{", ")]}"


class CelTextError(ValueError):
    """Source text this module cannot rewrite (unbalanced brackets, a malformed cel.bind)."""


def code_spans(source: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_code) pieces of ``source``: string literals are not code."""
    spans, position = [], 0
    for match in _STRING.finditer(source):
        if match.start() > position:
            spans.append((position, match.start(), True))
        spans.append((match.start(), match.end(), False))
        position = match.end()
    if position < len(source):
        spans.append((position, len(source), True))
    return spans


def rename(source: str, names: dict[str, str]) -> str:
    """Replace the free identifiers in ``names`` (not field names after a dot, not strings)."""
    out = []
    for start, end, is_code in code_spans(source):
        piece = source[start:end]
        out.append(_rename_code(source, start, piece, names) if is_code else piece)
    return "".join(out)


def _rename_code(source: str, offset: int, piece: str, names: dict[str, str]) -> str:
    def replace(match: re.Match) -> str:
        if match.group(0) not in names or _after_dot(source, offset + match.start()):
            return match.group(0)
        return names[match.group(0)]

    return _IDENTIFIER.sub(replace, piece)


def _after_dot(source: str, index: int) -> bool:
    index -= 1
    while index >= 0 and source[index].isspace():
        index -= 1
    return index >= 0 and source[index] == "."


@functools.lru_cache(maxsize=256)
def expand_binds(source: str, *, computed_only: bool = False) -> str:
    """``cel.bind(x, init, body)`` written as ``[init].map(x, body)[0]``: the same value,
    ``init`` still evaluated once, with the standard ``map`` macro only.  ``computed_only``:
    only the bindings whose ``init`` holds a comprehension (a macro such as ``map`` or another
    cel.bind), the kind cel-expr-python 0.1.3 may evaluate wrongly as written."""
    position = 0
    while True:
        match = _first_code_match(_BIND, source, position)
        if match is None:
            return source
        arguments, end = split_arguments(source, match.end())
        if len(arguments) != 3 or not _IDENTIFIER.fullmatch(arguments[0].strip()):
            raise CelTextError(f"cel.bind at offset {match.start()} needs a name, a value and an expression")
        name, value, body = (part.strip() for part in arguments)
        if computed_only and _first_code_match(_COMPREHENSION, value) is None:
            position = match.end()   # kept as written; bindings inside it are looked at next
            continue
        source = f"{source[:match.start()]}[{value}].map({name}, {body})[0]{source[end:]}"
        position = match.start()


# the macros that expand to comprehensions, and cel.bind, which is one
_COMPREHENSION = re.compile(r"\.\s*(?:all|exists|exists_one|map|filter|transformList|transformMap|"
                            r"transformMapEntry|optMap|optFlatMap)\s*\(|\bcel\s*\.\s*bind\s*\(")


def _first_code_match(pattern: re.Pattern, source: str, position: int = 0) -> re.Match | None:
    for start, end, is_code in code_spans(source):
        if is_code and end > position:
            match = pattern.search(source, max(start, position), end)
            if match is not None:
                return match
    return None


def split_arguments(source: str, start: int) -> tuple[list[str], int]:
    """The comma-separated arguments of the call whose ``(`` ends just before ``start``, and
    the offset after its ``)``."""
    depth, arguments, current = 0, [], start
    spans = [s for s in code_spans(source) if s[1] > start]
    for span_start, span_end, is_code in spans:
        if not is_code:
            continue
        for index in range(max(span_start, start), span_end):
            char = source[index]
            if char in _OPENING:
                depth += 1
            elif char in _CLOSING:
                if depth == 0:
                    arguments.append(source[current:index])
                    return arguments, index + 1
                depth -= 1
            elif char == "," and depth == 0:
                arguments.append(source[current:index])
                current = index + 1
    raise CelTextError(f"unbalanced brackets after offset {start}")


def literal(text: str) -> str:
    """``text`` as a CEL string literal."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    return f"'{escaped}'"


def template_expression(template: str, placeholder: callable) -> str | None:
    """A CEL expression building the Python ``str.format`` template from pieces;
    ``placeholder(name)`` gives the CEL expression of ``{name}``.  None when the template has
    no placeholder (a plain message will do)."""
    parts, has_field = [], False
    for text, field, _spec, _conversion in string.Formatter().parse(template):
        if text:
            parts.append(literal(text))
        if field is not None:
            has_field = True
            parts.append(placeholder(field))
    # a list joined, not a chain of `+`: each `+` is one more level of nesting for the parser
    return f"[{', '.join(parts)}].join('')" if has_field else None


def free_identifiers(source: str) -> set[str]:
    """Identifiers of ``source`` that are not field names or inside strings."""
    found = set()
    for start, end, is_code in code_spans(source):
        if is_code:
            found.update(match.group(0) for match in _IDENTIFIER.finditer(source, start, end)
                         if not _after_dot(source, match.start()))
    return found


def object_paths(sources: str) -> dict | None:
    """The parts of ``object`` that the expressions read, as a tree of field names (a leaf
    None: the whole value there; an empty dict: only whether it is there, and its type), or
    None when they may read the whole object.  CEL converts a variable's whole value on first
    access: for a rule that looks at the labels of a large manifest, that was most of its cost.
    A word in a string is no read."""
    sources = _strings_blanked(sources)
    if "//" in sources:
        return None     # a comment: the scanner does not know them, and a quote in one misleads it
    chains = list(_OBJECT_CHAIN.finditer(sources))
    if len(chains) != len(_OBJECT.findall(sources)):
        return None
    tree: dict = {}
    for chain in chains:
        names = _IDENTIFIER.findall(chain.group(1))
        rest = sources[chain.end():].lstrip()
        if rest.startswith("("):    # a method or macro on what comes before its name
            names.pop()
            if not names:
                return None
            _add_path(tree, names, whole=True)
        else:
            presence = rest.startswith(")") and \
                _PRESENCE_OPENER.search(sources, max(0, chain.start() - 20), chain.start())
            _add_path(tree, names, whole=not presence)
    return tree


def _strings_blanked(source: str) -> str:
    """``source`` with the text of its string literals blanked out, at the same offsets."""
    return "".join(source[start:end] if is_code else "'" + " " * (end - start - 2) + "'"
                   for start, end, is_code in code_spans(source))


def _add_path(tree: dict, names: list[str], whole: bool) -> None:
    node = tree
    for name in names[:-1]:
        if name in node and node[name] is None:
            return          # its whole value is read already
        node = node.setdefault(name, {})
    if whole:
        node[names[-1]] = None
    else:
        node.setdefault(names[-1], {})
