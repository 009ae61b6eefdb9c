"""Building blocks shared by every Kueue model: strict base class, names, quantities, metadata."""

from __future__ import annotations

import re
from typing import Annotated, Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StringConstraints
from pydantic.alias_generators import to_camel

DNS_SUBDOMAIN_RE = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS_LABEL_RE = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
QUALIFIED_NAME_RE = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                     r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
KIND_RE = r"(?i)^[a-z]([-a-z0-9]*[a-z0-9])?$"
# Go's time.ParseDuration syntax ("90s", "1h30m", "0"), the only form metav1.Duration accepts.
DURATION_RE = r"^([-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+|0)$"
PATTERN_NAMES = {DNS_SUBDOMAIN_RE: "DNS-1123 subdomain (lowercase letters, digits, '-' and '.')",
                 DNS_LABEL_RE: "DNS-1123 label (lowercase letters, digits and '-')",
                 QUALIFIED_NAME_RE: "qualified name (optional DNS prefix and '/', then a name)",
                 KIND_RE: "kind name",
                 DURATION_RE: "duration (Go syntax, e.g. 30s, 5m, 1h30m)"}


class KModel(BaseModel):
    """Strict like the API server's decoder: no coercion, no unknown fields, camelCase keys."""

    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel,
                              populate_by_name=False, defer_build=True)


def _text(pattern: str | None = None, max_length: int | None = None, min_length: int = 0):
    return Annotated[str, StringConstraints(pattern=pattern, max_length=max_length,
                                            min_length=min_length)]


DnsSubdomain = _text(DNS_SUBDOMAIN_RE, 253)
DnsSubdomainRequired = _text(DNS_SUBDOMAIN_RE, 253, 1)
DnsLabel = _text(DNS_LABEL_RE, 63)
QualifiedName = _text(QUALIFIED_NAME_RE, 316, 1)
Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
_QUANTITY_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(\d+(\.\d*)?|\.\d+)))?$")


def _quantity(value: Any) -> Any:
    """int-or-string holding a Kubernetes quantity (the CRDs' pattern, same as the API server)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        kind = {bool: "boolean", float: "number", list: "array", dict: "object"}.get(
            type(value), type(value).__name__)
        raise ValueError(f"must be an integer or a quantity string, not {kind}")
    if not _is_quantity(value):
        raise ValueError(f"{value!r} is not a valid quantity (e.g. 500m, 2, 16Gi)")
    return value


def _is_quantity(text: str) -> bool:
    if not _QUANTITY_RE.match(text):
        return False  # the CRD pattern is the gate; the shared parser then checks range/limits
    try:
        from kueuelint.accounting.quantity import is_quantity
    except ImportError:
        return True
    return is_quantity(text)


Quantity = Annotated[Any, PlainValidator(_quantity)]


class OwnerReference(KModel):
    api_version: str
    kind: str
    name: str
    uid: str
    controller: Optional[bool] = None
    block_owner_deletion: Optional[bool] = None


class ObjectMeta(KModel):
    name: Optional[_text(DNS_SUBDOMAIN_RE, 253)] = None
    generate_name: Optional[str] = None
    namespace: Optional[DnsLabel] = None
    labels: Optional[dict[str, str]] = None
    annotations: Optional[dict[str, str]] = None
    uid: Optional[str] = None
    resource_version: Optional[str] = None
    generation: Optional[int] = None
    creation_timestamp: Optional[Any] = None
    deletion_timestamp: Optional[Any] = None
    deletion_grace_period_seconds: Optional[int] = None
    owner_references: Optional[list[OwnerReference]] = None
    finalizers: Optional[list[str]] = None
    managed_fields: Optional[list[dict[str, Any]]] = None
    self_link: Optional[str] = None


class LabelSelectorRequirement(KModel):
    key: str
    operator: str
    values: Optional[list[str]] = None


class LabelSelector(KModel):
    match_labels: Optional[dict[str, str]] = None
    match_expressions: Optional[list[LabelSelectorRequirement]] = None


TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TAINT_EFFECT_MESSAGE = "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"


class Taint(KModel):
    key: str
    effect: str
    value: Optional[str] = None
    time_added: Optional[Any] = None


class Toleration(KModel):
    key: Optional[str] = None
    operator: Optional[str] = None
    value: Optional[str] = None
    effect: Optional[str] = None
    toleration_seconds: Optional[Int64] = None


def toleration_problems(items: list[Toleration] | None) -> list[str]:
    """The five toleration rules Kueue's CRDs state as CEL, in the CRDs' words."""
    items = items or []
    checks = [
        (lambda t: t.key is not None or t.operator == "Exists",
         "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"),
        (lambda t: t.toleration_seconds is None or t.effect == "NoExecute",
         "effect must be 'NoExecute' when 'tolerationSeconds' is set"),
        (lambda t: t.operator is None or t.operator in ("Equal", "Exists"),
         "supported toleration values: 'Equal'(default), 'Exists'"),
        (lambda t: t.operator != "Exists" or t.value is None,
         "a value must be empty when 'operator' is 'Exists'"),
        (lambda t: t.effect is None or t.effect in TAINT_EFFECTS, TAINT_EFFECT_MESSAGE),
    ]
    return [message for test, message in checks if not all(test(t) for t in items)]


def unique_names(items, key: str = "name"):
    """list-type=map lists: the API server rejects two items with the same key."""
    seen: set = set()
    for item in items or []:
        value = getattr(item, key)
        if value in seen:
            raise ValueError(f"Duplicate value: {key} {value!r}")
        seen.add(value)
    return items

