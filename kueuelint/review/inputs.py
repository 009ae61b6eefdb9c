"""The one input step of ``review`` and ``map``: paths and the configuration in, through the
front door (``kueuelint.run``), a Run and its problems out."""

from __future__ import annotations

from dataclasses import dataclass, field

# Loader notes that leave the data readable: the rules of ``check`` report them, the run goes on.
READABLE_PROBLEMS = ("duplicate-key", "yaml11-scalar", "unsafe-tag", "unknown-tag", "non-string-key")


@dataclass
class Objects:
    objects: list = field(default_factory=list)
    run: object = None                                  # the Run, for the rules of ``check``
    errors: list[str] = field(default_factory=list)     # ``file:line:col: message``


def read_objects(paths: list[str], config, jobs: int | None = None) -> Objects:
    """Every object of ``paths``, read as ``check`` and ``admit`` read them (exclude, types,
    limits, default-namespace); a large snapshot file is read by ``jobs`` processes."""
    if not paths:
        return Objects()
    from kueuelint.run import open_run

    return _objects(open_run(paths, config, read_jobs=jobs or 1))


def read_files(files: list, config) -> Objects:
    """The objects of files already read (from git, for ``--baseline``)."""
    from kueuelint.run import assemble

    return _objects(assemble(files, config, all_checked=True))


def _objects(run) -> Objects:
    from kueuelint.load.discover import MISSING_PATH

    problems = [p for entry in run.files + run.context for p in entry.loaded.problems
                if p.kind not in READABLE_PROBLEMS]
    errors = [f"{p.path}: {p.message}" if p.kind == MISSING_PATH else f"{p.path}:{p.line}:{p.column}: {p.message}"
              for p in problems]
    if run.internal_error:
        errors.append(run.internal_error)
    return Objects(run.objects + run.context_objects, run, errors)
