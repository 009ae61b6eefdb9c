"""Build compute-config objects from YAML text for the compute tests (helpers, no tests)."""

from __future__ import annotations

import textwrap

from kueuelint.identify.objects import identify
from kueuelint.identify.shapes import detect_shape
from kueuelint.index.inventory import Inventory
from kueuelint.load.limits import Limits
from kueuelint.load.source import SourceFile, parse_text


def load(text: str, path: str = "input.yaml", file_type: str | None = None) -> list:
    source = SourceFile(path, textwrap.dedent(text), file_type=file_type)
    loaded = parse_text(source, Limits())
    assert not loaded.problems, loaded.problems
    return [obj for doc in loaded.documents
            if (obj := identify(doc, shape_detector=detect_shape)) is not None]


def load_one(text: str, path: str = "input.yaml", **kwargs):
    objects = load(text, path, **kwargs)
    assert objects, "nothing identified"
    return objects[0], Inventory(objects)


def inventory_of(*groups) -> Inventory:
    return Inventory([obj for group in groups for obj in group])
