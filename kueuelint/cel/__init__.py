"""CEL evaluation for kueuelint: one engine interface, the Kubernetes CEL library, a compile cache.

Importing this package imports no CEL engine; ``get_engine()`` does, on first use.
"""

from __future__ import annotations

from kueuelint.cel.engine import (
    CelCompileError,
    CelEvalError,
    Engine,
    Program,
    available_engines,
    get_engine,
)

__all__ = [
    "CelCompileError",
    "CelEvalError",
    "Engine",
    "Program",
    "available_engines",
    "get_engine",
]
