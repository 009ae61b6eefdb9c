"""Expand the paths a user names (files, directories, globs, ``-``) into files to read."""

from __future__ import annotations

import fnmatch
import glob
import os
import stat
import sys
from typing import NamedTuple

from kueuelint.load.limits import Limits
from kueuelint.load.source import LoadedFile, LoadProblem, SourceFile, decode, parse_text

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
HELM_CHART, HELM_TEMPLATES = "Chart.yaml", "templates"
INTERNAL_ERROR = "internal-error"   # problem kind: reported as the run's internal error, not a finding
MISSING_PATH = "missing-path"       # problem kind: a path or pattern that matches no file


class Target(NamedTuple):
    path: str            # "-" for stdin
    explicit: bool       # named by the user: read whatever its suffix


def expand(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[Target], list[LoadProblem]]:
    """Files to read, in a stable order, plus problems for names that match nothing."""
    targets: list[Target] = []
    problems: list[LoadProblem] = []
    seen: set[str] = set()

    def add(path: str, explicit: bool) -> None:
        key = path if path == STDIN else os.path.normpath(path)
        if key not in seen and not is_excluded(key, exclude):
            seen.add(key)
            targets.append(Target(key, explicit))

    for raw in paths:
        if raw == STDIN:
            add(STDIN, True)
        elif os.path.isdir(raw):
            for path in _walk(raw):
                add(path, False)
        elif os.path.lexists(raw):
            add(raw, True)
        elif glob.has_magic(raw):
            matches = sorted(glob.glob(raw, recursive=True))
            if not matches:
                problems.append(LoadProblem(MISSING_PATH, f"pattern {raw!r} matches no file", raw))
            for match in matches:
                if os.path.isdir(match):
                    for path in _walk(match):
                        add(path, False)
                else:
                    add(match, True)
        else:
            problems.append(LoadProblem(MISSING_PATH, "no such file or directory", raw))
    return targets, problems


def _walk(root: str):
    """Manifest files under ``root``, sorted, skipping hidden directories and Helm chart
    templates; never follows links into directories (a symlink loop cannot make the walk
    endless)."""
    found = []
    for directory, subdirs, files in os.walk(root, followlinks=False):
        # A chart's templates are Go templates, not YAML, until `helm template` renders them.
        skipped = HELM_TEMPLATES if HELM_CHART in files else ""
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d != skipped)
        for name in files:
            if name.endswith(MANIFEST_SUFFIXES):
                found.append(os.path.join(directory, name))
    return sorted(found)


def is_excluded(path: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern)
               for pattern in patterns)


def read_target(target: Target, limits: Limits, *, is_context: bool = False,
                stdin_name: str = "<stdin>", jobs: int = 1) -> LoadedFile:
    """Read and parse one target; any failure becomes a problem on the returned file.
    ``jobs`` > 1: a large List file may be read by two processes (``split``)."""
    display = stdin_name if target.path == STDIN else target.path
    try:
        return _read_and_parse(target, limits, SourceFile(display, is_context=is_context), jobs)
    except Exception as exc:  # a bug of ours: this file is lost, the run and its findings are not
        from kueuelint.errors import internal_error_message

        message = internal_error_message(exc, f"reading {display}")
        return LoadedFile(SourceFile(display, is_context=is_context),
                          problems=[LoadProblem(INTERNAL_ERROR, message, display)])


def _read_and_parse(target: Target, limits: Limits, source: SourceFile, jobs: int = 1) -> LoadedFile:
    display = source.path
    raw, problem = _read_bytes(target.path, limits)
    if problem is None:
        text, problem = decode(raw, display, limits)
    if problem is not None:
        problem.path = display
        return LoadedFile(source, problems=[problem])
    source.text = text
    if jobs > 1 and hasattr(os, "fork"):
        from kueuelint.load.split import read_in_two

        halves = read_in_two(source, limits)
        if halves is not None:
            return halves
    return parse_text(source, limits)


def _read_bytes(path: str, limits: Limits) -> tuple[bytes | None, LoadProblem | None]:
    if path == STDIN:
        return sys.stdin.buffer.read(limits.max_file_bytes + 1), None
    try:
        info = os.stat(path)
    except OSError as exc:
        return None, LoadProblem("unreadable", f"cannot read file: {exc.strerror}", path)
    if stat.S_ISDIR(info.st_mode):
        return None, LoadProblem("unreadable", "is a directory, not a file", path)
    if not stat.S_ISREG(info.st_mode):
        # FIFOs, sockets and devices could block forever or never end.
        return None, LoadProblem("unreadable", "not a regular file (FIFO, socket or device); skipped", path)
    if info.st_size > limits.max_file_bytes:
        return None, LoadProblem("file-too-large", f"file is {info.st_size:,} bytes, over the limit of "
                                 f"{limits.max_file_bytes:,} (set max-file-bytes to raise it)", path)
    try:
        with open(path, "rb") as handle:
            return _read_bounded(handle, info.st_size, limits.max_file_bytes + 1), None
    except OSError as exc:
        return None, LoadProblem("unreadable", f"cannot read file: {exc.strerror}", path)


def _read_bounded(handle, expected: int, most: int) -> bytes:
    """At most ``most`` bytes. A read of ``most`` bytes at once would allocate the whole limit
    (32 MiB) for every small file, which cost more than reading it; so read the size stat gave,
    and only if the file grew since, the rest up to the limit."""
    data = handle.read(min(expected + 1, most))
    if len(data) > expected:
        data += handle.read(most - len(data))
    return data

