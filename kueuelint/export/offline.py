"""Evaluate an exported ValidatingAdmissionPolicy offline, the way the API server would.

Used to prove that a policy means what its rule means: the same CEL engine and Kubernetes CEL
library kueuelint runs, ``variables`` in order, every validation, and ``messageExpression``
with the API server's fall-back to ``message`` when it fails, is empty or spans lines.  The
object is seen as the API server decodes it: fields set to null are absent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kueuelint.export import kinds

VAP_VARIABLES = ("object", "oldObject", "params", "request", "namespaceObject", "variables", "authorizer")


class PolicyError(Exception):
    """An expression of the policy failed; the API server applies the failurePolicy."""


@dataclass
class Decision:
    matched: bool
    messages: list[str] = field(default_factory=list)   # one per failed validation

    @property
    def denied(self) -> bool:
        return bool(self.messages)


def matches(policy: dict, data: dict) -> bool:
    group, _, version = str(data.get("apiVersion", "")).rpartition("/")
    key = f"{group}/{data.get('kind')}" if group else str(data.get("kind"))
    resource = kinds.resource_of(key)
    if resource is None:
        return False
    return any(group in rule["apiGroups"] and version in rule["apiVersions"]
               and resource.plural in rule["resources"]
               for rule in policy["spec"]["matchConstraints"]["resourceRules"])


def evaluate(policy: dict, data: dict, params: dict | None = None, engine=None) -> Decision:
    """What the policy decides on creating ``data``; raises PolicyError when it cannot tell."""
    if not matches(policy, data):
        return Decision(False)
    engine = engine or _default_engine()
    values = _activation_values(data, params)
    spec = policy["spec"]
    for variable in spec.get("variables") or ():
        values["variables"] = {**values["variables"],
                               variable["name"]: _run(engine, variable["expression"], values)}
    messages = []
    for validation in spec["validations"]:
        if _run(engine, validation["expression"], values) is not True:
            messages.append(_message(engine, validation, values))
    return Decision(True, messages)


def _activation_values(data: dict, params: dict | None) -> dict[str, Any]:
    group, _, version = str(data.get("apiVersion", "")).rpartition("/")
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    request = {"kind": {"group": group, "version": version, "kind": data.get("kind")},
               "operation": "CREATE", "namespace": metadata.get("namespace", ""),
               "name": metadata.get("name", "")}
    values: dict[str, Any] = {name: None for name in VAP_VARIABLES}
    values.update(object=without_nulls(data), params=params, request=request, variables={})
    return values


def without_nulls(node: Any) -> Any:
    """The object as the API server decodes it: a field set to null is a field not set."""
    if isinstance(node, dict):
        return {key: without_nulls(value) for key, value in node.items() if value is not None}
    if isinstance(node, list):
        return [without_nulls(item) for item in node]
    return node


def _message(engine, validation: dict, values: dict) -> str:
    if validation.get("messageExpression"):
        try:
            text = _run(engine, validation["messageExpression"], values)
        except PolicyError:
            text = None
        if isinstance(text, str) and text.strip() and "\n" not in text:
            return text
    return validation.get("message") or f"failed expression: {validation['expression']}"


def _run(engine, source: str, values: dict) -> Any:
    from kueuelint.cel.cache import compile_cached
    from kueuelint.cel.engine import CelCompileError, CelEvalError

    try:
        program = compile_cached(source, VAP_VARIABLES, engine)
        return program.evaluate(engine.activation(values))
    except (CelCompileError, CelEvalError) as exc:
        raise PolicyError(f"{exc} in {source[:120]!r}") from None


def _default_engine():
    from kueuelint.cel.engine import get_engine

    return get_engine()
