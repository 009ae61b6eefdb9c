"""A large ``kind: List`` YAML file (``kubectl get ... -o yaml``) read by two processes.

Reading YAML costs about 0.2 ms per object here (libyaml composes, Python builds values), so
a snapshot of a large cluster takes many seconds. The items of a List are independent
subtrees, so the file can be cut between two items: this process reads the file with the
second half of the items replaced by empty lines, and a forked child reads that second half
alone, preceded by empty lines, as a List of its own. Every line keeps its number, so the
documents, their lines and the problems found are those one reader gives.

Only files for which that surely holds are cut: one document laid out as kubectl writes it
(``items:`` at column 0, each item starting with ``- `` at column 0), no anchors or aliases
(an alias could point across the cut), and no more nodes than the per-document and per-file
bounds allow (each half alone would pass a bound the whole must pass). Anything else, or a part that does
not read cleanly, is read by one process as before.
"""

from __future__ import annotations

import re

from kueuelint import collector
from kueuelint.forked import Child
from kueuelint.load.json_text import looks_like_json
from kueuelint.load.limits import Limits
from kueuelint.load.source import (RECOMPOSE, Document, LoadedFile, LoadProblem, SourceFile,
                                   node_count_bound, parse_text)

MIN_SPLIT_BYTES = 4_000_000        # below this the fork and the exchange cost what they save
_OTHER_DOCUMENT = re.compile(r"^(?:---|\.\.\.)(?:[ \t]|$)", re.MULTILINE)
_ITEMS_KEY = re.compile(r"^items:[ \t]*\n(?=-(?: |\n))", re.MULTILINE)
_ITEM_START = re.compile(r"^-(?: |$)", re.MULTILINE)
_AFTER_ITEMS = re.compile(r"\n[^\s#-]")        # the first line at column 0 that is no item
_ANCHOR_OR_ALIAS = re.compile(r"(?:^|[\s\[{,])[&*][^\s,\[\]{}]", re.MULTILINE)
_API_VERSION_KEY = re.compile(r"^apiVersion:", re.MULTILINE)
_FATAL = {"syntax", "depth-limit", "alias-limit", "node-limit", "document-limit", "encoding"}


def read_in_two(source: SourceFile, limits: Limits) -> LoadedFile | None:
    """The file read by this process and a forked child; None when it is not cut."""
    # As in parse_text: the values hold no cycles, and collector passes over millions of them
    # while the documents are put together would cost seconds.
    with collector.paused():
        return _read_in_two(source, limits)


def _read_in_two(source: SourceFile, limits: Limits) -> LoadedFile | None:
    cut = _cut(source.text, limits)
    if cut is None:
        return None
    first_text, second_text, first_items, cut_line = cut
    child = Child.start(lambda: _read_part(source, second_text, limits))
    first = _read_part(source, first_text, limits)
    second = child.result() if child is not None else None
    if second is None:      # no child, or it failed
        second = _read_part(source, second_text, limits)
    documents, problems = first
    if _fatal(problems) or _fatal(second[1]) or not _list_read(documents, first_items, cut_line):
        return None
    loaded = LoadedFile(source)
    loaded.documents = [_rebound(source, doc, 0) for doc in documents] + \
        [_rebound(source, doc, first_items) for doc in second[0]]
    # in reading order: the header and first items, the second half, then the lines after it
    loaded.problems = [p for p in problems if p.line < cut_line] + second[1] + \
        [p for p in problems if p.line >= cut_line]
    return loaded


def _cut(text: str, limits: Limits) -> tuple[str, str, int, int] | None:
    """(text with the second half of the items blanked, that half alone, items before the cut,
    line of the cut)."""
    if len(text) < MIN_SPLIT_BYTES or looks_like_json(text) or _another_document(text):
        return None
    if ("&" in text or "*" in text) and _ANCHOR_OR_ALIAS.search(text):
        return None
    if node_count_bound(text) > min(limits.max_nodes, limits.max_file_nodes):
        return None         # the whole file might be refused, where each half would not
    items_key = _ITEMS_KEY.search(text)
    if items_key is None:
        return None
    after = _AFTER_ITEMS.search(text, items_key.end() - 1)
    end = after.start() + 1 if after else len(text)
    middle = (items_key.end() + end) // 2
    cut_item = _ITEM_START.search(text, middle, end)
    if cut_item is None:
        return None
    cut = cut_item.start()
    first_items = len(_ITEM_START.findall(text, items_key.end(), cut))
    cut_line = text.count("\n", 0, cut) + 1
    header = text[:items_key.start()]
    api_version = "apiVersion: v1\n" if _API_VERSION_KEY.search(header) else "\n"
    body = text[cut:end] if text[cut:end].endswith("\n") else text[cut:end] + "\n"
    first_text = text[:cut] + "\n" * body.count("\n") + text[end:]
    second_text = "\n" * (cut_line - 3) + api_version + "items:\n" + body + "kind: List\n"
    return first_text, second_text, first_items, cut_line


def _another_document(text: str) -> bool:
    """A document marker after the start (``in`` finds none in a large file at once)."""
    if "\n---" not in text and "\n..." not in text:
        return False
    return _OTHER_DOCUMENT.search(text, 1) is not None


def _read_part(source: SourceFile, text: str, limits: Limits) -> tuple[list[tuple], list[LoadProblem]]:
    """(data, line, item) of each document, and the problems: plain data, which the child
    sends back without the text of the file."""
    part = SourceFile(source.path, text, is_context=source.is_context, file_type=source.file_type)
    loaded = parse_text(part, limits)
    return [(doc.data, doc.line, doc.item) for doc in loaded.documents], loaded.problems


def _fatal(problems: list[LoadProblem]) -> bool:
    return any(problem.kind in _FATAL for problem in problems)


def _list_read(documents: list[tuple], first_items: int, cut_line: int) -> bool:
    """Did this process read the List's items before the cut (and not, say, one mapping, or
    the items of another ``items:`` key after them)?"""
    return bool(documents) and all(item is not None and item < first_items and line < cut_line
                                   for _, line, item in documents)


def _rebound(source: SourceFile, document: tuple, offset: int) -> Document:
    """A document of a part, as a document of the whole file (composed again from it)."""
    data, line, item = document
    return Document(source, 0, data, RECOMPOSE, line, item + offset)
