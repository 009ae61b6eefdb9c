"""The front door: paths and a configuration in, a typed ``Run`` out.

load -> identify -> index happen here, once, the same way for every command (``check``,
``admit``, ``diff``, the rule fixtures and the parallel workers), so each configuration key
(``exclude``, ``types``, ``default-namespace``, ``context``, the limits) means the same
everywhere.  What comes after (rules, schema, the admission simulator) only reads a Run.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kueuelint.config import Config, resolve_paths
from kueuelint.errors import internal_error_message
from kueuelint.identify.objects import identify, shape_detector
from kueuelint.load.discover import MISSING_PATH, Target, expand, read_target
from kueuelint.load.source import LoadedFile, LoadProblem, SourceFile

Entry = tuple[Target, bool, "str | None"]   # (file, is_context, forced file type)
OnRead = Callable[[Target, int, int], None]  # (file, its number, how many) before reading it


@dataclass
class FileObjects:
    """One loaded file and the Kubernetes (or compute-config) objects identified in it."""
    loaded: LoadedFile
    objects: list = field(default_factory=list)


@dataclass
class Scope:
    """Objects judged together against one inventory: one cluster's files (``scopes:`` in the
    configuration, ``kueuelint.index.scopes``), or the whole run when none are declared."""
    name: str
    files: list[FileObjects]        # its checked files, then its context files
    inventory: object
    complete: bool
    kueue_version: tuple[int, int]
    checked: list[FileObjects] = field(default_factory=list)   # the files reported on


class FirstError:
    """Keeps the first internal error of a run: later ones are usually its consequences."""

    def __init__(self, message: str | None = None) -> None:
        self.message = message

    def note(self, exc: BaseException, where: str) -> None:
        if self.message is None:
            self.message = internal_error_message(exc, where)


@dataclass
class Run:
    files: list[FileObjects]        # checked files in order, then paths that matched nothing
    context: list[FileObjects]      # read for cross-references only
    config: Config
    errors: FirstError = field(default_factory=FirstError)
    _inventory: object = None
    _scopes: list | None = None
    _indexed: list | None = None     # every object of the run, when a worker holds only a shard

    @property
    def internal_error(self) -> str | None:
        return self.errors.message

    @property
    def objects(self) -> list:
        return [obj for entry in self.files for obj in entry.objects]

    @property
    def context_objects(self) -> list:
        return [obj for entry in self.context for obj in entry.objects]

    @property
    def inventory(self):
        """Every object of the run, indexed; built on first use (``admit`` indexes its own way)."""
        if self._inventory is None:
            self._inventory = build_inventory(self.objects + self.context_objects, self.config,
                                              self.errors)
        return self._inventory

    def problem_lines(self) -> list[str]:
        """Every problem met reading the run, one line each, context (a snapshot) first; within
        a side, paths that match nothing before ``file:line:col: message``."""
        return _problem_lines(self.context) + _problem_lines(self.files)

    def index_all(self, objects: list) -> None:
        """Index ``objects`` instead: a parallel worker reads only its shard of the files but
        judges them against every object of the run."""
        self._indexed = objects
        self._inventory = build_inventory(objects, self.config, self.errors)

    @property
    def scopes(self) -> list[Scope]:
        if self._scopes is None:
            self._scopes = self._split_scopes()
        return self._scopes

    def _split_scopes(self) -> list[Scope]:
        config = self.config
        if not config.scopes:
            return [Scope("run", self.files + self.context, self.inventory, config.require_complete,
                          config.kueue_version, self.files)]
        from kueuelint.index.scopes import split, scopes_of

        objects = self._indexed if self._indexed is not None else self.objects + self.context_objects
        by_scope: dict[str, list] = {}
        for obj in objects:   # by the object's file: a worker's shard does not hold every file
            for name in scopes_of(obj.path, config):
                by_scope.setdefault(name, []).append(obj)
        return [Scope(part.name, part.checked + part.context,
                      build_inventory(by_scope.get(part.name, []), config, self.errors, part.complete),
                      part.complete, part.kueue_version, part.checked)
                for part in split(self.files, self.context, _path_of, config)]


def open_run(paths: list[str], config: Config, *, extra_context: tuple[str, ...] = (),
             stdin_name: str = "<stdin>", forced_type: str | None = None,
             read_jobs: int = 1, on_read: OnRead | None = None) -> Run:
    """Read, identify and (on first use) index ``paths`` plus the context they need."""
    entries, problem_files = plan(paths, config, extra_context=extra_context, forced_type=forced_type)
    files = read_entries(entries, config, stdin_name, read_jobs=read_jobs, on_read=on_read)
    return assemble(files + problem_files, config)


def plan(paths: list[str], config: Config, *, extra_context: tuple[str, ...] = (),
         forced_type: str | None = None) -> tuple[list[Entry], list[LoadedFile]]:
    """What to read, in the order every run uses: checked files first, then context files
    (those not checked anyway).  Paths that match nothing become problem-only files: checked
    ones are reported by ``check``; context ones are kept so that ``admit`` can refuse them."""
    targets, problems = expand(paths, config.exclude)
    forced_type = None if forced_type == "manifest" else forced_type
    entries: list[Entry] = [(t, False, forced_type or configured_type(t.path, config)) for t in targets]
    checked = {os.path.abspath(t.path) for t in targets}
    scope_paths, wanted = _scope_context(targets, config)
    context_paths = resolve_paths(config, config.context) + list(extra_context) + scope_paths
    context_targets, context_problems = expand(context_paths, config.exclude) if context_paths else ([], [])
    entries += [(t, True, configured_type(t.path, config)) for t in context_targets
                if os.path.abspath(t.path) not in checked and wanted(t.path)]
    problem_files = [_problem_file(problem, False) for problem in problems]
    return entries, problem_files + [_problem_file(problem, True) for problem in context_problems]


def _scope_context(targets: list[Target], config: Config) -> tuple[list[str], Callable[[str], bool]]:
    """The scopes' own context paths, and whether a context file can matter to the checked
    ones.  A run without scopes needs neither, nor the import (a pre-commit run's 0.8 ms)."""
    if not config.scopes:
        return [], lambda path: True
    from kueuelint.index.scopes import context_paths, wanted_context

    return context_paths(config), wanted_context([t.path for t in targets], config)


def read_entries(entries: list[Entry], config: Config, stdin_name: str = "<stdin>", *,
                 read_jobs: int = 1, on_read: OnRead | None = None) -> list[LoadedFile]:
    files = []
    for number, (target, is_context, file_type) in enumerate(entries, 1):
        if on_read:
            on_read(target, number, len(entries))
        files.append(read_entry(target, is_context, file_type, config, stdin_name, read_jobs))
    return files


def read_entry(target: Target, is_context: bool, file_type: str | None, config: Config,
               stdin_name: str = "<stdin>", read_jobs: int = 1) -> LoadedFile:
    loaded = read_target(target, config.limits, is_context=is_context, stdin_name=stdin_name,
                         jobs=read_jobs)
    loaded.source.file_type = file_type
    return loaded


def assemble(loaded: list[LoadedFile], config: Config, *, all_checked: bool = False) -> Run:
    """A Run of files already read; each goes to the checked or context side by its source,
    or all to the checked side (files read from git are marked context, yet ``diff`` compares them)."""
    errors = FirstError()
    checked = [f for f in loaded if all_checked or not f.source.is_context]
    context = [f for f in loaded if not all_checked and f.source.is_context]
    return Run(identify_files(checked, config, errors), identify_files(context, config, errors),
               config, errors)


def identify_files(files: list[LoadedFile], config: Config, errors: FirstError) -> list[FileObjects]:
    return [identify_file(loaded, config, errors) for loaded in files]


def identify_file(loaded: LoadedFile, config: Config, errors: FirstError) -> FileObjects:
    entry = FileObjects(loaded)
    detector = shape_detector()
    for doc in loaded.documents:
        try:
            obj = identify(doc, config.default_namespace, detector)
        except Exception as exc:  # a bug of ours: this document is lost, the run goes on
            errors.note(exc, f"reading {loaded.source.path}:{doc.line}")
            continue
        if obj is not None:
            entry.objects.append(obj)
    return entry


def build_inventory(objects: list, config: Config, errors: FirstError, complete: bool | None = None):
    from kueuelint.index.inventory import Inventory

    complete = config.require_complete if complete is None else complete
    try:
        return Inventory(objects, require_complete=complete)
    except Exception as exc:  # cross-object rules lose their targets; per-file ones still run
        errors.note(exc, "indexing the objects")
        return Inventory([], require_complete=complete)


def _path_of(entry: FileObjects) -> str:
    return entry.loaded.source.path


def configured_type(path: str, config: Config) -> str | None:
    for pattern, file_type in config.types.items():
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(Path(path).name, pattern):
            return None if file_type == "manifest" else file_type
    return None


def _problem_lines(files: list[FileObjects]) -> list[str]:
    problems = [problem for entry in files for problem in entry.loaded.problems]
    missing = [f"{p.path}: {p.message}" for p in problems if p.kind == MISSING_PATH]
    return missing + [f"{p.path}:{p.line}:{p.column}: {p.message}" for p in problems
                      if p.kind != MISSING_PATH]


def _problem_file(problem: LoadProblem, is_context: bool) -> LoadedFile:
    return LoadedFile(SourceFile(problem.path, is_context=is_context), problems=[problem])
