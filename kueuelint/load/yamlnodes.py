"""Turn PyYAML's composed node tree into plain values, keeping the nodes for positions.

Composing (parse events into nodes) runs in libyaml; building values from nodes here costs
about what PyYAML's own constructor costs.  The node trees are not kept: the few documents a
finding must point into are composed again (``SourceFile.document_root``) to answer "where is
spec.x[2].y?".  Values follow the Kubernetes API server's
YAML 1.1 reading (``on`` is true, ``012`` is 10) except timestamps, which stay strings as
they do after the server's YAML-to-JSON step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

STR_TAG = "tag:yaml.org,2002:str"
_SAFE_SCALAR_TAGS = {
    "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float", "tag:yaml.org,2002:binary", "tag:yaml.org,2002:timestamp",
    STR_TAG,
}
_MERGE_TAG = "tag:yaml.org,2002:merge"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
_MAPPING_TAGS = {_MAP_TAG, "tag:yaml.org,2002:omap", "tag:yaml.org,2002:set"}


@dataclass
class NodeProblem:
    """Something wrong in the YAML itself, with its 1-based position."""

    kind: str        # "duplicate-key", "unsafe-tag", "non-string-key", "yaml11-scalar", ...
    message: str
    line: int
    column: int


class AliasLimitExceeded(Exception):
    def __init__(self, node: Node, limit: int):
        super().__init__(f"document has more than {limit:,} nodes (counting what its aliases expand to; "
                         "set max-nodes to raise the limit)")
        self.node = node


class DepthLimitExceeded(Exception):
    def __init__(self, node: Node, limit: int):
        super().__init__(f"document nests deeper than {limit} levels")
        self.node = node


class _ScalarReader(SafeConstructor):
    """Reuses PyYAML's safe scalar constructors without its recursive object builder."""

    def __init__(self) -> None:  # noqa: D401 - the base class wants a loader; we need none
        super().__init__()


_reader = _ScalarReader()
MAX_NUMBER_CHARS = 1000   # far past 64 bits, well inside Python's 4300-digit conversion limit


def _plain_text(node: ScalarNode) -> bool:
    """A string with nothing to report: most keys and values of a manifest.  Only y/n, read
    as booleans by Go's YAML 1.1 reader, are a surprise among plain strings."""
    return node.tag == STR_TAG and (bool(node.style) or node.value not in _GO_ONLY_BOOLS)


def _scalar_value(node: ScalarNode):
    tag = node.tag
    if tag == STR_TAG:
        return node.value
    if tag == "tag:yaml.org,2002:int":
        text = node.value
        if ":" in text or len(text) > MAX_NUMBER_CHARS:
            # No base-60 numbers on the API server ("1:30" stays text), and Go reads a number
            # too big for 64 bits as text too; Python would refuse to convert it anyway.
            return text
        if text.isdigit() and (text == "0" or text[0] != "0"):
            return _int64(int(text), text)
        return _int64(_reader.construct_yaml_int(node), text)
    if tag == "tag:yaml.org,2002:float" and ":" in node.value:
        return node.value
    if tag == "tag:yaml.org,2002:bool":
        return _reader.construct_yaml_bool(node)
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:float":
        return _reader.construct_yaml_float(node)
    # timestamps, binary and unknown tags keep their text, as the API server would see it.
    return node.value


# Plain scalars YAML 1.1 (and so the API server's reader) turns into something other than the
# text: booleans spelled as words and numbers with a leading zero or colons.  true/false and
# ordinary numbers are what everyone expects and are not reported.
_WORD_BOOLS = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$")
_OCTAL = re.compile(r"^[-+]?0[0-9_]+$")
_SEXAGESIMAL = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_TRUE_WORDS = {"y", "yes", "on"}
_GO_ONLY_BOOLS = {"y", "Y", "n", "N"}


def yaml11_surprise(node: ScalarNode, octal_ok: bool = False) -> str | None:
    """Why a plain scalar does not mean what its text says, or None."""
    if node.style or not node.tag.startswith("tag:yaml.org,2002:"):
        return None  # quoted, block or explicitly tagged: the author chose the type
    text = node.value
    # PyYAML resolves y/n as text, the others as bool: another tag means one written explicitly
    expected = STR_TAG if text in _GO_ONLY_BOOLS else "tag:yaml.org,2002:bool"
    if node.tag == expected and _WORD_BOOLS.match(text):
        value = "true" if text.lower() in _TRUE_WORDS else "false"
        return (f"{text} is read as the boolean {value} (YAML 1.1); quote it (\"{text}\") "
                f"if you mean the text, or write {value}")
    if node.tag == "tag:yaml.org,2002:int" and not octal_ok and len(text) <= MAX_NUMBER_CHARS \
            and _OCTAL.match(text):
        return (f"{text} has a leading zero and is read as the octal number "
                f"{_reader.construct_yaml_int(node)} (YAML 1.1); quote it if you mean the text")
    if _SEXAGESIMAL.match(text) and node.tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        return (f"{text} looks like a base-60 number (YAML 1.1) that YAML tools read differently; "
                "quote it if you mean the text")
    return None


def _int64(value: int, text: str):
    """Numbers past 64 bits, as Go's YAML reader leaves them: decimal ones become floats,
    others (and any a float cannot hold) stay text.  CEL could not take them as ints either."""
    if -(1 << 63) <= value < (1 << 63):
        return value
    digits = text.lstrip("+-").replace("_", "")
    if digits.isdigit() and digits[0] != "0":
        try:
            return float(value)
        except OverflowError:
            pass
    return text


class NodeBuilder:
    """Builds values for one document; counts nodes so alias bombs stop early."""

    def __init__(self, max_nodes: int, max_depth: int, track_aliases: bool = True) -> None:
        self.track_aliases = track_aliases
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.visited = 0
        self.problems: list[NodeProblem] = []
        self._seen_ids: set[int] = set()
        # Aliases reuse the anchored node object: build it once, charge its size each time,
        # so "billion laughs" is refused without being expanded.
        self._built: dict[int, tuple[object, int]] = {}

    def build(self, node: Node):
        return self._build(node, 0)

    def _count(self, node: Node) -> None:
        self.visited += 1
        if self.visited > self.max_nodes:
            raise AliasLimitExceeded(node, self.max_nodes)

    def _build(self, node: Node, depth: int, is_key: bool = False, octal_ok: bool = False):
        if isinstance(node, ScalarNode):
            if _plain_text(node):
                self._count(node)
                return node.value
            return self._build_scalar(node, is_key, octal_ok)
        if depth > self.max_depth:
            raise DepthLimitExceeded(node, self.max_depth)
        if not self.track_aliases:
            self._count(node)
            if isinstance(node, SequenceNode):
                self._check_tag(node, {_SEQ_TAG})
                return [self._build(child, depth + 1) for child in node.value]
            return self._build_mapping(node, depth)
        memo = self._built.get(id(node))
        if memo is not None:
            self.visited += memo[1]
            if self.visited > self.max_nodes:
                raise AliasLimitExceeded(node, self.max_nodes)
            return memo[0]
        before = self.visited
        self._count(node)
        if isinstance(node, SequenceNode):
            self._check_tag(node, {_SEQ_TAG})
            value = [self._build(child, depth + 1) for child in node.value]
        else:
            value = self._build_mapping(node, depth)
        self._built[id(node)] = (value, self.visited - before)
        return value

    def _build_scalar(self, node: ScalarNode, is_key: bool, octal_ok: bool):
        self._count(node)
        self._check_tag(node, _SAFE_SCALAR_TAGS)
        surprise = yaml11_surprise(node, octal_ok)
        if surprise and not (is_key and node.tag != STR_TAG):  # non-string keys: reported as such
            # y/n are booleans only to Go's YAML 1.1 reader; the caller keeps them for
            # Kubernetes objects and drops them for files Python tools read.
            kind = "yaml11-yn" if node.value in _GO_ONLY_BOOLS else "yaml11-scalar"
            self._problem(node, kind, surprise)
        try:
            return _scalar_value(node)
        except Exception:  # noqa: BLE001 - PyYAML's constructors fail in many ways on bad text
            # `!!float abc`, `!!bool maybe`, `!!int ""`: the API server refuses to decode these
            short = node.tag.replace("tag:yaml.org,2002:", "!!")
            self._problem(node, "syntax", f"{node.value[:40]!r} is not a valid {short} value")
            return node.value

    def _build_mapping(self, node: MappingNode, depth: int) -> dict:
        self._check_tag(node, _MAPPING_TAGS)
        result: dict = {}
        merged: dict = {}
        # The hot loop of the loader: plain strings, most keys and values, are taken as they are
        # here (the test of _plain_text, written out) rather than through _build.
        for key_node, value_node in node.value:
            if key_node.tag == STR_TAG and isinstance(key_node, ScalarNode) and \
                    (key_node.style or key_node.value not in _GO_ONLY_BOOLS):
                self.visited += 1
                if self.visited > self.max_nodes:
                    raise AliasLimitExceeded(key_node, self.max_nodes)
                key = key_node.value
            elif key_node.tag == _MERGE_TAG:
                merged.update(self._merge_source(value_node, depth))
                continue
            else:
                key = self._key(key_node, depth)
            if key in result:
                self._problem(key_node, "duplicate-key",
                              f"duplicate key {key!r}; the API server rejects duplicate fields")
            if value_node.tag == STR_TAG and isinstance(value_node, ScalarNode) and \
                    (value_node.style or value_node.value not in _GO_ONLY_BOOLS):
                self.visited += 1
                if self.visited > self.max_nodes:
                    raise AliasLimitExceeded(value_node, self.max_nodes)
                result[key] = value_node.value
            else:
                # permission bits (defaultMode: 0644) are the one place octal is what people mean
                result[key] = self._build(value_node, depth + 1, octal_ok=key.endswith(("mode", "Mode")))
        if merged:
            for key, value in merged.items():
                result.setdefault(key, value)
        return result

    def _key(self, key_node: Node, depth: int) -> str:
        key = self._build(key_node, depth + 1, is_key=True)
        if not isinstance(key, str):
            self._problem(key_node, "non-string-key",
                          f"mapping key {key!r} is not a string; the API server rejects it")
            key = str(key) if not isinstance(key, (dict, list)) else repr(key)
        return key

    def _merge_source(self, node: Node, depth: int) -> dict:
        value = self._build(node, depth + 1)
        if isinstance(value, dict):
            return value
        if isinstance(value, list):
            merged: dict = {}
            for item in reversed(value):
                if isinstance(item, dict):
                    merged.update(item)
            return merged
        return {}

    def _check_tag(self, node: Node, allowed: set[str]) -> None:
        tag = node.tag
        if tag in allowed or tag == STR_TAG:
            return
        if id(node) in self._seen_ids:
            return
        self._seen_ids.add(id(node))
        if tag.startswith("tag:yaml.org,2002:python/") or tag.startswith("!!python"):
            self._problem(node, "unsafe-tag",
                          f"tag {tag!r} asks for Python object construction; it was read as plain data")
        elif not tag.startswith("tag:yaml.org,2002:"):
            self._problem(node, "unknown-tag", f"unknown YAML tag {tag!r}; value read as plain data")

    def _problem(self, node: Node, kind: str, message: str) -> None:
        mark = node.start_mark
        self.problems.append(NodeProblem(kind, message, mark.line + 1, mark.column + 1))


class _Composer(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """PyYAML's safe loader (libyaml's when present) with the tag resolution it asks Python for
    at every node made cheap: manifests repeat the same keys and values thousands of times, so
    the implicit tag of a plain scalar is looked up once per text.  The safe loader has no path
    resolvers, so a node's tag depends on its kind and text alone."""

    _COLLECTION_TAGS = {SequenceNode: _SEQ_TAG, MappingNode: _MAP_TAG}

    def resolve(self, kind, value, implicit):
        if kind is not ScalarNode:
            return self._COLLECTION_TAGS[kind]
        if not implicit[0]:
            return STR_TAG   # quoted, or a block scalar
        tag = _PLAIN_TAGS.get(value)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_PLAIN_TAGS) < MAX_REMEMBERED_TAGS:
                _PLAIN_TAGS[value] = tag
        return tag

    def descend_resolver(self, current_node, current_index):
        pass   # no path resolvers

    def ascend_resolver(self):
        pass


_PLAIN_TAGS: dict[str, str] = {}
MAX_REMEMBERED_TAGS = 100_000


def compose_documents(stream: str):
    """Yield the root node of every document, using libyaml when it is present."""
    loader = _Composer(stream)
    try:
        while loader.check_node():
            yield loader.get_node()
    finally:
        loader.dispose()


def locate(root: Node, path: tuple, *, want_key: bool = True) -> tuple[Node, Node | None, int]:
    """Follow ``path`` down the node tree.

    Returns (value node reached, key node of the last mapping step or None, steps followed).
    When the path leaves the tree, the deepest node on it is returned so a finding still points
    at the closest existing line.
    """
    node, key_node = root, None
    steps = 0
    for part in path:
        nxt = _child(node, part)
        if nxt is None:
            break
        key_node, node = nxt
        steps += 1
    return node, key_node, steps


def _child(node: Node, part) -> tuple[Node | None, Node] | None:
    if isinstance(node, MappingNode):
        for key_node, value_node in reversed(node.value):
            if isinstance(key_node, ScalarNode) and key_node.value == str(part):
                return key_node, value_node
        return None
    if isinstance(node, SequenceNode) and isinstance(part, int):
        if 0 <= part < len(node.value):
            return None, node.value[part]
    return None


__all__ = [
    "AliasLimitExceeded", "ConstructorError", "DepthLimitExceeded", "NodeBuilder", "NodeProblem",
    "compose_documents", "locate",
]
