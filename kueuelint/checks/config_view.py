"""The Kueue Configuration as rules read it, from a ``Configuration`` file or the manager ConfigMap.

``view`` maps the YAML embedded in the ConfigMap's literal block back onto the file's lines,
so a finding on the embedded Configuration points inside the embedded text.  Shared by the
Configuration rules (KQ901-KQ907) and the schema rule (KQ110).
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from kueuelint.checks.api import Violation
from kueuelint.identify.kinds import KUEUE_CONFIG_GROUP
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import ObjectMemo
from kueuelint.load import yamlnodes
from kueuelint.load.source import Document, split_lines

CONFIG_KEY = "controller_manager_config.yaml"
CONFIGMAP_NAMES = ("kueue-manager-config",)


@dataclass
class ConfigView:
    data: dict                  # the Configuration as a plain dict
    target: KObject | None      # object whose positions are the Configuration's (None: no map)
    owner: KObject              # the object in the run (Configuration or ConfigMap)
    problems: list              # (line, column, message) of the embedded YAML itself
    offset: tuple[int, int] | None = None   # where the embedded text starts in the file

    def violation(self, path: tuple, detail: str, *, at_value: bool = False) -> Violation:
        # A Configuration file has no metadata.name: name it by what it is.
        label = self.owner.display() if self.owner.name else "Kueue Configuration"
        if self.target is self.owner:
            return Violation(message=f"{label}: {detail}", path=path, at_value=at_value)
        if self.target is None:  # embedded text we cannot map line by line: point at the key
            where = ".".join(str(p) for p in path)
            return Violation(message=f"{label}: {where + ': ' if where else ''}{detail}",
                             path=("data", CONFIG_KEY))
        return Violation(message=f"{label}: {detail}", path=path, at_value=at_value,
                         obj=self.target)


def view(obj: KObject) -> ConfigView | None:
    """The Configuration held by ``obj`` (read once), or None."""
    return CONFIG_VIEW.of(obj)


def _read(obj: KObject) -> ConfigView | None:
    if obj.group == KUEUE_CONFIG_GROUP:
        return ConfigView(obj.data, obj, obj, [], None) if isinstance(obj.data, dict) else None
    if obj.kind != "ConfigMap" or not (obj.name in CONFIGMAP_NAMES
                                       or obj.name.endswith("-manager-config")):
        return None
    text = obj.get("data", CONFIG_KEY)
    if not isinstance(text, str):
        return None
    if obj.name not in CONFIGMAP_NAMES and KUEUE_CONFIG_GROUP not in text:
        return None  # other controller-runtime projects (JobSet, LWS) ship the same key
    return _embedded(obj, text)


CONFIG_VIEW: ObjectMemo[ConfigView | None] = ObjectMemo("kueue-configuration-view", _read)


def _embedded(obj: KObject, text: str) -> ConfigView:
    offset = _block_offset(obj)
    try:
        roots = list(yamlnodes.compose_documents(text))
    except yaml.YAMLError as exc:  # ReaderError (control characters) carries no mark
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = _inside(text, mark.line, mark.column) if mark else (0, 0)
        problem = f"the embedded YAML does not parse: {getattr(exc, 'problem', None) or exc}"
        return ConfigView({}, None, obj, [(*where, problem)], offset)
    root = roots[0] if roots else None
    builder = yamlnodes.NodeBuilder(100_000, 100)
    try:
        data = builder.build(root) if root is not None else None
    except (yamlnodes.AliasLimitExceeded, yamlnodes.DepthLimitExceeded, RecursionError) as exc:
        return ConfigView({}, None, obj, [(0, 0, f"the embedded YAML is too complex: {exc}")], offset)
    problems = [(p.line - 1, p.column - 1, p.message) for p in builder.problems]
    data = data if isinstance(data, dict) else {}
    target = None
    if offset is not None and root is not None:
        _shift(root, *offset, set())
        target = object_at(obj, data, root, offset[0])
    return ConfigView(data, target, obj, problems, offset)


def _inside(text: str, line: int, column: int) -> tuple[int, int]:
    """A parse error at the end of the embedded text is placed at the end of its last line:
    past it lies only the block's final line break, which may be the end of the file."""
    lines = split_lines(text) or [""]
    if line < len(lines):
        return line, column
    return len(lines) - 1, len(lines[-1])


def _block_offset(obj: KObject) -> tuple[int, int] | None:
    """(first line, indent) of the literal block holding the Configuration, 0-based; None when
    the text is folded or quoted and its lines do not map one to one onto the file."""
    if obj.doc.node is None:
        return None
    scalar, _, steps = yamlnodes.locate(obj.doc.node, ("data", CONFIG_KEY))
    if steps != 2 or getattr(scalar, "style", None) != "|":
        return None
    first = scalar.start_mark.line + 1
    return first, _block_indent(obj.doc.source.text, first)


def object_at(obj: KObject, data, node, line: int) -> KObject:
    """The ConfigMap again, but whose document is ``data`` at ``node`` (positions in the file)."""
    doc = Document(obj.doc.source, obj.doc.index, data, node, line + 1)
    return KObject(doc, obj.api_version, obj.group, obj.version, obj.kind, obj.name,
                   obj.namespace, obj.info)


def _block_indent(text: str, first_line: int) -> int:
    for line in text.splitlines()[first_line:]:
        if line.strip():
            return len(line) - len(line.lstrip(" "))
    return 0


def _shift(node, lines: int, columns: int, seen: set) -> None:
    if id(node) in seen:
        return  # aliases share nodes
    seen.add(id(node))
    for attr in ("start_mark", "end_mark"):
        mark = getattr(node, attr)
        setattr(node, attr, yaml.Mark(mark.name, 0, mark.line + lines, mark.column + columns,
                                      None, None))
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _shift(key, lines, columns, seen)
            _shift(value, lines, columns, seen)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _shift(item, lines, columns, seen)
