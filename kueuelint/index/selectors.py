"""Kubernetes label selectors: which objects (namespaces, pods) a selector picks.

Rules and the admission simulator both ask this, e.g. which namespaces a ClusterQueue's
``namespaceSelector`` admits from.
"""

from __future__ import annotations

NAME_LABEL = "kubernetes.io/metadata.name"


def namespace_labels(namespace: str, namespaces: dict[str, dict]) -> dict:
    """Labels of a namespace; every namespace carries its own name label, even if not seen."""
    labels = dict(_mapping(namespaces.get(namespace)))
    labels.setdefault(NAME_LABEL, namespace)
    return labels


def selects_namespace(selector: dict | None, namespace: str, namespaces: dict[str, dict]) -> bool:
    # A nil selector selects nothing; an empty one selects everything.
    if selector is None:
        return False
    return matches(selector, namespace_labels(namespace, namespaces))


def matches(selector: dict, labels: dict) -> bool:
    for key, value in _mapping(selector.get("matchLabels")).items():
        if str(labels.get(key)) != str(value) or key not in labels:
            return False
    expressions = selector.get("matchExpressions")
    return all(_expression(expr, labels) for expr in (expressions if isinstance(expressions, list) else ())
               if isinstance(expr, dict))


def _expression(expr: dict, labels: dict) -> bool:
    key, operator = expr.get("key"), expr.get("operator")
    if not isinstance(key, str):
        return False        # the API server refuses such a selector; it picks nothing here
    values = expr.get("values")
    values = [str(v) for v in values] if isinstance(values, list) else []
    if operator == "In":
        return key in labels and str(labels[key]) in values
    if operator == "NotIn":
        return key not in labels or str(labels[key]) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False


def _mapping(value) -> dict:
    # hand-written YAML can hold anything anywhere
    return value if isinstance(value, dict) else {}
