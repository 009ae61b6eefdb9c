"""The registry of kinds kueuelint understands, keyed by ``group/Kind`` (core kinds: ``Kind``).

The table itself is part of Kueue's semantics (``kueuelint.kueue.kinds``); identify reads it here.
"""

from __future__ import annotations

from kueuelint.kueue.kinds import (  # noqa: F401 - the names identify's users import
    COMPUTE_CONFIG_KINDS,
    KINDS,
    KUEUE_CONFIG_GROUP,
    KUEUE_GROUP,
    KindInfo,
    kind_key,
    lookup,
)
