"""Rule options: typed parameters a rule declares and a configuration sets.

A rule file declares its options with defaults (``options:``) and, for typed parameters, a
JSON Schema of the options object (``options-schema:``). Without a schema, each default's
type is its schema. The configuration sets them per code (``options: {KQ701: {...}}``); an
unknown code, an unknown option or a value of the wrong type is a configuration error naming
the key, found before any file is read.
"""

from __future__ import annotations

import difflib
from typing import Any

from kueuelint.checks.registry import RuleDef, RuleFileError

_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"))


class RuleOptionsError(RuleFileError):
    """Options in the configuration that no rule takes, or of the wrong type."""


def options_schema(rule: RuleDef) -> dict[str, Any]:
    """The JSON Schema the rule's options object must satisfy."""
    if rule.options_schema is not None:
        return rule.options_schema
    properties = {name: _schema_of_default(value) for name, value in rule.options.items()}
    return {"type": "object", "properties": properties}


def _schema_of_default(value: Any) -> dict[str, Any]:
    if value is None:
        return {}   # a null default says nothing about the type
    return {"type": next(name for kind, name in _JSON_TYPES if isinstance(value, kind))}


def effective_options(rule: RuleDef, configured: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The rule's defaults with the configured values on top."""
    return {**rule.options, **configured.get(rule.meta.code, {})}


def validate_rule_options(rules: dict[str, RuleDef], configured: dict[str, dict[str, Any]],
                          origin: str = "config") -> None:
    for code, values in configured.items():
        rule = rules.get(code)
        if rule is None:
            raise RuleOptionsError(f"{origin}: options for {code}, which is not a rule"
                                   f"{_suggestion(code, rules)}")
        schema = options_schema(rule)
        for key in values:
            if key not in schema["properties"]:
                raise RuleOptionsError(_unknown_option(origin, code, key, schema))
        problem = schema_problem(schema, values)
        if problem is not None:
            where, message = problem
            raise RuleOptionsError(f"{origin}: option {'.'.join(['options', code, *where])}: {message}")


def schema_problem(schema: dict[str, Any], values: dict[str, Any]) -> tuple[list[str], str] | None:
    """The first place where ``values`` break ``schema`` (its key path and the reason), or None."""
    import jsonschema  # ~60 ms: only runs when options are configured

    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [], f"the rule's options-schema is not a valid JSON Schema: {exc.message}"
    error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(values))
    if error is None:
        return None
    return [str(part) for part in error.absolute_path], error.message


def _unknown_option(origin: str, code: str, key: str, schema: dict[str, Any]) -> str:
    known = sorted(schema["properties"])
    if not known:
        return f"{origin}: option options.{code}.{key}: {code} takes no options"
    hint = difflib.get_close_matches(key, known, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else f" (it takes {', '.join(known)})"
    return f"{origin}: option options.{code}.{key}: unknown option of {code}{suggestion}"


def _suggestion(code: str, rules: dict[str, RuleDef]) -> str:
    hint = difflib.get_close_matches(code, list(rules), n=1)
    return f"; did you mean {hint[0]}?" if hint else ""
