"""The one input step of ``review`` and ``map``: paths and the configuration in, objects out."""

from __future__ import annotations

from dataclasses import dataclass, field


# Loader notes that leave the data readable: the rules of ``check`` report them, the run goes on.
READABLE_PROBLEMS = ("duplicate-key", "yaml11-scalar", "unsafe-tag", "unknown-tag", "non-string-key")


@dataclass
class Objects:
    objects: list = field(default_factory=list)
    files: list = field(default_factory=list)       # LoadedFile, for the rules of ``check``
    errors: list[str] = field(default_factory=list)  # ``file:line:col: message``


def read_objects(paths: list[str], config, jobs: int | None = None) -> Objects:
    """Every object of ``paths``, read as ``check`` reads them (exclude, types, limits,
    default-namespace); a large snapshot file is read by ``jobs`` processes."""
    if not paths:
        return Objects()
    from kueuelint import pipeline

    return read_files(pipeline.load_inputs(paths, config).files, config)


def read_files(files: list, config) -> Objects:
    from kueuelint.checks.runner import Checker

    found = Objects(files=files)
    for loaded in files:
        found.errors += [f"{p.path}:{p.line}:{p.column}: {p.message}" for p in loaded.problems
                         if p.kind not in READABLE_PROBLEMS]
    found.objects = [obj for state in Checker({}, config).identify_files(files) for obj in state.objects]
    return found
