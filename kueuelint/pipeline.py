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


Entry = tuple[Target, bool, "str | None"]   # (file, is_context, forced file type)


@dataclass
class Inputs:
    files: list[LoadedFile]
    context: list[LoadedFile]


def plan(paths: list[str], config: Config, *, extra_context: tuple[str, ...] = (),
         forced_type: str | None = None) -> tuple[list[Entry], list[LoadedFile]]:
    """What to read, in the order every run uses: checked files first, then context files
    (those not checked anyway).  Paths that match nothing become problem-only files."""
    targets, problems = expand(paths, config.exclude)
    forced_type = None if forced_type == "manifest" else forced_type
    entries: list[Entry] = [(t, False, forced_type or _configured_type(t.path, config)) for t in targets]
    checked = {os.path.abspath(t.path) for t in targets}
    context_paths = resolve_paths(config, config.context) + list(extra_context)
    context_targets, _ = expand(context_paths, config.exclude) if context_paths else ([], [])
    entries += [(t, True, _configured_type(t.path, config)) for t in context_targets
                if os.path.abspath(t.path) not in checked]
    return entries, [_problem_file(problem) for problem in problems]


def load_inputs(paths: list[str], config: Config, *, extra_context: tuple[str, ...] = (),
                stdin_name: str = "<stdin>", forced_type: str | None = None) -> Inputs:
    entries, problem_files = plan(paths, config, extra_context=extra_context, forced_type=forced_type)
    return read_entries(entries, problem_files, config, stdin_name)


def read_entries(entries: list[Entry], problem_files: list[LoadedFile], config: Config,
                 stdin_name: str = "<stdin>") -> Inputs:
    files, context = [], []
    for target, is_context, file_type in entries:
        loaded = read_target(target, config.limits, is_context=is_context, stdin_name=stdin_name)
        loaded.source.file_type = file_type
        (context if is_context else files).append(loaded)
    return Inputs(files + problem_files, context)


def _configured_type(path: str, config: Config) -> str | None:
    for pattern, file_type in config.types.items():
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(Path(path).name, pattern):
            return None if file_type == "manifest" else file_type
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


def run_check(paths: list[str], config: Config, rules, *, jobs: int = 1, use_suppressions: bool = True,
              extra_context: tuple[str, ...] = (), stdin_name: str = "<stdin>",
              forced_type: str | None = None, progress=None) -> RunResult:
    """Check ``paths``; with ``jobs`` > 1 and enough files, in worker processes (same findings)."""
    from kueuelint.checks import parallel

    entries, problem_files = plan(paths, config, extra_context=extra_context, forced_type=forced_type)
    checked = sum(1 for _, is_context, _ in entries if not is_context)
    reads_stdin = any(target.path == "-" for target, _, _ in entries)
    if reads_stdin or not parallel.worth_parallel(jobs, checked):
        inputs = read_entries(entries, problem_files, config, stdin_name)
        return check(inputs, config, rules, use_suppressions=use_suppressions, progress=progress)
    result = parallel.run_parallel(entries, config, rules, jobs=jobs, use_suppressions=use_suppressions,
                                   stdin_name=stdin_name)
    if problem_files:
        extra = check(Inputs(problem_files, []), config, rules, use_suppressions=use_suppressions)
        result.findings = sorted(result.findings + extra.findings, key=lambda f: f.sort_key())
        result.files += extra.files
    return result
