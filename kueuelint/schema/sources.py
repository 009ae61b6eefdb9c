"""Where CRDs come from: the run's own objects (inputs and context) and ``--crd PATH``."""

from __future__ import annotations

from typing import Iterable

from kueuelint.schema.crd import CRD_KEY, CrdIndex


def crd_index(inventory=None, paths: Iterable[str] = ()) -> CrdIndex:
    """One index from CRDs found in the inventory, then those in ``paths`` (files or dirs)."""
    index = CrdIndex()
    if inventory is not None:
        index.add_all((obj.data, obj.path) for obj in inventory.of_kind(CRD_KEY))
    for data, source in _read(paths):
        index.add(data, source)
    return index


def _read(paths: Iterable[str]):
    """CRD objects in ``paths``; read with the plain C loader because no positions are needed."""
    import yaml

    from kueuelint.load.discover import expand

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    targets, _ = expand(list(paths))
    for target in targets:
        try:
            with open(target.path, encoding="utf-8-sig") as handle:
                documents = list(yaml.load_all(handle, Loader=loader))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # the loader stage reports unreadable inputs; here they just add nothing
        for data in documents:
            for item in _items(data):
                if item.get("kind") == "CustomResourceDefinition":
                    yield item, target.path


def _items(data):
    if not isinstance(data, dict):
        return []
    if data.get("kind", "").endswith("List") and isinstance(data.get("items"), list):
        return [item for item in data["items"] if isinstance(item, dict)]
    return [data]
