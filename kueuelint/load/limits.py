"""Bounds that keep hostile input from exhausting memory or time; all configurable."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 32 * 1024 * 1024
    max_documents: int = 100_000
    max_nodes: int = 2_000_000      # per document, counting what aliases expand to
    max_depth: int = 200            # mapping/sequence nesting per document
