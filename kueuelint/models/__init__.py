"""Typed models of Kueue's API (kueue.x-k8s.io v1beta1/v1beta2, config.kueue.x-k8s.io).

Written from the Kueue API reference. They reject what the API server rejects: unknown fields,
wrong types, enum values, required fields, patterns, limits, quantity syntax and the CRDs'
spec-level CEL rules. pydantic is imported only when a model is first used (``model_for``).
"""

from __future__ import annotations

from kueuelint.kueue.facts import ObjectMemo


def model_for(group: str, version: str, kind: str):
    """The model class for an object, or None when kueuelint has no built-in model for it."""
    from kueuelint.models.registry import model_for as build

    return build(group, version, kind)


def typed_view(obj):
    """``obj`` (an identified object) as its model, or None when there is no model or the object
    does not validate (the schema rules report why).  Kept on the object: validation is costly."""
    return TYPED_VIEW.of(obj)


def _validate(obj):
    model = model_for(obj.group, obj.version, obj.kind)
    try:
        return model.model_validate(obj.data) if model else None
    except Exception:  # pydantic.ValidationError
        return None


TYPED_VIEW = ObjectMemo("typed-view", _validate)
