"""Kubernetes structural-schema semantics: defaulting, null pruning, and translation of an
``openAPIV3Schema`` into a plain JSON Schema that ``jsonschema`` can run.

The API server defaults (and drops disallowed nulls) *before* validating and before running CEL,
so every judge here works on the defaulted copy; the user's data is never mutated.
"""

from __future__ import annotations

import copy
import re
from typing import Any

# Keywords that carry over unchanged from OpenAPI v3 to JSON Schema draft 4.
_PLAIN = ("type", "required", "enum", "minLength", "maxLength", "minimum", "maximum",
          "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
          "uniqueItems", "minProperties", "maxProperties", "format",
          "x-kubernetes-list-type", "x-kubernetes-list-map-keys")
_EMBEDDED = {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
             "metadata": {"type": "object"}}


def apply_defaults(schema: dict, value: Any) -> Any:
    """A defaulted deep copy of ``value``, the way the API server's structural defaulting does it."""
    value = copy.deepcopy(value)
    return _default(schema, value)


def _default(schema: dict, value: Any) -> Any:
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                if name in value and value[name] is None and not sub.get("nullable"):
                    del value[name]  # the server prunes nulls of non-nullable fields, then defaults
                if name not in value and "default" in sub:
                    value[name] = copy.deepcopy(sub["default"])
                if name in value:
                    value[name] = _default(sub, value[name])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in list(value):
                if not (isinstance(props, dict) and key in props):
                    value[key] = _default(extra, value[key])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_default(schema["items"], item) for item in value]
    return value


def to_jsonschema(schema: dict, embedded: bool = False) -> dict:
    """Draft-4 JSON Schema meaning what the Kubernetes schema means, with strict unknown fields.

    ``kubectl apply`` uses server-side strict field validation, so a field the schema does not
    declare is an error for the user even though the server would merely prune it.
    """
    out: dict[str, Any] = {key: schema[key] for key in _PLAIN if key in schema}
    if "pattern" in schema:
        out["pattern"] = schema["pattern"]  # RE2 syntax, run by openapi._pattern
    for key in ("anyOf", "allOf", "oneOf"):
        if key in schema:
            out[key] = [to_jsonschema(branch) for branch in schema[key]]
    if "not" in schema:
        out["not"] = to_jsonschema(schema["not"])
    if "items" in schema and isinstance(schema["items"], dict):
        out["items"] = to_jsonschema(schema["items"])
    _object_keywords(schema, out, embedded or schema.get("x-kubernetes-embedded-resource", False))
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if schema.get("nullable"):
        _allow_null(out)
    return out


def _object_keywords(schema: dict, out: dict, embedded: bool) -> None:
    props = {name: to_jsonschema(sub) for name, sub in (schema.get("properties") or {}).items()}
    if embedded:  # an embedded object must say what it is, as the API server requires
        for name, sub in _EMBEDDED.items():
            props.setdefault(name, sub)
        out["required"] = sorted({*out.get("required", ()), "apiVersion", "kind"})
    if props:
        out["properties"] = props
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        out["additionalProperties"] = to_jsonschema(extra)
    elif isinstance(extra, bool):
        out["additionalProperties"] = extra
    elif props and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False


def _allow_null(out: dict) -> None:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]


_LEADING_FLAGS = re.compile(r"^(\^?)\(\?([aiLmsux]+)\)")


def python_pattern(pattern: str) -> str:
    """Translate the RE2-isms Kubernetes CRDs use into Python ``re`` syntax.

    RE2 accepts ``^(?i)abc`` (flags after an anchor); Python insists global flags come first.
    """
    match = _LEADING_FLAGS.match(pattern)
    if match and match.group(1):
        return f"(?{match.group(2)})^{pattern[match.end():]}"
    return pattern
