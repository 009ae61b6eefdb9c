"""Where CRDs come from: the run's own objects (inputs and context) and ``--crd PATH``.

CRD files named with ``--crd`` (or ``crds = [...]``) are parsed once per content: the parsed
documents are kept in the user's cache directory keyed by the file's sha256, because YAML
parsing of Kueue's 1.4 MB Workload CRD costs more than everything else a pre-commit run does.
"""

from __future__ import annotations

import hashlib
import os
from typing import Iterable

from kueuelint.cachedir import PYTHON_TAG, default_directory, read_marshal, write_marshal
from kueuelint.schema.crd import CrdIndex

CRD_KEY = "apiextensions.k8s.io/CustomResourceDefinition"
_FORMAT = 1   # bump when the cached layout changes


def crd_index(inventory=None, paths: Iterable[str] = ()) -> CrdIndex:
    """One index from CRDs found in the inventory, then those in ``paths`` (files or dirs)."""
    index = CrdIndex()
    if inventory is not None:
        index.add_all((obj.data, obj.path) for obj in inventory.of_kind(CRD_KEY))
    for data, source in _read(paths):
        index.add(data, source)
    return index


def _read(paths: Iterable[str]):
    from kueuelint.load.discover import expand

    targets, _ = expand(list(paths))
    for target in targets:
        for data in _documents(target.path):
            for item in _items(data):
                if item.get("kind") == "CustomResourceDefinition":
                    yield item, target.path


def _documents(path: str) -> list:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return []  # the loader stage reports unreadable inputs; here they just add nothing
    cache_file = _cache_file(raw)
    cached = read_marshal(cache_file)
    if isinstance(cached, list):
        return cached
    documents = _parse(raw)
    write_marshal(cache_file, documents)
    return documents


def _parse(raw: bytes) -> list:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return list(yaml.load_all(raw.decode("utf-8-sig"), Loader=loader))
    except (UnicodeDecodeError, yaml.YAMLError):
        return []


def _cache_file(raw: bytes) -> str | None:
    directory = default_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(raw).hexdigest()[:32]
    return os.path.join(directory, f"crd-{_FORMAT}-{PYTHON_TAG}-{digest}.marshal")


def _items(data):
    if not isinstance(data, dict):
        return []
    if str(data.get("kind", "")).endswith("List") and isinstance(data.get("items"), list):
        return [item for item in data["items"] if isinstance(item, dict)]
    return [data]
