"""Kubernetes label selectors, as used by a ClusterQueue's ``namespaceSelector``."""

from __future__ import annotations

from kueuelint.admission.model import as_dict, as_list

NAME_LABEL = "kubernetes.io/metadata.name"


def namespace_labels(namespace: str, namespaces: dict[str, dict]) -> dict:
    """Labels of a namespace; every namespace carries its own name label, even if not seen."""
    labels = dict(as_dict(namespaces.get(namespace)))
    labels.setdefault(NAME_LABEL, namespace)
    return labels


def selects_namespace(selector: dict | None, namespace: str, namespaces: dict[str, dict]) -> bool:
    # A nil selector selects nothing; an empty one selects everything.
    if selector is None:
        return False
    return matches(selector, namespace_labels(namespace, namespaces))


def matches(selector: dict, labels: dict) -> bool:
    for key, value in as_dict(selector.get("matchLabels")).items():
        if str(labels.get(key)) != str(value) or key not in labels:
            return False
    return all(_expression(expr, labels) for expr in as_list(selector.get("matchExpressions"))
               if isinstance(expr, dict))


def _expression(expr: dict, labels: dict) -> bool:
    key, operator = expr.get("key"), expr.get("operator")
    values = [str(v) for v in as_list(expr.get("values"))]
    if operator == "In":
        return key in labels and str(labels[key]) in values
    if operator == "NotIn":
        return key not in labels or str(labels[key]) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False
