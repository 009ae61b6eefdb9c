"""ObjectMeta checks the API server applies to every custom resource, which a CRD's schema
leaves out (it declares ``metadata`` as a bare object): name syntax and known fields only."""

from __future__ import annotations

import re
from typing import Any, Iterator

from kueuelint.schema.issues import OPENAPI, SchemaIssue, unknown_field_message

_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
FIELDS = ("name", "generateName", "namespace", "labels", "annotations", "uid",
          "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
          "deletionGracePeriodSeconds", "ownerReferences", "finalizers", "managedFields",
          "selfLink")


def check(data: Any, judge: str) -> Iterator[SchemaIssue]:
    meta = data.get("metadata") if isinstance(data, dict) else None
    if not isinstance(meta, dict):
        return
    for key in meta:
        if key not in FIELDS:
            yield SchemaIssue(OPENAPI, ("metadata", key),
                              f"metadata.{key}: {unknown_field_message(str(key), FIELDS)}", judge)
    yield from _names(meta, judge)
    for key in ("labels", "annotations"):
        values = meta.get(key)
        for name, value in (values.items() if isinstance(values, dict) else ()):
            if not isinstance(value, str):
                yield SchemaIssue(OPENAPI, ("metadata", key, name), f"metadata.{key}.{name}: "
                                  "must be of type string", judge, at_value=True)


def _names(meta: dict, judge: str) -> Iterator[SchemaIssue]:
    for key, pattern, limit in (("name", _SUBDOMAIN, 253), ("namespace", _LABEL, 63)):
        value = meta.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > limit or not pattern.match(value):
            kind = "DNS-1123 subdomain" if key == "name" else "DNS-1123 label"
            yield SchemaIssue(OPENAPI, ("metadata", key), f"metadata.{key}: {value!r} is not a "
                              f"valid {kind}", judge, at_value=True)
