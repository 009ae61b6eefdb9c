"""Does a pod set's scheduling constraints allow a ResourceFlavor? (kueue-scheduler.md §2.2)

The flavor stands in for a node: its ``nodeLabels`` are the node labels and its ``nodeTaints``
the node taints. Only the label keys the flavor itself defines take part in matching, so an
unlabeled flavor matches every selector (v0.19 behaviour, fix #12449).

Both the simulator and the lint rules ask this, each with its own records: a flavor is anything
with ``node_labels``, ``taints`` and ``tolerations``, a pod set anything with ``node_selector``,
``affinity_terms`` and ``tolerations``.
"""

from __future__ import annotations

from typing import Protocol


class FlavorNodes(Protocol):
    node_labels: dict
    taints: list
    tolerations: list


class PodPlacement(Protocol):
    node_selector: dict
    affinity_terms: list | None
    tolerations: list


def as_list(value) -> list:
    return value if isinstance(value, list) else []

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def untolerated_taint(flavor: FlavorNodes, pod_set: PodPlacement) -> dict | None:
    """The first blocking taint nobody tolerates; the flavor's own tolerations count too."""
    tolerations = list(pod_set.tolerations) + list(flavor.tolerations)
    for taint in flavor.taints:
        if not isinstance(taint, dict) or taint.get("effect") not in BLOCKING_EFFECTS:
            continue
        if not any(tolerates(tol, taint) for tol in tolerations if isinstance(tol, dict)):
            return taint
    return None


def tolerates(toleration: dict, taint: dict) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if not key:
        return operator == "Exists"
    if key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return str(toleration.get("value") or "") == str(taint.get("value") or "")


def taint_text(taint: dict) -> str:
    """Go's ``%v`` rendering of a corev1.Taint, as Kueue prints it."""
    return "{%s %s %s <nil>}" % (taint.get("key", ""), taint.get("value", "") or "", taint.get("effect", ""))


def matches_node_labels(flavor: FlavorNodes, pod_set: PodPlacement) -> bool:
    labels = {str(k): str(v) for k, v in flavor.node_labels.items()}
    for key, value in pod_set.node_selector.items():
        if key in labels and labels[key] != str(value):
            return False
    terms = _relevant_terms(pod_set.affinity_terms, labels)
    if terms is None:
        return True
    return any(all(expression_matches(expr, labels) for expr in term) for term in terms)


def _relevant_terms(terms: list | None, labels: dict) -> list[list[dict]] | None:
    """The terms restricted to the flavor's keys; None when the affinity is to be ignored."""
    if not terms:
        return None
    kept = []
    for term in terms:
        exprs = term.get("matchExpressions") if isinstance(term, dict) else None
        filtered = [e for e in as_list(exprs) if isinstance(e, dict) and _key(e) in labels]
        if not filtered:
            return None        # an empty term matches everything, and terms are ORed
        kept.append(filtered)
    return kept


def _key(expr: dict) -> str | None:
    """The label key of an expression; None for a key of the wrong type (the API server
    refuses such a pod), which no flavor defines."""
    key = expr.get("key")
    return key if isinstance(key, str) else None


def expression_matches(expr: dict, labels: dict) -> bool:
    operator = expr.get("operator")
    value = labels.get(_key(expr))
    values = [str(v) for v in as_list(expr.get("values"))]
    if operator == "In":
        return value in values
    if operator == "NotIn":
        return value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt") and value is not None and values:
        try:
            left, right = int(value), int(values[0])
        except ValueError:
            return False
        return left > right if operator == "Gt" else left < right
    return False
