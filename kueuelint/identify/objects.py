"""Step 2 of the pipeline: give every loaded document an identity (group, kind, namespace, name)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from kueuelint.findings import Location, ObjectRef
from kueuelint.identify.kinds import KindInfo, kind_key, lookup
from kueuelint.load.source import Document

DEFAULT_NAMESPACE = "default"


@dataclass(eq=False)
class KObject:
    """A Kubernetes-style object as read from a file.

    ``data`` is the plain value tree; typed views and derived pod sets are computed on demand
    by later stages so a run that never needs them never pays for them.
    """

    doc: Document
    api_version: str
    group: str
    version: str
    kind: str
    name: str
    namespace: str | None          # effective namespace (None for cluster-scoped kinds)
    info: KindInfo | None
    # what kueuelint.kueue.facts.ObjectMemo computes from this object alone, by memo
    memos: dict[Any, Any] = field(default_factory=dict, repr=False)
    key: str = field(init=False)   # ``group/Kind``: every rule dispatch and lookup asks for it

    def __post_init__(self) -> None:
        self.key = kind_key(self.group, self.kind)

    @property
    def data(self) -> Any:
        return self.doc.data

    @property
    def is_context(self) -> bool:
        return self.doc.source.is_context

    @property
    def path(self) -> str:
        return self.doc.source.path

    @property
    def metadata(self) -> dict:
        meta = self.data.get("metadata") if isinstance(self.data, dict) else None
        return meta if isinstance(meta, dict) else {}

    @property
    def labels(self) -> dict:
        labels = self.metadata.get("labels")
        return labels if isinstance(labels, dict) else {}

    @property
    def annotations(self) -> dict:
        annotations = self.metadata.get("annotations")
        return annotations if isinstance(annotations, dict) else {}

    @property
    def spec(self) -> dict:
        spec = self.data.get("spec") if isinstance(self.data, dict) else None
        return spec if isinstance(spec, dict) else {}

    def get(self, *path, default=None):
        """Follow ``path`` through dicts and lists; ``default`` when any step is missing."""
        return dig(self.data, *path, default=default)

    def locate(self, path: tuple | list = (), *, at_value: bool = False) -> Location:
        return self.doc.locate(path, at_value=at_value)

    def ref(self) -> ObjectRef:
        return ObjectRef(self.api_version, self.kind, self.namespace, self.name)

    def display(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


def dig(data, *path, default=None):
    """``data[p0][p1]...`` through dicts (str keys) and lists (int indexes), or ``default``
    when a step is missing, null or of the wrong type: input is never trusted to be well formed."""
    node = data
    for part in path:
        if isinstance(node, dict) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return default
        if node is None:
            return default
    return node


def identify(doc: Document, default_namespace: str = DEFAULT_NAMESPACE,
             shape_detector=None) -> KObject | None:
    """An identity for ``doc``, or None when it is not an object at all (a scalar, a list)."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    api_version = data.get("apiVersion")
    kind = data.get("kind")
    by_shape = not isinstance(api_version, str) or not isinstance(kind, str)
    if by_shape:
        detected = shape_detector(doc) if shape_detector else None
        if detected is None:
            return None
        group, _, kind = detected.rpartition("/")
        api_version = f"{group}/v1"
    group, _, version = api_version.rpartition("/")
    info = lookup(group, kind)
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name = meta.get("name") or meta.get("generateName") or (_shape_name(doc) if by_shape else "")
    namespace = None
    if info is None or info.namespaced:
        raw_ns = meta.get("namespace")
        namespace = raw_ns if isinstance(raw_ns, str) and raw_ns else default_namespace
    return KObject(doc, api_version, group, version, kind, str(name), namespace, info)


def shape_detector():
    """The detector of compute-config files without apiVersion/kind, or None when the shapes
    module is left out; imported on first use so that a run of plain manifests does not pay."""
    try:
        from kueuelint.identify.shapes import detect_shape
    except ImportError:
        return None
    return detect_shape


def _shape_name(doc: Document) -> str:
    """Compute configs have no metadata: their own ``name``, else the file names them."""
    own = doc.data.get("name")
    if isinstance(own, str) and own:
        return own
    stem = PurePath(doc.source.path).stem
    return stem if doc.index == 0 else f"{stem}#{doc.index + 1}"
