"""Validate an object with kueuelint's own Kueue models; pydantic errors become ``SchemaIssue``s
with the field path of the offending key or value and an API-server-like message."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

from kueuelint.schema.issues import (BUILTIN, SchemaIssue, dotted, unknown_field_message,
                                     unsupported_value_message)

_UNIONS = (typing.Union, types.UnionType)
_TYPE_NAMES = {"int_type": "integer", "int_from_float": "integer", "string_type": "string",
               "bool_type": "boolean", "float_type": "number", "dict_type": "object",
               "model_type": "object", "list_type": "array", "model_attributes_type": "object"}


def validate(group: str, version: str, kind: str, data: Any) -> list[SchemaIssue] | None:
    """Issues found by the built-in model, or None when there is no model for this kind."""
    from pydantic import ValidationError

    from kueuelint.models import model_for

    model = model_for(group, version, kind)
    if model is None:
        return None
    from kueuelint.schema.celrules import cel_value

    data = cel_value(data)  # judge the JSON kubectl would send, like the CRD path does
    try:
        model.model_validate(data)
    except ValidationError as exc:
        judge = f"built-in {group}/{version} model"
        return _dedupe(_issue(error, data, model, judge) for error in exc.errors())
    return []


def _dedupe(issues) -> list[SchemaIssue]:
    seen, out = set(), []
    for issue in issues:
        if (issue.path, issue.message) not in seen:
            seen.add((issue.path, issue.message))
            out.append(issue)
    return out


def _issue(error: dict, data: Any, model, judge: str) -> SchemaIssue:
    path, rest = _real_path(data, error["loc"])
    kind = error["type"]
    if kind == "missing" and rest:
        return SchemaIssue(BUILTIN, path, f"{dotted(path)}: required field {rest[-1]!r} is "
                           "missing", judge)
    if kind == "extra_forbidden":
        known = known_fields(model, path[:-1])
        return SchemaIssue(BUILTIN, path, f"{dotted(path)}: "
                           f"{unknown_field_message(str(path[-1]), known)}", judge)
    scalar = not isinstance(error.get("input"), (dict, list))
    return SchemaIssue(BUILTIN, path, f"{dotted(path)}: {_message(error)}", judge, at_value=scalar)


def _real_path(data: Any, loc: tuple) -> tuple[tuple, tuple]:
    """Keep the steps of pydantic's ``loc`` that exist in the data (drops union/validator tags);
    returns the existing path and the steps that could not be followed."""
    path, node = [], data
    for position, step in enumerate(loc):
        if isinstance(node, dict) and step in node:
            path.append(step)
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            path.append(step)
            node = node[step]
        elif isinstance(step, str) and _is_tag(step):
            continue
        else:
            return tuple(path), tuple(loc[position:])
    return tuple(path), ()


def _is_tag(step: str) -> bool:
    return step in ("str", "int", "float", "bool", "list", "dict") or "[" in step


def _message(error: dict) -> str:
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "literal_error":
        return unsupported_value_message(value, re.findall(r"'([^']*)'", ctx.get("expected", "")))
    if kind == "string_pattern_mismatch":
        from kueuelint.models.common import PATTERN_NAMES

        pattern = ctx.get("pattern", "")
        name = PATTERN_NAMES.get(pattern)
        return f"{value!r} is not a valid {name}" if name else \
            f"{value!r} does not match the pattern {pattern}"
    if kind in _TYPE_NAMES:
        return f"must be of type {_TYPE_NAMES[kind]}, not {_json_type(value)}"
    if kind in ("string_too_long", "too_long"):
        return f"must have at most {ctx.get('max_length')} " \
               f"{'characters' if kind.startswith('string') else 'entries'}"
    if kind in ("string_too_short", "too_short"):
        return f"must have at least {ctx.get('min_length')} " \
               f"{'characters' if kind.startswith('string') else 'entries'}"
    if kind == "value_error":
        return error["msg"].removeprefix("Value error, ")
    return error["msg"]


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


def known_fields(model, path: tuple) -> list[str]:
    """The field names (aliases) allowed at ``path`` under ``model``, for did-you-mean."""
    current: Any = model
    for step in path:
        current = _step_type(current, step)
        if current is None:
            return []
    current = _unwrap(current, None)
    fields = getattr(current, "model_fields", None) or {}
    return [info.alias or name for name, info in fields.items()]


def _step_type(current: Any, step) -> Any:
    current = _unwrap(current, step)
    fields = getattr(current, "model_fields", None)
    if isinstance(step, str) and fields:
        for name, info in fields.items():
            if (info.alias or name) == step:
                return info.annotation
        return None
    return current


def _unwrap(annotation: Any, step) -> Any:
    """Strip Optional/Annotated; step into list items (int step) or dict values (str step)."""
    for _ in range(8):
        origin = typing.get_origin(annotation)
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if origin is typing.Annotated or (origin in _UNIONS and len(args) == 1):
            annotation = args[0]
        elif origin is list and isinstance(step, int):
            return args[0] if args else None
        elif origin is dict and isinstance(step, str) and not hasattr(annotation, "model_fields"):
            return args[1] if len(args) == 2 else None
        else:
            return annotation
    return annotation
