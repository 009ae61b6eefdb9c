"""Compiled-program cache: in-process, plus serialized programs on disk.

The disk file (one per engine) is read with one read and written atomically
(temp file + os.replace), so parallel pre-commit processes never see a torn
file; the last writer wins and merges what it read. Anything unexpected in
the file (bad header, checksum, truncated entry, undeserializable blob) only
costs a recompile: the cache never raises.

Layout: MAGIC, 32-byte sha256 of the body, then the body: a header line
(engine name, version, fingerprint) and entries of
32-byte key + 4-byte big-endian length + serialized program.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import struct
from collections.abc import Sequence
from pathlib import Path

from kueuelint.cachedir import default_directory
from kueuelint.cel.engine import CelCompileError, Engine, Program, get_engine

MAGIC = b"KUEUELINT-CEL-CACHE-1\n"
_LENGTH = struct.Struct(">I")
_KEY_SIZE = 32
# Keep the file small enough to read in well under a millisecond; on overflow
# only the entries used by the current process survive.
MAX_ENTRIES = 4096


class ProgramCache:
    """Compiles each (source, variables) once per process, and once per machine on disk."""

    def __init__(self, engine: Engine, directory: Path | None) -> None:
        self.engine = engine
        self.path = directory / _file_name(engine) if directory else None
        self._programs: dict[tuple[str, tuple[str, ...]], Program | CelCompileError] = {}
        self._blobs: dict[bytes, bytes] | None = None  # disk entries, read lazily
        self._used: set[bytes] = set()
        self._dirty = False

    def get(self, source: str, variables: Sequence[str]) -> Program:
        """The compiled program; raises CelCompileError (remembered, not retried)."""
        names = tuple(sorted(set(variables)))
        found = self._programs.get((source, names))
        if found is None:
            found = self._load_or_compile(source, names)
            self._programs[(source, names)] = found
        if isinstance(found, CelCompileError):
            raise found
        return found

    def _load_or_compile(self, source: str, names: tuple[str, ...]) -> Program | CelCompileError:
        key = self._key(source, names)
        blob = self._disk().get(key)
        if blob is not None:
            program = self.engine.deserialize(source, names, blob)
            if program is not None:
                self._used.add(key)
                return program
        try:
            program = self.engine.compile(source, names)
        except CelCompileError as err:
            return err
        self._remember(key, program)
        return program

    def _remember(self, key: bytes, program: Program) -> None:
        blob = self.engine.serialize(program) if self.path else None
        if blob is not None:
            self._disk()[key] = blob
            self._used.add(key)
            self._dirty = True

    def _key(self, source: str, names: tuple[str, ...]) -> bytes:
        text = "\0".join([self.engine.name, self.engine.version, self.engine.fingerprint, *names, "", source])
        return hashlib.sha256(text.encode()).digest()

    def _header(self) -> bytes:
        return f"{self.engine.name} {self.engine.version} {self.engine.fingerprint}\n".encode()

    def _disk(self) -> dict[bytes, bytes]:
        if self._blobs is None:
            self._blobs = self._read() if self.path else {}
        return self._blobs

    def _read(self) -> dict[bytes, bytes]:
        try:
            return decode(self.path.read_bytes(), self._header())
        except Exception:  # unreadable or damaged in a way decode missed: start empty
            return {}

    def save(self) -> None:
        """Write new entries, merged with what other processes wrote meanwhile."""
        if not (self.path and self._dirty):
            return
        merged = {**self._read(), **self._disk()}
        if len(merged) > MAX_ENTRIES:
            merged = {k: v for k, v in merged.items() if k in self._used}
        try:
            _write_atomically(self.path, encode(merged, self._header()))
        except OSError:
            self.path = None  # unwritable: stop trying for this process
        self._dirty = False


def _file_name(engine: Engine) -> str:
    """One file per engine build and set of declarations: two kueuelint versions on one
    machine (pre-commit hooks pinned differently in two repositories) would otherwise each
    find the other's file stale and compile every program again on every run."""
    tag = hashlib.sha256(f"{engine.version} {engine.fingerprint}".encode()).hexdigest()[:16]
    return f"cel-{engine.name}-{tag}.bin"


def encode(entries: dict[bytes, bytes], header: bytes) -> bytes:
    parts = [header]
    for key, blob in entries.items():
        parts += [key, _LENGTH.pack(len(blob)), blob]
    body = b"".join(parts)
    return MAGIC + hashlib.sha256(body).digest() + body


def decode(data: bytes, header: bytes) -> dict[bytes, bytes]:
    """Entries of a cache file, or {} if it is foreign, stale or damaged."""
    start = len(MAGIC) + 32
    body = data[start:]
    if not data.startswith(MAGIC) or hashlib.sha256(body).digest() != data[len(MAGIC) : start]:
        return {}
    if not body.startswith(header):
        return {}  # another engine version or library: every entry is stale
    entries: dict[bytes, bytes] = {}
    offset, end = len(header), len(body)
    while offset < end:
        blob_start = offset + _KEY_SIZE + _LENGTH.size
        if blob_start > end:
            return {}
        (length,) = _LENGTH.unpack_from(body, offset + _KEY_SIZE)
        if blob_start + length > end:
            return {}
        entries[body[offset : offset + _KEY_SIZE]] = body[blob_start : blob_start + length]
        offset = blob_start + length
    return entries


def _write_atomically(path: Path, data: bytes) -> None:
    import tempfile  # ~15 ms; only runs that compiled something new get here

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


_default_caches: dict[str, ProgramCache] = {}


def default_cache(engine: Engine) -> ProgramCache:
    """The process-wide cache for ``engine``, saved to disk at interpreter exit."""
    cache = _default_caches.get(engine.name)
    if cache is None:
        cache = ProgramCache(engine, default_directory())
        _default_caches[engine.name] = cache
        atexit.register(cache.save)
    return cache


def compile_cached(source: str, variables: Sequence[str], engine: Engine | None = None) -> Program:
    """Compile through the default cache of ``engine`` (default: get_engine())."""
    return default_cache(engine or get_engine()).get(source, variables)
