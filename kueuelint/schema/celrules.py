"""Evaluate a CRD's ``x-kubernetes-validations`` rules the way the API server does.

``self`` is bound at the schema node that declares the rule, once per array element or map
value below it. A rule that evaluates to anything but ``true``, or fails to evaluate, rejects
the object. Transition rules (those naming ``oldSelf``) run only when an old object is given
and the old value at that place can be correlated (object fields, map values, list-type=map
items by key), exactly as on an update.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any, Iterator

from kueuelint.schema.issues import CEL_RULE, CEL_UNSUPPORTED, SchemaIssue, dotted

MISSING = object()
_OLD_SELF = re.compile(r"\boldSelf\b")
_REASONS = {"FieldValueInvalid": "Invalid value", "FieldValueForbidden": "Forbidden",
            "FieldValueRequired": "Required value", "FieldValueDuplicate": "Duplicate value"}


@dataclass(frozen=True)
class RuleSite:
    schema_path: tuple          # field names, "[]" for array items, "{}" for map values
    rule: str
    message: str | None = None
    message_expression: str | None = None
    field_path: str | None = None
    reason: str | None = None
    optional_old_self: bool = False

    @property
    def transition(self) -> bool:
        return bool(_OLD_SELF.search(self.rule))


def sites_of(schema: dict, path: tuple = ()) -> list[RuleSite]:
    """Every rule in ``schema`` with the (wildcarded) path of the node that declares it."""
    found = [_site(path, raw) for raw in schema.get("x-kubernetes-validations") or []]
    for name, sub in (schema.get("properties") or {}).items():
        found.extend(sites_of(sub, path + (name,)))
    if isinstance(schema.get("items"), dict):
        found.extend(sites_of(schema["items"], path + ("[]",)))
    if isinstance(schema.get("additionalProperties"), dict):
        found.extend(sites_of(schema["additionalProperties"], path + ("{}",)))
    return found


def _site(path: tuple, raw: dict) -> RuleSite:
    return RuleSite(path, raw["rule"], raw.get("message"), raw.get("messageExpression"),
                    raw.get("fieldPath"), raw.get("reason"), bool(raw.get("optionalOldSelf")))


def cel_value(value: Any) -> Any:
    """The JSON the API server would receive: string keys, YAML timestamps as RFC 3339 text.
    A fresh copy, so later defaulting never touches the caller's data."""
    if isinstance(value, dict):
        return {str(k): cel_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [cel_value(v) for v in value]
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text.replace("+00:00", "Z") if value.tzinfo else text + "Z"
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


class RuleRunner:
    """Walks one object against one schema, evaluating rules with a shared program cache."""

    def __init__(self, programs, judge: str, *, only_transition: bool = False) -> None:
        self.programs = programs    # kueuelint.schema.programs.Programs
        self.judge = judge
        self.only_transition = only_transition   # an update check after a plain check
        self.skipped_transition = 0
        self.evaluated = 0

    def run(self, schema: dict, value: Any, old: Any = MISSING) -> list[SchemaIssue]:
        return list(self._walk(schema, value, old, ()))

    def _walk(self, schema: dict, value: Any, old: Any, path: tuple) -> Iterator[SchemaIssue]:
        if value is None:
            return
        for raw in schema.get("x-kubernetes-validations") or []:
            yield from self._check(_site(path, raw), value, old, path)
        if isinstance(value, dict):
            yield from self._walk_object(schema, value, old, path)
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            olds = _correlate_list(schema, value, old)
            for position, item in enumerate(value):
                yield from self._walk(schema["items"], item, olds[position], path + (position,))

    def _walk_object(self, schema, value, old, path) -> Iterator[SchemaIssue]:
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key) if key in props else (extra if isinstance(extra, dict) else None)
            if sub is not None:
                child_old = old.get(key, MISSING) if isinstance(old, dict) else MISSING
                yield from self._walk(sub, item, child_old, path + (key,))

    def _check(self, site: RuleSite, value, old, path) -> Iterator[SchemaIssue]:
        if self.only_transition and not site.transition:
            return
        if site.transition and old is MISSING and not site.optional_old_self:
            self.skipped_transition += 1
            return
        self.evaluated += 1
        program, problem = self.programs.get(site.rule)
        if program is None:
            yield SchemaIssue(CEL_UNSUPPORTED, path, f"{dotted(path)}: the CEL rule "
                              f"{site.rule!r} cannot be evaluated offline ({problem}); "
                              "the object was not checked against it", self.judge)
            return
        bindings = {"self": value, "oldSelf": None if old is MISSING else old}
        outcome, error = self.programs.evaluate(program, bindings)
        if outcome is True:
            return
        if error is not None and engine_limitation(error):
            yield SchemaIssue(CEL_UNSUPPORTED, path, f"{dotted(path)}: the CEL rule "
                              f"{site.rule!r} cannot be evaluated offline ({error}); the object "
                              "was not checked against it", self.judge)
            return
        target = path + _field_path(site.field_path)
        detail = self._message(site, bindings) if error is None else \
            f"{site.message or 'rule'} (evaluation error: {error})"
        verb = _REASONS.get(site.reason or "", "Invalid value")
        yield SchemaIssue(CEL_RULE, target, f"{dotted(target)}: {verb}: {detail}", self.judge,
                          extra={"rule": site.rule})

    def _message(self, site: RuleSite, bindings: dict) -> str:
        if site.message_expression:
            program, _ = self.programs.get(site.message_expression)
            if program is not None:
                text, error = self.programs.evaluate(program, bindings)
                if error is None and isinstance(text, str) and text.strip():
                    return text
        return site.message or f"failed rule: {site.rule}"


_LIMITATIONS = re.compile(r"undeclared reference|unknown function|no (such|matching) overload|"
                          r"not supported|unsupported|^[A-Z][A-Za-z]*Error: ", re.IGNORECASE)


def engine_limitation(error: str) -> bool:
    """True when an evaluation error says the engine lacks something, not that the data is bad.

    The API server type-checks rules against the schema when the CRD is created, so on a served
    CRD these errors come from our engine (a missing function or overload, an internal Python
    exception), and reporting them as a rejection would blame the user's object.
    """
    return bool(_LIMITATIONS.search(error))


def _correlate_list(schema: dict, value: list, old: Any) -> list:
    """Old values for each item: only list-type=map items (matched by key) correlate."""
    if not isinstance(old, list) or schema.get("x-kubernetes-list-type") != "map":
        return [MISSING] * len(value)
    keys = schema.get("x-kubernetes-list-map-keys") or []
    by_key = {_map_key(item, keys): item for item in old if isinstance(item, dict)}
    return [by_key.get(_map_key(item, keys), MISSING) if isinstance(item, dict) else MISSING
            for item in value]


def _map_key(item: dict, keys: list) -> tuple:
    return tuple(repr(item.get(key)) for key in keys)


_FIELD_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\['([^']*)'\]")


def _field_path(text: str | None) -> tuple:
    """``.spec.foo['a.b']`` -> ('spec', 'foo', 'a.b'); unparseable paths point at ``self``."""
    if not text:
        return ()
    steps, position = [], 0
    for match in _FIELD_STEP.finditer(text):
        if match.start() != position:
            return ()
        steps.append(match.group(1) or match.group(2))
        position = match.end()
    return tuple(steps) if position == len(text) else ()
