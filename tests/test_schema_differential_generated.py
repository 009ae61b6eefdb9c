"""Differential test generated from the CRDs: for every constrained field of every Kueue kind and
version (enum, pattern, length, range, item and entry counts, type), an object breaking that
constraint is built from the schema and both judges must reject it; the same object with a
valid value must get the same verdict from both. A disagreement names the field."""

from __future__ import annotations

import copy

import pytest

from conftest import KUEUE_CRDS
from kueuelint.models.registry import KUEUE, keys
from kueuelint.schema import builtin, crd
from kueuelint.schema.issues import CEL_UNSUPPORTED
from kueuelint.schema.sources import crd_index

CRD_DIR = str(KUEUE_CRDS)
INDEX = crd_index(paths=[CRD_DIR])
SKIP = ("status", "metadata", "template", "apiVersion", "kind")
_SAMPLES = {"DNS": "sample-a", "QUANTITY": "1", "QNAME": "example.com/a", "KIND": "Sample"}
_CONSTRAINTS = ("enum", "pattern", "maxLength", "minLength", "minimum", "maximum", "maxItems",
                "minItems", "maxProperties", "format")


def sample(schema: dict):
    """A small value the schema accepts (required fields only)."""
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("x-kubernetes-int-or-string"):
        return 1
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: sample(props[name]) for name in schema.get("required", []) if name in props}
    if kind == "array":
        return [sample(schema["items"]) for _ in range(schema.get("minItems", 0))]
    if kind == "integer":
        return max(schema.get("minimum", 1), 1)
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    return _string_sample(schema)


def _string_sample(schema: dict) -> str:
    pattern = schema.get("pattern", "")
    if "(?i)" in pattern:
        return _SAMPLES["KIND"]
    if "KMGTPE" in pattern:
        return _SAMPLES["QUANTITY"]
    if "A-Za-z0-9" in pattern:
        return _SAMPLES["QNAME"]
    return _SAMPLES["DNS"] if pattern else "text"


def bad_values(schema: dict):
    """(constraint, value) pairs, each breaking one constraint of ``schema``."""
    if schema.get("enum"):
        yield "enum", "Bogus-Value"
    if "pattern" in schema:
        yield "pattern", "Not Valid!"
    if "maxLength" in schema:
        yield "maxLength", "a" * (schema["maxLength"] + 1)
    if schema.get("minLength", 0) > 0:
        yield "minLength", ""
    if "minimum" in schema:
        yield "minimum", schema["minimum"] - 1
    if "maximum" in schema:
        yield "maximum", schema["maximum"] + 1
    if schema.get("format") == "int32":
        yield "format", 2**31
    if "maxItems" in schema:
        yield "maxItems", [sample(schema["items"]) for _ in range(schema["maxItems"] + 1)]
    if schema.get("minItems", 0) > 0:
        yield "minItems", []
    if "maxProperties" in schema:
        yield "maxProperties", {f"k{i}": sample(schema["additionalProperties"])
                                for i in range(schema["maxProperties"] + 1)}
    yield "type", _wrong_type(schema)


def _wrong_type(schema: dict):
    if schema.get("x-kubernetes-int-or-string") or schema.get("type") in ("object", "array"):
        return True
    return {"string": 12345, "integer": "12", "boolean": "yes", "number": "1.5"}.get(
        schema.get("type"), ["x"])


def leaves(schema: dict, path: tuple = ()):
    """(path, schema) for every constrained field, '[]' standing for array items."""
    props = schema.get("properties") or {}
    for name, sub in props.items():
        if name in SKIP:
            continue
        if any(key in sub for key in _CONSTRAINTS) or "type" in sub:
            yield path + (name,), sub
        if isinstance(sub.get("items"), dict):
            yield from leaves(sub["items"], path + (name, "[]"))
        yield from leaves(sub, path + (name,))


def build(root: dict, base: dict, path: tuple, value) -> dict:
    obj = copy.deepcopy(base)
    node, schema = obj, root
    for step in path[:-1]:
        if step == "[]":
            if not node:
                node.append(sample(schema["items"]))
            node, schema = node[0], schema["items"]
            continue
        schema = schema["properties"][step]
        if step not in node or not isinstance(node[step], (dict, list)):
            node[step] = sample(schema) if schema.get("type") != "array" else []
        node = node[step]
    node[path[-1]] = value
    return obj


def _verdicts(obj: dict, group: str, version: str, kind: str):
    built = builtin.validate(group, version, kind, obj)
    by_crd, _ = crd.validate(INDEX.get(group, kind, version), obj)
    return built, [i for i in by_crd if i.code != CEL_UNSUPPORTED]


def _cases():
    for group, version, kind in keys():
        if group != KUEUE:
            continue
        schema = INDEX.get(group, kind, version).schema
        for path, leaf in leaves(schema):
            for constraint, value in bad_values(leaf):
                yield pytest.param(group, version, kind, path, leaf, constraint, value,
                                   id=f"{kind}-{version}-{'.'.join(path)}-{constraint}")


def _base(group, version, kind):
    obj = {"apiVersion": f"{group}/{version}", "kind": kind, "metadata": {"name": "sample"}}
    schema = INDEX.get(group, kind, version).schema
    obj.update({k: v for k, v in sample(schema).items() if k not in obj})
    return obj


@pytest.mark.parametrize("group,version,kind,path,leaf,constraint,value", list(_cases()))
def test_both_judges_reject_each_broken_constraint(group, version, kind, path, leaf,
                                                   constraint, value):
    root = INDEX.get(group, kind, version).schema
    base = _base(group, version, kind)
    good = build(root, base, path, sample(leaf))
    built, by_crd = _verdicts(good, group, version, kind)
    assert bool(built) == bool(by_crd), \
        f"verdicts differ on a valid {'.'.join(path)}: built-in {[i.message for i in built]}, " \
        f"CRD {[i.message for i in by_crd]}"
    bad = build(root, base, path, value)
    built, by_crd = _verdicts(bad, group, version, kind)
    assert built and by_crd, \
        f"{'.'.join(path)} = {value!r:.60} ({constraint}): built-in " \
        f"{[i.message for i in built]}, CRD {[i.message for i in by_crd]}"
