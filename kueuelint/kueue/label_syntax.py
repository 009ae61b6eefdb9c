"""The syntax Kubernetes (and so Kueue) demands of label keys, label values and label selectors."""

from __future__ import annotations

import re

_LABEL_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def label_key_problem(key: object) -> str | None:
    """Why ``key`` is not a valid label key (optional DNS prefix '/', name ≤63), or None."""
    if not isinstance(key, str) or not key:
        return "a label key must be a non-empty string"
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN_RE.match(prefix)):
        return f"{key!r} has an invalid prefix (must be a lowercase DNS subdomain before the '/')"
    if len(name) > 63 or not _LABEL_NAME_RE.match(name):
        return (f"{key!r} is not a valid name (at most 63 characters: letters, digits, '-', '_' "
                "and '.', starting and ending with a letter or digit)")
    return None


def label_value_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return f"{value!r} must be a string (quote it)"
    if len(value) > 63 or not _LABEL_VALUE_RE.match(value):
        return (f"{value!r} is not a valid label value (at most 63 characters: letters, digits, "
                "'-', '_' and '.', starting and ending with a letter or digit)")
    return None


def selector_problems(selector: object, path: tuple) -> list[tuple[tuple, str]]:
    """What metav1.LabelSelectorAsSelector would refuse in ``selector``, as (path, message)."""
    if not isinstance(selector, dict):
        return []
    found = []
    labels = selector.get("matchLabels")
    for key, value in (labels.items() if isinstance(labels, dict) else ()):
        problem = label_key_problem(key) or label_value_problem(value)
        if problem:
            found.append((path + ("matchLabels", key), problem))
    expressions = selector.get("matchExpressions")
    for index, expr in enumerate(expressions if isinstance(expressions, list) else []):
        if isinstance(expr, dict):
            problem = _expression_problem(expr)
            if problem:
                found.append((path + ("matchExpressions", index) + problem[0], problem[1]))
    return found


def _expression_problem(expr: dict) -> tuple[tuple, str] | None:
    key, operator, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
    problem = label_key_problem(key)
    if problem:
        return ("key",), problem
    if operator not in SELECTOR_OPERATORS:
        return ("operator",), (f"operator {operator!r} is not one of {', '.join(SELECTOR_OPERATORS)}"
                               " (they are case-sensitive)")
    if operator in ("In", "NotIn") and not values:
        return ("operator",), f"operator {operator} needs at least one value in 'values'"
    if operator in ("Exists", "DoesNotExist") and values:
        return ("values",), f"operator {operator} must not have 'values'"
    for position, value in enumerate(values if isinstance(values, list) else []):
        problem = label_value_problem(value)
        if problem:
            return ("values", position), problem
    return None
