"""Where an object holds label maps, annotation maps and scheduling gates.

Several rules ask where labels may land on pods (the object's own metadata, pod templates,
wrapped objects) and where scheduling gates are listed. One walk over the object answers all
of them, and the answer is kept on the object, so no rule walks a document again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.kueue.facts import ObjectMemo

MAX_DEPTH = 24   # deeper than any real template nesting; bounds the walk on hostile input
FIELDS = ("labels", "annotations")


@dataclass
class Outline:
    """What one walk found, each list in document order."""

    labels: list[tuple[tuple, dict]] = field(default_factory=list)        # (path, map)
    annotations: list[tuple[tuple, dict]] = field(default_factory=list)   # (path, map)
    gates: list[tuple[tuple, object]] = field(default_factory=list)       # (path of name, name)

    def maps(self, field_name: str) -> list[tuple[tuple, dict]]:
        return self.annotations if field_name == "annotations" else self.labels


def outline_of(obj) -> Outline:
    """The outline of a loaded object, walked once and kept on it."""
    return OUTLINE.of(obj)


def metadata_maps(obj, field: str = "labels") -> list[tuple[tuple, dict]]:
    """Every ``metadata.<field>`` mapping inside an object (its own, templates, wrapped objects)."""
    return outline_of(obj).maps(field)


def outline(data: object) -> Outline:
    """Every ``metadata.labels``/``metadata.annotations`` mapping (skipping ``status`` and the
    inside of metadata) and every ``schedulingGates`` entry's name (skipping ``status``)."""
    found = Outline()
    _walk(data, (), 0, True, True, found)
    return found


def _walk(node: object, path: tuple, depth: int, maps: bool, gates: bool, found: Outline) -> None:
    if depth > MAX_DEPTH:
        return
    if isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, (dict, list)):
                _walk(item, path + (index,), depth + 1, maps, gates, found)
        return
    if not isinstance(node, dict):
        return
    if maps:
        _note_maps(node, path, found)
    if gates:
        _note_gates(node, path, found)
    for key, value in node.items():
        if key == "status" or not isinstance(value, (dict, list)):
            continue
        # metadata holds no nested templates, and a gate list holds no further gates
        child_maps, child_gates = maps and key != "metadata", gates and key != "schedulingGates"
        if child_maps or child_gates:
            _walk(value, path + (key,), depth + 1, child_maps, child_gates, found)


def _note_maps(node: dict, path: tuple, found: Outline) -> None:
    meta = node.get("metadata")
    if not isinstance(meta, dict):
        return
    for name in FIELDS:
        values = meta.get(name)
        if isinstance(values, dict):
            found.maps(name).append((path + ("metadata", name), values))


def _note_gates(node: dict, path: tuple, found: Outline) -> None:
    listed = node.get("schedulingGates")
    if isinstance(listed, list):
        for index, gate in enumerate(listed):
            name = gate.get("name") if isinstance(gate, dict) else None
            if name is not None:
                found.gates.append((path + ("schedulingGates", index, "name"), name))


OUTLINE: ObjectMemo[Outline] = ObjectMemo("metadata-outline", lambda obj: outline(obj.data))
