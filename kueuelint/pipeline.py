"""The whole pipeline behind one call: paths in, a RunResult out.

load (with positions) -> identify -> index -> derive -> rules -> findings.  The CLI, the
fixture runner and the admission command all come through here so they read files the
same way.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from kueuelint.config import Config, resolve_paths
from kueuelint.findings import RunResult
from kueuelint.load.discover import Target, expand, read_target
from kueuelint.load.source import LoadedFile, LoadProblem, SourceFile


@dataclass
class Inputs:
    files: list[LoadedFile]
    context: list[LoadedFile]


def load_inputs(paths: list[str], config: Config, *, extra_context: tuple[str, ...] = (),
                stdin_name: str = "<stdin>", forced_type: str | None = None) -> Inputs:
    targets, problems = expand(paths, config.exclude)
    files = [_read(t, config, stdin_name, forced_type) for t in targets]
    if problems:
        files.extend(_problem_file(problem) for problem in problems)
    checked = {os.path.abspath(t.path) for t in targets}
    context_paths = resolve_paths(config, config.context) + list(extra_context)
    context_targets, _ = expand(context_paths, config.exclude) if context_paths else ([], [])
    context = [read_target(t, config.limits, is_context=True) for t in context_targets
               if os.path.abspath(t.path) not in checked]
    return Inputs(files, context)


def _read(target: Target, config: Config, stdin_name: str, forced_type: str | None) -> LoadedFile:
    loaded = read_target(target, config.limits, stdin_name=stdin_name)
    file_type = forced_type or _configured_type(target.path, config)
    if file_type not in (None, "manifest"):
        loaded.source.file_type = file_type
    return loaded


def _configured_type(path: str, config: Config) -> str | None:
    for pattern, file_type in config.types.items():
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(Path(path).name, pattern):
            return file_type
    return None


def _problem_file(problem: LoadProblem) -> LoadedFile:
    return LoadedFile(SourceFile(problem.path), problems=[problem])


def load_rules(config: Config):
    from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs

    dirs = [builtin_rules_dir()] + [Path(p) for p in resolve_paths(config, config.rule_dirs)]
    return load_rule_dirs(dirs)


def check(inputs: Inputs, config: Config, rules=None, *, use_suppressions: bool = True,
          progress: Callable[[int, int], None] | None = None) -> RunResult:
    from kueuelint.checks.runner import Checker

    rules = load_rules(config) if rules is None else rules
    checker = Checker(rules, config, use_suppressions=use_suppressions, progress=progress)
    return checker.run(inputs.files, inputs.context)
