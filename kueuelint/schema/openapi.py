"""Run a CRD's ``openAPIV3Schema`` with ``jsonschema`` and turn its errors into ``SchemaIssue``s.

``jsonschema`` is imported only when a CRD check actually runs.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Iterator

from kueuelint.schema.issues import (CEL_UNSUPPORTED, OPENAPI, SchemaIssue, dotted,
                                     unknown_field_message, unsupported_value_message)

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
# The patterns Kubernetes CRDs repeat, named so messages say what is expected.
PATTERN_NAMES = {
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$":
        "DNS-1123 subdomain (lowercase letters, digits, '-' and '.')",
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$": "DNS-1123 label (lowercase letters, digits and '-')",
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$": "quantity (e.g. 500m, 2, 16Gi)",
}
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _list_type(validator, list_type, instance, schema) -> Iterator:
    """``x-kubernetes-list-type: set|map`` forbid duplicates (by value, or by the map keys)."""
    if not isinstance(instance, list) or list_type not in ("set", "map"):
        return
    keys = schema.get("x-kubernetes-list-map-keys") or []
    seen: set[str] = set()
    for position, item in enumerate(instance):
        if list_type == "map" and isinstance(item, dict):
            identity = {key: item.get(key) for key in keys}
        else:
            identity = item
        text = json.dumps(_plain(identity), sort_keys=True, default=str)
        if text in seen:
            from jsonschema import ValidationError

            yield ValidationError(f"Duplicate value: {text}", path=[position],
                                  validator="x-kubernetes-list-type")
        seen.add(text)


def _plain(value):
    """JSON-safe identity for duplicate detection (YAML allows non-string keys)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


UNSUPPORTED_PATTERN = "x-kueuelint-unsupported-pattern"


def _pattern(validator, pattern, instance, schema) -> Iterator:
    """Kubernetes patterns are RE2 (Go); use RE2 itself when installed, else Python ``re``
    after translating the RE2-only spellings. A pattern neither can compile is reported as
    unsupported instead of crashing or silently passing."""
    from jsonschema import ValidationError

    if not isinstance(instance, str):
        return
    search = _matcher(pattern)
    if search is None:
        yield ValidationError(f"the pattern {pattern!r} cannot be checked offline",
                              validator=UNSUPPORTED_PATTERN)
    elif not search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.lru_cache(maxsize=512)
def _matcher(pattern: str):
    try:
        import re2
    except ImportError:
        re2 = None
    if re2 is not None:
        try:
            return re2.compile(pattern).search
        except Exception:  # re2 raises its own error types; fall back to Python re
            pass
    from kueuelint.schema.structural import python_pattern

    try:
        return re.compile(python_pattern(pattern.replace("\\z", "\\Z"))).search
    except re.error:
        return None


def _format(validator, fmt, instance, schema) -> Iterator:
    from jsonschema import ValidationError

    if fmt in _INT_RANGES and isinstance(instance, int) and not isinstance(instance, bool):
        low, high = _INT_RANGES[fmt]
        if not low <= instance <= high:
            yield ValidationError(f"{instance} is out of range for {fmt}")
    elif fmt == "date-time" and isinstance(instance, str) and not _DATE_TIME.match(instance):
        yield ValidationError(f"{instance!r} is not an RFC 3339 date-time")


@functools.cache
def _validator_class():
    from jsonschema import Draft4Validator, validators

    return validators.extend(Draft4Validator, {"x-kubernetes-list-type": _list_type,
                                               "format": _format, "pattern": _pattern})


def build_validator(jsonschema: dict):
    return _validator_class()(jsonschema)


def check(validator, value: Any, judge: str) -> list[SchemaIssue]:
    issues: list[SchemaIssue] = []
    for error in validator.iter_errors(value):
        issues.extend(_issues_of(error, judge))
    return issues


def _issues_of(error, judge: str) -> Iterator[SchemaIssue]:
    path = tuple(error.absolute_path)
    kind = error.validator
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        known = list((error.schema.get("properties") or {}).keys())
        for name in error.instance:
            if name not in known:
                yield SchemaIssue(OPENAPI, path + (name,),
                                  f"{dotted(path + (name,))}: {unknown_field_message(name, known)}",
                                  judge)
        return
    if kind == UNSUPPORTED_PATTERN:
        yield SchemaIssue(CEL_UNSUPPORTED, path, f"{dotted(path)}: {error.message}; the value "
                          "was not checked against it", judge)
        return
    yield SchemaIssue(OPENAPI, path, f"{dotted(path)}: {_message(error)}", judge,
                      at_value=not isinstance(error.instance, (dict, list)))


def _message(error) -> str:
    kind, inst = error.validator, error.instance
    if kind == "required":
        missing = re.match(r"^'(.*)' is a required property$", error.message)
        return f"required field {missing.group(1)!r} is missing" if missing else error.message
    if kind == "enum":
        return unsupported_value_message(inst, error.validator_value)
    if kind == "type":
        return f"must be of type {_types(error.validator_value)}, not {_type_name(inst)}"
    if kind == "anyOf" and _int_or_string(error.validator_value):
        return f"must be an integer or a string, not {_type_name(inst)}"
    if kind == "pattern":
        name = PATTERN_NAMES.get(error.validator_value)
        return f"{inst!r} is not a valid {name}" if name else \
            f"{inst!r} does not match the pattern {error.validator_value}"
    if kind in ("maxLength", "minLength", "maxItems", "minItems", "maxProperties",
                "minProperties"):
        size = len(inst) if hasattr(inst, "__len__") else inst
        return f"has {size} {'characters' if 'Length' in kind else 'entries'}, " \
               f"{kind[:3]} is {error.validator_value}"
    return error.message


def _types(value) -> str:
    return " or ".join(value) if isinstance(value, list) else str(value)


def _int_or_string(branches) -> bool:
    return {b.get("type") for b in branches if isinstance(b, dict)} >= {"integer", "string"}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object"}.get(type(value), type(value).__name__)
