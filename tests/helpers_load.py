"""Load manifests into objects and an Inventory the way the real pipeline does."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from kueuelint.identify.objects import KObject, identify
from kueuelint.index.inventory import Inventory
from kueuelint.load.discover import Target, read_target
from kueuelint.load.limits import Limits

CORPUS = str(Path(__file__).resolve().parent / "data" / "corpus")


def corpus_path(relative: str) -> str:
    return os.path.join(CORPUS, relative)


def load_objects(*paths: str) -> list[KObject]:
    objects = []
    for path in paths:
        loaded = read_target(Target(path, True), Limits())
        assert not loaded.problems, loaded.problems
        objects += [obj for doc in loaded.documents if (obj := identify(doc)) is not None]
    return objects


def load_corpus(*relative: str) -> tuple[list[KObject], Inventory]:
    objects = load_objects(*(corpus_path(path) for path in relative))
    return objects, Inventory(objects)


def load_text(text: str, *extra_paths: str) -> tuple[list[KObject], Inventory]:
    """Objects from YAML ``text`` (plus files), all in one Inventory."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(text)
    try:
        objects = load_objects(handle.name, *extra_paths)
    finally:
        os.unlink(handle.name)
    return objects, Inventory(objects)


def only(objects: list[KObject], key: str, name: str | None = None) -> KObject:
    matches = [obj for obj in objects if obj.key == key and (name is None or obj.name == name)]
    assert len(matches) == 1, [(obj.key, obj.name) for obj in objects]
    return matches[0]
