"""Bounds that keep hostile input from exhausting memory or time; all configurable."""

from __future__ import annotations

from typing import NamedTuple


# A NamedTuple: a frozen dataclass compiles its methods when every run defines it (4 million
# instructions of a one-file run).
class Limits(NamedTuple):
    max_file_bytes: int = 32 * 1024 * 1024
    max_documents: int = 100_000
    max_nodes: int = 2_000_000      # per document, counting what aliases expand to
    max_depth: int = 200            # mapping/sequence nesting per document
    # Per file, estimated before parsing from the characters that separate YAML nodes: libyaml
    # builds a whole document in C before anything can count it, so a 32 MiB file of "1,1,1,..."
    # (16 million nodes) would take minutes and gigabytes.  Real manifests have about one
    # separator per 12 bytes, 2.8 million for a file at the 32 MiB size limit.
    max_file_nodes: int = 4_000_000
