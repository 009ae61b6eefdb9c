"""Cheap version lookups for the engine libraries.

importlib.metadata costs 60-100 ms to import, over a quarter of the start-up
budget, so read the version from the dist-info folder name next to the module.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable


def installed_version(module_file: str, distribution: str) -> str:
    """Version of ``distribution`` installed beside the package of ``module_file``."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(module_file)))
    prefix = distribution.replace("-", "_") + "-"
    try:
        names = os.listdir(site)
    except OSError:
        return "unknown"
    for name in names:
        if name.startswith(prefix) and name.endswith(".dist-info"):
            return name[len(prefix) : -len(".dist-info")]
    return "unknown"


def fingerprint(parts: Iterable[str], files: Iterable[str] = ()) -> str:
    """Hash of declaration text plus the size and mtime of the engine's files.

    The file stats catch a rebuilt engine that kept its version number.
    """
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() + b"\0")
    for path in files:
        try:
            stat = os.stat(path)
            digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}\0".encode())
        except OSError:
            digest.update(f"{path}:missing\0".encode())
    return digest.hexdigest()[:32]
