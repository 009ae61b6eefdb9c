"""The parsed contents of rule files, remembered on disk between runs.

Parsing the 117 built-in rule files with PyYAML takes longer than checking one manifest, and a
pre-commit hook starts a new process for every commit. Each file's parsed data is kept in one
marshal file, keyed by path, modification time and size (the check ruff and mypy use), and a
file is parsed again only when one of those changed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable

from kueuelint import __version__
from kueuelint.cachedir import PYTHON_TAG, default_directory, read_marshal, write_marshal

_FORMAT = 5   # bump when the cached layout changes


def rule_file_data(paths: list[Path], parse: Callable[[Path], object]) -> list[object]:
    """``parse(path)`` for every path, in order, reusing what an earlier run parsed."""
    cache_path = _cache_path(paths)
    cached = _read(cache_path)
    fresh: dict[str, list] = {}
    values = []
    for path in paths:
        key, stamp = str(path), _stamp(path)
        entry = cached.get(key)
        if stamp is None or entry is None or entry[0] != stamp:
            entry = [stamp, parse(path)]
        fresh[key] = entry
        values.append(entry[1])
    if fresh != cached:
        write_marshal(cache_path, {"format": _FORMAT, "version": __version__, "files": fresh})
    return values


def _stamp(path: Path) -> list[int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None   # parse() reports the unreadable file
    return [status.st_mtime_ns, status.st_size]


def _cache_path(paths: list[Path]) -> Path | None:
    directory = default_directory()
    if directory is None or not paths:
        return None
    # one file per set of rule directories, so a project with its own rules does not evict
    # the cache of the built-in ones
    folders = sorted({str(path.parent) for path in paths})
    digest = hashlib.sha256("\n".join(folders).encode()).hexdigest()[:16]
    return directory / f"rules-{_FORMAT}-{PYTHON_TAG}-{digest}.marshal"


def _read(cache_path: Path | None) -> dict[str, list]:
    stored = read_marshal(cache_path)
    if not isinstance(stored, dict) or stored.get("format") != _FORMAT \
            or stored.get("version") != __version__ or not isinstance(stored.get("files"), dict):
        return {}
    return stored["files"]
