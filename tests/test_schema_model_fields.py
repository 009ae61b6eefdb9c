"""The built-in models declare exactly the fields of Kueue's CRDs (spec side, every kind and
version), so the built-in judge never calls a real field unknown nor accepts a made-up one.
Status (written by controllers) and pod templates (core API) are out of the models' scope."""

from __future__ import annotations

import types
import typing

import pytest

from conftest import KUEUE_CRDS
from kueuelint.models.registry import KUEUE, keys, model_for
from kueuelint.schema.sources import crd_index

CRD_DIR = str(KUEUE_CRDS)
INDEX = crd_index(paths=[CRD_DIR])
_UNIONS = (typing.Union, types.UnionType)


def _inner(annotation):
    """The model (or scalar type) inside Optional/Annotated/list/dict wrappers."""
    for _ in range(10):
        origin = typing.get_origin(annotation)
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if origin is typing.Annotated or (origin in _UNIONS and len(args) == 1):
            annotation = args[0]
        elif origin is list:
            annotation = args[0]
        elif origin is dict:
            annotation = args[1]
        else:
            return annotation
    return annotation


def _compare(schema: dict, model, path: tuple, out: list) -> None:
    if isinstance(schema.get("items"), dict):
        return _compare(schema["items"], model, path, out)
    props = schema.get("properties") or {}
    if not props and isinstance(schema.get("additionalProperties"), dict):
        return _compare(schema["additionalProperties"], model, path, out)
    fields = getattr(model, "model_fields", None)
    if not props or fields is None or (path and path[-1] == "template"):
        return
    names = {info.alias or name: info for name, info in fields.items()}
    for name in props:
        if name == "status":
            continue
        if name not in names:
            out.append(f"{'.'.join(path + (name,))}: in the CRD, not in the model")
        else:
            _compare(props[name], _inner(names[name].annotation), path + (name,), out)
    out.extend(f"{'.'.join(path + (name,))}: in the model, not in the CRD"
               for name in names if name not in props and name != "status")


@pytest.mark.parametrize("group,version,kind", [k for k in keys() if k[0] == KUEUE],
                         ids=lambda value: str(value))
def test_model_fields_match_crd(group, version, kind):
    crd_version = INDEX.get(group, kind, version)
    assert crd_version is not None
    differences: list[str] = []
    _compare(crd_version.schema, model_for(group, version, kind), (), differences)
    assert differences == []
