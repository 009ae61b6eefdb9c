"""Update checks: what changing an object from one version to another breaks (immutable fields,
transition rules). The API server runs these only on update, so plain file checks skip them;
``kueuelint diff OLD NEW`` (or ``--baseline``) pairs the objects of two trees and asks here."""

from __future__ import annotations

from typing import Any, Iterable

from kueuelint.schema.issues import BUILTIN, SchemaIssue, dotted


def pair(old_objects: Iterable, new_objects: Iterable) -> list[tuple[Any, Any]]:
    """(old, new) KObjects that are the same object: same group/kind, namespace and name."""
    before = {(o.key, o.namespace, o.name): o for o in old_objects if o.name}
    return [(before[key], new) for new in new_objects
            if (key := (new.key, new.namespace, new.name)) in before]


def transition_issues(group: str, version: str, kind: str, old: Any, new: Any, index=None,
                      engine: str | None = None) -> list[SchemaIssue]:
    """Issues of the update old -> new: by the CRD when ``index`` has one, else built in."""
    crd_version = index.get(group, kind, version) if index is not None else None
    if crd_version is not None:
        from kueuelint.schema import crd

        return crd.transition_issues(crd_version, old, new, engine)
    if group != "kueue.x-k8s.io" or not isinstance(old, dict) or not isinstance(new, dict):
        return []
    from kueuelint.models.transitions import problems

    judge = f"built-in {group}/{version} model"
    return [SchemaIssue(BUILTIN, path, f"{dotted(path)}: {message}", judge)
            for path, message in problems(kind, version, old, new)]
