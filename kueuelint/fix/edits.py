"""Surgical text edits on a YAML file, located through the composed node tree.

Fixes rewrite only the characters they must: a value, a key, one line, or new lines in the
style around them. A ruamel.yaml round trip re-indents sequences, re-aligns comments and
moves keys: over the shared corpus, the example repository and the rule fixtures (18 fixes,
November 2026, ``bench/fix_fidelity.py``) it changed 410, 567, 734 and 1,430 bytes outside
the fix for KQ101, KQ102, KQ201 and KQ630, in 10 of the 18 files; these edits change 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


class CannotFix(Exception):
    """The fix would need more than a safe local edit (flow style, odd layout...)."""


@dataclass(frozen=True, order=True)
class Edit:
    start: int     # character offsets into the file's text
    end: int
    text: str


def apply_edits(text: str, edits: list[Edit]) -> str:
    ordered = sorted(set(edits))
    for before, after in zip(ordered, ordered[1:]):
        if after.start < before.end:
            raise CannotFix("two fixes touch the same text")
    for edit in reversed(ordered):
        text = text[:edit.start] + edit.text + text[edit.end:]
    return text


def child(node: Node, key: str) -> tuple[ScalarNode, Node] | None:
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.value == key:
                return key_node, value_node
    return None


def replace_scalar(node: Node, new_text: str) -> Edit:
    if not isinstance(node, ScalarNode) or node.style not in (None, "", '"', "'"):
        raise CannotFix("the value is not a one-line scalar")
    quote = node.style if node.style in ('"', "'") else ""
    return Edit(node.start_mark.index, node.end_mark.index, f"{quote}{new_text}{quote}")


def rename_key(key_node: ScalarNode, new_name: str) -> Edit:
    if key_node.style not in (None, ""):
        raise CannotFix("the key is quoted")
    return Edit(key_node.start_mark.index, key_node.end_mark.index, new_name)


def line_span(text: str, key_node: Node, value_node: Node) -> tuple[int, int]:
    """Offsets of the whole lines holding a ``key: value`` pair (block style only)."""
    start = text.rfind("\n", 0, key_node.start_mark.index) + 1
    if text[start:key_node.start_mark.index].strip():
        raise CannotFix("the entry shares its line with other content")
    end = text.find("\n", _last_scalar(value_node).end_mark.index)
    return start, len(text) if end < 0 else end + 1


def _last_scalar(node: Node) -> Node:
    """A block collection "ends" where the next entry starts; its last scalar ends on its own line."""
    while not isinstance(node, ScalarNode) and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    return node


def block_indent(text: str, mapping: MappingNode) -> str:
    """The indentation of a block mapping's keys."""
    if mapping.flow_style or not mapping.value:
        raise CannotFix("the mapping is empty or written in flow style")
    first_key = mapping.value[0][0]
    line_start = text.rfind("\n", 0, first_key.start_mark.index) + 1
    indent = text[line_start:first_key.start_mark.index]
    if indent.strip(" "):
        raise CannotFix("the mapping does not start on its own line")
    return indent


def newline_of(text: str) -> str:
    """The file's line ending, so that inserted lines match the lines around them."""
    end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def indent_step(text: str, mapping: MappingNode) -> str:
    """How far the file indents a nested block mapping: the first one found under ``mapping``,
    else two spaces."""
    outer = len(block_indent(text, mapping))
    for _, value in mapping.value:
        if isinstance(value, MappingNode) and not value.flow_style and value.value:
            try:
                inner = len(block_indent(text, value))
            except CannotFix:
                continue
            if inner > outer:
                return " " * (inner - outer)
    return "  "


def put_entry(text: str, mapping: Node, path: tuple[str, ...], value: str) -> Edit:
    """The edit that sets ``mapping[path[0]]...[path[-1]]`` to ``value`` (one line of YAML),
    creating the mappings on the way that do not exist yet, in the style around them."""
    if not isinstance(mapping, MappingNode):
        raise CannotFix("the value to add to is not a mapping")
    found = child(mapping, path[0])
    if found is None:
        return _add_entry(text, mapping, path, value)
    key_node, value_node = found
    if len(path) == 1:
        return replace_scalar(value_node, value)
    if _is_null(value_node):
        return _fill_null(text, mapping, key_node, value_node, path[1:], value)
    return put_entry(text, value_node, path[1:], value)


def _add_entry(text: str, mapping: MappingNode, path: tuple[str, ...], value: str) -> Edit:
    if mapping.flow_style:
        at = mapping.start_mark.index + 1
        separator = ", " if mapping.value else ""
        return Edit(at, at, f"{_flow_entry(path, value)}{separator}")
    indent = block_indent(text, mapping)
    lines = _block_lines(path, value, indent, indent_step(text, mapping))
    at = text.rfind("\n", 0, mapping.value[0][0].start_mark.index) + 1
    newline = newline_of(text)
    return Edit(at, at, newline.join(lines) + newline)


def _fill_null(text, mapping, key_node, value_node, path, value) -> Edit:
    """``labels:`` or ``labels: ~`` becomes a block mapping holding the new entry."""
    if mapping.flow_style:
        return Edit(value_node.start_mark.index, value_node.end_mark.index, "{" + _flow_entry(path, value) + "}")
    indent = block_indent(text, mapping)
    step = indent_step(text, mapping)
    newline = newline_of(text)
    lines = _block_lines(path, value, indent + step, step)
    return Edit(key_node.end_mark.index, value_node.end_mark.index, ":" + newline + newline.join(lines))


def _block_lines(path: tuple[str, ...], value: str, indent: str, step: str) -> list[str]:
    lines = [f"{indent}{step * depth}{key}:" for depth, key in enumerate(path[:-1])]
    return lines + [f"{indent}{step * (len(path) - 1)}{path[-1]}: {value}"]


def _flow_entry(path: tuple[str, ...], value: str) -> str:
    entry = f"{path[-1]}: {value}"
    for key in reversed(path[:-1]):
        entry = f"{key}: {{{entry}}}"
    return entry


def _is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag.endswith(":null")


def append_item(text: str, sequence: Node, item: str) -> Edit:
    """The edit that adds ``item`` (one line of YAML) as the last entry of a sequence."""
    if not isinstance(sequence, SequenceNode) or not sequence.value:
        raise CannotFix("the value to add to is not a list with entries")
    if sequence.flow_style:
        at = sequence.end_mark.index - 1   # the closing bracket
        return Edit(at, at, f", {item}")
    dash = sequence.start_mark.index
    line_start = text.rfind("\n", 0, dash) + 1
    indent = text[line_start:dash]
    if indent.strip(" ") or text[dash] != "-":
        raise CannotFix("the list does not start on its own line")
    end = text.find("\n", _last_scalar(sequence).end_mark.index)
    at = len(text) if end < 0 else end + 1
    newline = newline_of(text)
    lead = "" if end >= 0 else newline
    return Edit(at, at, f"{lead}{indent}- {item}{newline}")
