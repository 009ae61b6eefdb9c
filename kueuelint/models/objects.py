"""Top-level object models: apiVersion/kind/metadata/spec/status around a kind's spec model."""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import Field, create_model

from kueuelint.models.common import KModel, ObjectMeta


def object_model(group: str, version: str, kind: str, spec: type | None = None, *,
                 spec_required: bool = False, **fields: Any) -> type[KModel]:
    """A model named ``<Kind>_<version>`` for the whole object.

    ``status`` is written by controllers, not users, so it is accepted as free-form here; the
    CRD path still validates it when a CRD is loaded.
    """
    definitions: dict[str, Any] = {
        "api_version": (Literal[f"{group}/{version}"], Field(alias="apiVersion")),
        "kind": (Literal[kind], ...),
        "metadata": (Optional[ObjectMeta], None),
        "status": (Optional[dict[str, Any]], None),
    }
    if spec is not None:
        definitions["spec"] = (spec, ...) if spec_required else (Optional[spec], None)
    definitions.update(fields)
    return create_model(f"{kind}_{version}", __base__=KModel, **definitions)
