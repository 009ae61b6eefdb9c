"""Read one file (or stdin) into documents with positions, turning every problem into data.

Nothing here raises for bad input: a file that cannot be read, decoded or parsed yields
``LoadProblem`` entries with a line and column, and the run goes on.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from kueuelint import collector
from kueuelint.findings import Location
from kueuelint.load import yamlnodes
from kueuelint.load.limits import Limits


@dataclass
class LoadProblem:
    kind: str          # stable id, mapped to a rule code by the checks layer
    message: str
    path: str
    line: int = 1
    column: int = 1


# What YAML (and so every position libyaml reports) counts as a line break.  str.splitlines()
# also breaks at form feeds and other separators YAML does not, which shifted snippets.
LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    lines = LINE_BREAK.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def line_count(text: str) -> int:
    """Lines as YAML counts them; a final line break does not start another line."""
    return len(split_lines(text)) or 1


@dataclass
class SourceFile:
    path: str                      # as the user will see it in findings
    text: str = ""
    is_context: bool = False       # loaded for cross-references only, never reported on
    file_type: str | None = None   # forced input type (e.g. compute configs), else detected
    _lines: list[str] | None = field(default=None, repr=False)
    _roots: list | None = field(default=None, repr=False)

    def line_text(self, line: int) -> str | None:
        lines = self._split()
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None

    def within(self, line: int, column: int) -> tuple[int, int]:
        """``line``:``column`` kept inside the file: a position past the end of its line, or past
        the last line, becomes the end of that line (or of the last line)."""
        lines = self._split()
        if line < 1:
            return line, column
        if line <= len(lines):
            # Marks of an embedded text are shifted by its block's indent, so a node ending at
            # the start of the embedded text's next line can land past a shorter file line.
            return line, min(column, len(lines[line - 1]) + 1)
        return max(len(lines), 1), len(lines[-1]) + 1 if lines else 1

    def _split(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def document_root(self, index: int):
        """The node tree of document ``index``, composed again from the text (None if it cannot
        be).  Keeping every document's node tree for the whole run cost more, mostly in the
        garbage collector walking millions of nodes, than composing the files findings need."""
        if self._roots is None:
            self._roots = _compose_roots(self.text)
        return self._roots[index] if index < len(self._roots) else None


def _compose_roots(text: str) -> list:
    """Every document's root node up to the first syntax error (the documents that loaded)."""
    roots: list = []
    try:
        for root in yamlnodes.compose_documents(text):
            roots.append(root)
    except yaml.YAMLError:
        pass
    return roots


class _Recompose:
    """The node of a loaded document: composed again from the file when first asked for."""

    def __repr__(self) -> str:
        return "RECOMPOSE"


RECOMPOSE = _Recompose()


@dataclass
class Document:
    """One object-sized piece of a file: a YAML document, or one item of a ``kind: List``."""

    source: SourceFile
    index: int
    data: Any
    # yaml node of ``data``: None when positions are unknown, RECOMPOSE until first needed
    _node: Any = None
    line: int = 1                  # where the object starts
    item: int | None = None        # position in the ``items`` of a ``kind: List`` document

    @property
    def node(self):
        if self._node is RECOMPOSE:
            root = self.source.document_root(self.index)
            self._node = root if self.item is None or root is None else _item_node(root, self.item)
        return self._node

    def locate(self, path: tuple | list = (), *, at_value: bool = False) -> Location:
        """The position of ``path`` inside this object, or of the nearest existing ancestor."""
        if self.node is None:
            return Location(self.source.path, self.line, 1)
        value_node, key_node, steps = yamlnodes.locate(self.node, tuple(path))
        use_key = key_node is not None and not at_value and steps == len(path)
        target = key_node if use_key else value_node
        if steps < len(path) and key_node is not None:
            target = key_node
        start, end = target.start_mark, target.end_mark
        return Location(self.source.path, start.line + 1, start.column + 1,
                        *self.source.within(end.line + 1, end.column + 1))


@dataclass
class LoadedFile:
    source: SourceFile
    documents: list[Document] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)


def decode(raw: bytes, path: str, limits: Limits) -> tuple[str | None, LoadProblem | None]:
    if len(raw) > limits.max_file_bytes:
        # reads stop one byte past the limit (standard input has no size to ask for first)
        return None, LoadProblem("file-too-large", f"input is over the limit of "
                                 f"{limits.max_file_bytes:,} bytes (set max-file-bytes to raise it)", path)
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(bom):
            try:
                return raw.decode(codec), None
            except UnicodeDecodeError as exc:
                return None, LoadProblem("encoding", f"invalid {codec} text: {exc.reason}", path)
    if b"\x00" in raw[:8192]:
        return None, LoadProblem("binary-file", "binary file (contains NUL bytes); not YAML or JSON", path)
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, LoadProblem("encoding", f"not valid UTF-8 (byte 0x{raw[exc.start]:02x}); "
                                 "save the file as UTF-8", path, line, column)


def parse_text(source: SourceFile, limits: Limits) -> LoadedFile:
    """Split ``source.text`` into documents; record every problem with its position."""
    loaded = LoadedFile(source)
    too_deep = _flow_nesting_over(source.text, limits.max_depth)
    if too_deep:
        loaded.problems.append(LoadProblem("depth-limit", f"flow collections nest deeper than "
                                           f"{limits.max_depth} levels", source.path, *too_deep))
        return loaded
    nodes = _node_estimate(source.text, limits.max_file_nodes)
    if nodes:
        loaded.problems.append(LoadProblem("node-limit", f"about {nodes:,} YAML nodes, over the limit of "
                                           f"{limits.max_file_nodes:,} per file; not read "
                                           "(set max-file-nodes to raise it)", source.path))
        return loaded
    # Node trees and values hold no cycles: pausing the cyclic collector while they are built
    # saves a third of the time on files with many documents (half with the json module).
    with collector.paused():
        if not _read_json(loaded, limits):
            _read_yaml(loaded, limits)
    return loaded


def _read_yaml(loaded: LoadedFile, limits: Limits) -> None:
    too_deep = _block_indent_over(loaded.source.text)
    if too_deep:
        loaded.problems.append(LoadProblem("depth-limit", f"block collections indented more than "
                                           f"{BLOCK_INDENT_LIMIT} levels", loaded.source.path, *too_deep))
        return
    _compose_all(loaded, limits)


def _compose_all(loaded: LoadedFile, limits: Limits) -> None:
    source = loaded.source
    track_aliases = "&" in source.text
    index = 0
    try:
        for root in yamlnodes.compose_documents(source.text):
            index += 1
            if index > limits.max_documents:
                loaded.problems.append(LoadProblem(
                    "document-limit", f"more than {limits.max_documents:,} documents in one file; "
                    "the rest were not read (set max-documents to raise the limit)",
                    source.path, root.start_mark.line + 1, 1))
                break
            _add_document(loaded, root, index - 1, limits, track_aliases)
    except yaml.MarkedYAMLError as exc:
        loaded.problems.append(_syntax_problem(exc, source.path, source.text))
    except yaml.reader.ReaderError as exc:
        loaded.problems.append(_reader_problem(exc, source.path, source.text))
    except yaml.YAMLError as exc:
        text = " ".join(str(exc).split())
        loaded.problems.append(LoadProblem("syntax", f"YAML error: {text}", source.path))
    except RecursionError:
        loaded.problems.append(LoadProblem("depth-limit", "document nests too deeply to read",
                                           source.path))


def _read_json(loaded: LoadedFile, limits: Limits) -> bool:
    """Documents of a JSON file, decoded by the json module; False leaves the file to the YAML
    reader (text it does not read as the API server would, see ``json_text``)."""
    from kueuelint.load import json_text

    source = loaded.source
    if not json_text.looks_like_json(source.text):
        return False
    try:
        data, start, item_starts = json_text.decode_json(source.text, strict_keys=not source.is_context)
    except json_text.NotPlainJson:
        return False
    lines = _LineCounter(source.text)
    line = lines.at(start)
    if data is None:
        return True
    if not _is_list(data) or item_starts is None:
        loaded.documents.append(Document(source, 0, data, RECOMPOSE, line))
        return True
    for position, (item, item_start) in enumerate(zip(data["items"], item_starts)):
        item_line = lines.at(item_start)
        if item is not None:
            loaded.documents.append(Document(source, 0, item, RECOMPOSE, item_line, position))
    return True


class _LineCounter:
    """1-based lines of offsets asked in increasing order, counted as YAML counts them."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1
        self.newline_only = "\r" not in text and not any(c in text for c in "\x85\u2028\u2029")

    def at(self, offset: int) -> int:
        if self.newline_only:
            self.line += self.text.count("\n", self.offset, offset)
        else:
            self.line += len(LINE_BREAK.findall(self.text, self.offset, offset))
        self.offset = offset
        return self.line


def _add_document(loaded: LoadedFile, root, index: int, limits: Limits, track_aliases: bool) -> None:
    path = loaded.source.path
    builder = yamlnodes.NodeBuilder(limits.max_nodes, limits.max_depth, track_aliases)
    try:
        data = builder.build(root)
    except (yamlnodes.AliasLimitExceeded, yamlnodes.DepthLimitExceeded) as exc:
        mark = exc.node.start_mark
        kind = "alias-limit" if isinstance(exc, yamlnodes.AliasLimitExceeded) else "depth-limit"
        loaded.problems.append(LoadProblem(kind, f"{exc}; document skipped", path,
                                           mark.line + 1, mark.column + 1))
        return
    except RecursionError:
        mark = root.start_mark
        loaded.problems.append(LoadProblem("depth-limit", "document nests too deeply to read; "
                                           "document skipped", path, mark.line + 1, 1))
        return
    is_object = isinstance(data, dict) and "apiVersion" in data and "kind" in data
    for problem in builder.problems:
        kind = problem.kind
        if kind == "yaml11-yn":
            if not is_object:
                continue  # only the API server's reader turns y/n into booleans
            kind = "yaml11-scalar"
        loaded.problems.append(LoadProblem(kind, problem.message, path, problem.line, problem.column))
    if data is None:
        return  # an empty document ("---" with nothing after it) is not an object
    if not _is_list(data):
        loaded.documents.append(Document(loaded.source, index, data, RECOMPOSE, root.start_mark.line + 1))
        return
    # ``kind: List`` (and typed ``*List``) documents stand for their items.
    nodes = _list_item_nodes(root)
    for position, item in enumerate(data["items"]):
        if item is not None:
            line = (nodes[position] if position < len(nodes) else root).start_mark.line + 1
            loaded.documents.append(Document(loaded.source, index, item, RECOMPOSE, line, position))


def _is_list(data) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("items"), list)
            and isinstance(data.get("kind"), str) and data["kind"].endswith("List"))


def _list_item_nodes(root) -> list:
    items_node = None
    if isinstance(root, yaml.MappingNode):
        for key_node, value_node in root.value:
            if getattr(key_node, "value", None) == "items":
                items_node = value_node
    return items_node.value if isinstance(items_node, yaml.SequenceNode) else []


def _item_node(root, position: int):
    """The node of item ``position`` of a ``kind: List`` document (the root when not found)."""
    nodes = _list_item_nodes(root)
    return nodes[position] if position < len(nodes) else root


def _syntax_problem(exc: yaml.MarkedYAMLError, path: str, source_text: str) -> LoadProblem:
    mark = exc.problem_mark or exc.context_mark
    text = " ".join(part for part in (exc.context, exc.problem) if part)
    line = mark.line + 1 if mark else 1
    column = mark.column + 1 if mark else 1
    lines = split_lines(source_text) or [""]
    if line > len(lines):
        # libyaml reads a missing final line break as one more line: point at the real end
        line, column = len(lines), len(lines[-1]) + 1
    return LoadProblem("syntax", f"YAML syntax error: {text}", path, line, column)


def _node_estimate(text: str, limit: int) -> int | None:
    """An upper bound of the nodes in ``text`` when it is over ``limit``, else None."""
    if len(text) <= limit:
        return None
    estimate = node_count_bound(text)
    return estimate if estimate > limit else None


def node_count_bound(text: str) -> int:
    """Every YAML node after the first needs one of these characters before it."""
    return 1 + sum(text.count(separator) for separator in (",", ":", "\n", "- ", "[", "{"))


def _reader_problem(exc, path: str, source_text: str) -> LoadProblem:
    """A character YAML does not allow (a form feed, a C0 control): one line, at its position."""
    # libyaml's position can be where its buffer ended, not the character: find the character
    found = source_text.find(chr(exc.character)) if isinstance(exc.character, int) else -1
    position = found if found >= 0 else min(max(exc.position, 0), len(source_text))
    lines = split_lines(source_text[:position] + "x")
    return LoadProblem("syntax", f"YAML syntax error: character #x{exc.character:04x} is not allowed "
                       "in YAML; remove it or write it as an escape in a double-quoted string",
                       path, len(lines), len(lines[-1]))


def _flow_nesting_over(text: str, limit: int) -> tuple[int, int] | None:
    """libyaml's composer recurses in C and crashes on very deep ``[[[[...`` input: refuse it first.

    Brackets inside strings are counted too; real manifests never hold hundreds of unbalanced
    ones, so the bound only ever rejects pathological input.
    """
    if text.count("[") + text.count("{") <= limit or _nesting_surely_within(text, limit):
        return None
    depth = 0
    for match in _BRACKETS.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                position = match.start()
                line = text.count("\n", 0, position) + 1
                return line, position - (text.rfind("\n", 0, position) + 1) + 1
        elif depth:
            depth -= 1
    return None


_BRACKETS = re.compile(r"[\[\]{}]")
_ALL_BUT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_INNERMOST_PAIR = re.compile(rb"[\[{][\]}]")


def _nesting_surely_within(text: str, limit: int) -> bool:
    """A quick bound for files with many brackets (a large JSON file has millions, and the
    scan above takes seconds): each pass removes the innermost pairs, so the nesting is at most
    the passes needed plus the openers never closed."""
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _ALL_BUT_BRACKETS)
    for passes in range(limit + 1):
        peeled = _INNERMOST_PAIR.sub(b"", brackets)
        if len(peeled) == len(brackets):
            return passes + peeled.count(b"[") + peeled.count(b"{") <= limit
        brackets = peeled
    return False

# libyaml composes block collections recursively in C too, and ``- - - - ...`` 30,000 levels
# deep overflows its stack (a segfault, not an exception).  A block level needs at least one
# more column of indentation or one more ``- ``/``? ``/``: `` indicator, so bounding that run
# at the start of a line bounds the depth libyaml sees (to about twice the limit).
BLOCK_INDENT_LIMIT = 2000
_DEEP_INDENT = re.compile(r"^(?:[ ]|[-?:][ ]){%d}" % BLOCK_INDENT_LIMIT, re.MULTILINE)


def _block_indent_over(text: str) -> tuple[int, int] | None:
    match = _DEEP_INDENT.search(text) if len(text) > BLOCK_INDENT_LIMIT else None
    if match is None:
        return None
    return text.count("\n", 0, match.start()) + 1, 1
