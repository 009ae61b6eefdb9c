"""Where CRDs come from: the run's own objects (inputs and context) and ``--crd PATH``.

CRD files named with ``--crd`` (or ``crds = [...]``) are parsed once per content: the parsed
documents are kept in the user's cache directory keyed by the file's sha256, because YAML
parsing of Kueue's 1.4 MB Workload CRD costs more than everything else a pre-commit run does.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from typing import Iterable

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
    cached = _load_cached(cache_file)
    if cached is not None:
        return cached
    documents = _parse(raw)
    _store(cache_file, documents)
    return documents


def _parse(raw: bytes) -> list:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return list(yaml.load_all(raw.decode("utf-8-sig"), Loader=loader))
    except (UnicodeDecodeError, yaml.YAMLError):
        return []


def _cache_file(raw: bytes) -> str | None:
    from kueuelint.cel.cache import default_directory

    directory = default_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(raw).hexdigest()[:32]
    return os.path.join(directory, f"crd-{_FORMAT}-{digest}.marshal")


def _load_cached(path: str | None) -> list | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            value = marshal.load(handle)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return value if isinstance(value, list) else None


def _store(path: str | None, documents: list) -> None:
    """Best effort: a read-only or full cache directory only costs a re-parse next time."""
    if path is None:
        return
    try:
        blob = marshal.dumps(documents)
    except ValueError:
        return  # a value marshal cannot hold (e.g. a YAML timestamp): not worth caching
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "wb") as handle:
            handle.write(blob)
        os.replace(temporary, path)
    except OSError:
        pass


def _items(data):
    if not isinstance(data, dict):
        return []
    if str(data.get("kind", "")).endswith("List") and isinstance(data.get("items"), list):
        return [item for item in data["items"] if isinstance(item, dict)]
    return [data]
