"""What a schema judge reports, and the did-you-mean helper both judges share."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable

# Rule codes (see rules/schema/): which judge found the problem.
BUILTIN = "KQ110"       # built-in model
OPENAPI = "KQ111"       # CRD openAPIV3Schema
CEL_RULE = "KQ112"      # CRD x-kubernetes-validations rule rejected the object
CEL_UNSUPPORTED = "KQ113"  # CRD rule our CEL engine cannot run: never a silent pass

# Renames between API versions that a plain string distance may not find (or may rank low).
RENAMES: dict[str, str] = {
    "cohort": "cohortName",
    "parent": "parentName",
    "priorityClassName": "priorityClassRef",
    "priorityClassSource": "priorityClassRef",
    "admissionChecks": "admissionChecksStrategy",
    "kubeConfig": "clusterSource",
    "clusterProfileRef": "clusterSource",
}


# Fields Kueue removed between versions: a plain "unknown field" would leave the user guessing.
REMOVED: dict[str, str] = {
    "enable": "removed in v1beta2 (the block's presence enables the feature)",
    "podOptions": "removed in v1beta2 (use managedJobsNamespaceSelector)",
    "queueVisibility": "removed in v1beta2 (use the visibility API)",
    "retryDelayMinutes": "removed in v1beta2",
}


@dataclass(frozen=True)
class SchemaIssue:
    code: str                  # KQ110..KQ113
    path: tuple                # field path inside the object the user must change
    message: str
    judge: str = ""            # e.g. "CRD clusterqueues.kueue.x-k8s.io v1beta2" or "built-in v1beta2"
    at_value: bool = False     # point at the value rather than the key
    extra: dict = field(default_factory=dict, compare=False, hash=False)


def did_you_mean(unknown: str, known: Iterable[str]) -> str | None:
    """The known field the user most likely meant, or None."""
    known = [str(name) for name in known]
    unknown = str(unknown)
    renamed = RENAMES.get(unknown)
    if renamed in known:
        return renamed
    lowered = {name.lower(): name for name in known}
    if unknown.lower() in lowered:
        return lowered[unknown.lower()]
    close = difflib.get_close_matches(unknown, known, n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_field_message(name: str, known: Iterable[str]) -> str:
    name = str(name)
    hint = did_you_mean(name, known)
    if hint:
        return f"unknown field {name!r}; did you mean {hint!r}?"
    if name in REMOVED:
        return f"unknown field {name!r}: {REMOVED[name]}"
    return f"unknown field {name!r}"


def unsupported_value_message(value, allowed: Iterable) -> str:
    allowed = [a for a in allowed if a is not None]
    text = ", ".join(repr(a) for a in allowed)
    close = difflib.get_close_matches(str(value), [str(a) for a in allowed], n=1, cutoff=0.6) \
        if isinstance(value, str) else []
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unsupported value {value!r}{hint} (supported: {text})"


def dotted(path: Iterable) -> str:
    """('spec', 'flavors', 0, 'name') -> spec.flavors[0].name (matches the API server's style)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "<root>"
