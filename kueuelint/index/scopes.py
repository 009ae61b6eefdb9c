"""Scopes: which files of a run form one cluster.

A monorepo holds several clusters, environments and unrelated samples; resolving every object
against every other one makes a Job of one folder meet a LocalQueue of another. A scope is
one cluster's files (``scopes:`` in the configuration: globs or folders per scope, each with
its own context, Kueue version and completeness). Every file, checked or context, belongs to
the first scope whose paths match it, or to the default scope; a scope's own ``context`` is
read for that scope alone. Without ``scopes:`` the whole run is one scope, as a repository of
one cluster needs.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Generic, Iterable, TypeVar

from kueuelint.config import Config, ScopeSpec, resolve_paths
from kueuelint.index.inventory import Inventory

DEFAULT_SCOPE = "default"
Item = TypeVar("Item")


@dataclass
class ScopeParts(Generic[Item]):
    """The files of one scope and what its rules are judged by."""

    name: str
    kueue_version: tuple[int, int]
    complete: bool
    checked: list = field(default_factory=list)    # files reported on
    context: list = field(default_factory=list)    # files read for cross-references only

    def inventory(self, objects_of: Callable[[Item], list]) -> Inventory:
        objects = [obj for item in self.checked + self.context for obj in objects_of(item)]
        return Inventory(objects, require_complete=self.complete)


def split(checked: Iterable[Item], context: Iterable[Item], path_of: Callable[[Item], str],
          config: Config) -> list[ScopeParts]:
    """The run's files by scope, in the order of ``scopes:``, the default scope last; scopes
    without a checked file are left out (nothing of theirs is reported)."""
    parts = {spec.name: _parts(spec.name, spec, config) for spec in config.scopes}
    parts[DEFAULT_SCOPE] = _parts(DEFAULT_SCOPE, None, config)
    for item in checked:
        parts[scope_of(path_of(item), config)].checked.append(item)
    for item in context:
        for name in scopes_of(path_of(item), config):
            parts[name].context.append(item)
    return [part for part in parts.values() if part.checked]


def scopes_of(path: str, config: Config) -> list[str]:
    """The scope a file belongs to, then every other scope whose own context names it."""
    home = scope_of(path, config)
    return [home] + [name for name, folders in _own_context(config).items()
                     if name != home and any(_under(_absolute(path), folder) for folder in folders)]


def scope_of(path: str, config: Config) -> str:
    """The name of the first scope whose paths match ``path`` (the default scope if none does;
    standard input has no path, so it is judged in the default scope)."""
    if not config.scopes or path == "-":
        return DEFAULT_SCOPE
    relative = _relative(path, config.root)
    for spec in config.scopes:
        if any(_matches(relative, pattern) for pattern in spec.paths):
            return spec.name
    return DEFAULT_SCOPE


def wanted_context(checked: Iterable[str], config: Config) -> Callable[[str], bool]:
    """Whether a context file can matter: it lies in the scope of a checked file, or in the own
    context of one. A hook that reads the whole repository as context then reads only the
    clusters its changed files belong to."""
    if not config.scopes:
        return lambda path: True
    scopes = {scope_of(path, config) for path in checked}
    own = [folder for name, folders in _own_context(config).items() if name in scopes for folder in folders]

    def wanted(path: str) -> bool:
        return scope_of(path, config) in scopes or any(_under(_absolute(path), folder) for folder in own)

    return wanted


def context_paths(config: Config) -> list[str]:
    """Every scope's own context, to be read with the run's context."""
    return [path for spec in config.scopes for path in resolve_paths(config, spec.context)]


def _parts(name: str, spec: ScopeSpec | None, config: Config) -> ScopeParts:
    version = spec.kueue_version if spec and spec.kueue_version else config.kueue_version
    complete = spec.require_complete if spec and spec.require_complete is not None \
        else config.require_complete
    return ScopeParts(name, version, complete)


def _own_context(config: Config) -> dict[str, list[str]]:
    """Scope name -> the absolute files, folders or globs of its own context."""
    return {spec.name: [_absolute(path) for path in resolve_paths(config, spec.context)]
            for spec in config.scopes if spec.context}


def _under(path: str, named: str) -> bool:
    return path == named or path.startswith(named.rstrip(os.sep) + os.sep) \
        or fnmatch.fnmatchcase(path, named)


def _matches(relative: str, pattern: str) -> bool:
    pattern = pattern.strip().replace(os.sep, "/").removeprefix("./")
    folder = pattern.rstrip("/")
    return fnmatch.fnmatchcase(relative, pattern) or relative.startswith(folder + "/") \
        or fnmatch.fnmatchcase(relative, folder + "/*")


def _relative(path: str, root: Path) -> str:
    absolute = Path(_absolute(path))
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        return absolute.as_posix()


def _absolute(path: str) -> str:
    return os.path.abspath(path)
