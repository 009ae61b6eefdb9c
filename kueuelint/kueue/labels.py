"""Where Kueue reads a job's labels and annotations (its KindSpec's label homes): the object's
own metadata, a CronJob's job template, an InferenceService's components as well.

Objects are read through ``key`` and ``get(*path)`` only, so any layer's object will do.
"""

from __future__ import annotations

import re

from kueuelint.kueue.kinds import METADATA_LABELS, SPECS

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def metadata_path(obj) -> tuple:
    """The metadata Kueue reads for ``obj``: a CronJob's Jobs get only the job template's."""
    return label_homes(obj)[0][:-1]


def label_homes(obj) -> tuple[tuple, ...]:
    """Label maps Kueue (or the operator that copies them to the job) reads a queue from."""
    spec = SPECS.get(obj.key)
    return spec.label_homes if spec is not None else _METADATA_ONLY


_METADATA_ONLY = (METADATA_LABELS,)   # asked for every label of every object: not rebuilt each time


def home_label(obj, key: str) -> tuple[object, tuple | None]:
    """(value, path) of label ``key`` where Kueue reads it; (None, None) when unset."""
    for path in label_homes(obj):
        labels = obj.get(*path)
        if isinstance(labels, dict) and key in labels:
            return labels[key], path + (key,)
    return None, None


def home_text(obj, key: str, field: str = "labels") -> tuple[str | None, tuple | None]:
    """A string label or annotation on the metadata Kueue reads (non-strings are KQ202's)."""
    path = metadata_path(obj) + (field,)
    values = obj.get(*path)
    value = values.get(key) if isinstance(values, dict) else None
    return (value, path + (key,)) if isinstance(value, str) else (None, None)


def dotted(path: tuple) -> str:
    """('spec', 'template', 0) -> spec.template[0], as messages name a field."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")
