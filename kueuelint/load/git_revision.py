"""Manifest files as they were at a git revision, for ``kueuelint diff --baseline REF``.

A CI gate compares a branch with its base (``origin/main``) without checking the base out:
the files are listed with ``git ls-tree`` and read with one ``git cat-file --batch`` process.
"""

from __future__ import annotations

import os
import subprocess

from kueuelint.load.discover import MANIFEST_SUFFIXES, is_excluded
from kueuelint.load.limits import Limits
from kueuelint.load.source import LoadedFile, LoadProblem, SourceFile, decode, parse_text


class GitError(Exception):
    """git is missing, this is not a repository, or the revision does not exist."""


def files_at_revision(revision: str, paths: list[str], limits: Limits,
                      exclude: tuple[str, ...] = ()) -> list[LoadedFile]:
    """The manifest files under ``paths`` (relative to the current directory) at ``revision``."""
    _git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}",
         failure=f"{revision!r} is not a commit in this repository")
    blobs = [(path, sha) for path, sha in _tree_blobs(revision, paths)
             if path.endswith(MANIFEST_SUFFIXES) and not _hidden(path) and not is_excluded(path, exclude)]
    contents = _read_blobs([sha for _, sha in blobs])
    return [_parse(f"{revision}:{path}", raw, limits) for (path, _), raw in zip(blobs, contents)]


def _tree_blobs(revision: str, paths: list[str]) -> list[tuple[str, str]]:
    # Without --full-name, paths are given and printed relative to the current directory,
    # like the paths of the new side.
    listing = _git("ls-tree", "-r", "-z", revision, "--", *(paths or ["."]),
                   failure=f"cannot list the files of {revision!r}")
    blobs = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        info, _, path = entry.partition(b"\t")
        _mode, kind, sha = info.split()
        if kind == b"blob":
            blobs.append((os.path.normpath(path.decode("utf-8", "surrogateescape")), sha.decode()))
    return sorted(blobs)


def _hidden(path: str) -> bool:
    # the same folders a directory walk skips
    return any(part.startswith(".") and part not in (".", "..")
               for part in path.split(os.sep)[:-1])


def _read_blobs(shas: list[str]) -> list[bytes]:
    if not shas:
        return []
    output = _git("cat-file", "--batch", stdin="".join(f"{sha}\n" for sha in shas).encode(),
                  failure="cannot read files from git")
    contents, position = [], 0
    for _ in shas:
        header_end = output.index(b"\n", position)
        size = int(output[position:header_end].split()[2])
        contents.append(output[header_end + 1:header_end + 1 + size])
        position = header_end + 1 + size + 1   # the content is followed by a line feed
    return contents


def _parse(display: str, raw: bytes, limits: Limits) -> LoadedFile:
    source = SourceFile(display, is_context=True)
    text, problem = decode(raw, display, limits)
    if problem is not None:
        return LoadedFile(source, problems=[problem])
    source.text = text
    return parse_text(source, limits)


def _git(*args: str, failure: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], input=stdin, capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"cannot run git: {exc}") from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(failure + (f" ({detail[-1]})" if detail else ""))
    return done.stdout
