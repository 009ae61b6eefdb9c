"""Check what changing objects from OLD to NEW would break: immutable fields and transition rules.

The API server runs these checks (CEL rules that use oldSelf, immutability) only on update,
so plain `check` skips them. OLD and NEW are files or folders; objects are paired by
kind, namespace and name. Findings point into NEW. With --baseline REF, OLD is the same
paths as they are in git at REF (e.g. origin/main), so a CI job needs no second checkout.
"""

from __future__ import annotations

import argparse
import os
import time

from kueuelint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError
from kueuelint.cli.common import add_config_arguments, load_cli_config
from kueuelint.cli.output import open_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = "%(prog)s [options] OLD NEW\n       %(prog)s [options] --baseline REF [PATH ...]"
    parser.add_argument("paths", nargs="*", metavar="OLD NEW",
                        help="the objects as they are now and as you want them (files or folders)")
    parser.add_argument("--baseline", metavar="REF",
                        help="take OLD from git: PATHs (default .) as they are at REF, e.g. origin/main")
    parser.add_argument("--crd", action="append", default=[], metavar="PATH",
                        help="CustomResourceDefinitions whose transition rules judge the change")
    parser.add_argument("--format", action="append", choices=("text", "json", "sarif", "junit", "github"))
    parser.add_argument("--output", "-o", action="append", metavar="FILE")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from kueuelint import pipeline
    from kueuelint.cli.check import write_reports

    config = load_cli_config(args)
    outputs = open_outputs(args.format or ["text"], args.output or [])
    started = time.perf_counter()
    rules = pipeline.load_rules(config)
    old_files, new_paths = _old_side(args, config)
    old_objects = _objects(old_files, config)
    new_files = pipeline.load_inputs(new_paths, config).files
    result = _diff(old_objects, new_files, config, rules, [os.path.abspath(p) for p in args.crd])
    _add_load_problems(result, old_files + new_files, rules)
    result.seconds = time.perf_counter() - started
    args.no_source, args.statistics, args.quiet = False, False, False
    write_reports(result, outputs, args)
    if result.internal_error:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(str(f.severity) == "error" for f in result.findings) else EXIT_OK


def _old_side(args: argparse.Namespace, config) -> tuple[list, list[str]]:
    """The files of the old side, and the paths of the new one."""
    from kueuelint import pipeline

    if args.baseline is None:
        if len(args.paths) != 2:
            raise UsageError("diff needs OLD and NEW, or --baseline REF and the paths to compare")
        return pipeline.load_inputs([args.paths[0]], config).files, [args.paths[1]]
    from kueuelint.load.git_revision import GitError, files_at_revision

    paths = args.paths or ["."]
    try:
        return files_at_revision(args.baseline, paths, config.limits, config.exclude), paths
    except GitError as exc:
        raise UsageError(f"--baseline {args.baseline}: {exc}") from None


def _objects(files, config) -> list:
    from kueuelint.checks.runner import Checker

    return [obj for state in Checker({}, config).identify_files(files) for obj in state.objects]


def _add_load_problems(result, files, rules) -> None:
    """A file of OLD or NEW that cannot be read is a finding here too, as in ``check``."""
    from kueuelint.findings import Finding, Location

    by_kind = {kind: rule for rule in rules.values() for kind in rule.problem_kinds}
    for loaded in files:
        for problem in loaded.problems:
            rule = by_kind.get(problem.kind)
            if problem.kind == "internal-error":
                result.internal_error = result.internal_error or problem.message
            elif rule is not None:
                result.findings.append(Finding(
                    rule.meta.code, rule.meta.name, rule.meta.severity, problem.message,
                    Location(problem.path, problem.line, problem.column),
                    source_line=loaded.source.line_text(problem.line)))
    result.findings.sort(key=Finding.sort_key)


def _diff(old_objects, new_files, config, rules, crd_paths):
    from kueuelint.checks.runner import Checker
    from kueuelint.findings import Finding, RunResult, Severity, format_path
    from kueuelint.index.inventory import Inventory
    from kueuelint.schema.sources import crd_index
    from kueuelint.schema.transition import pair, transition_issues

    states = Checker(rules, config).identify_files(new_files)
    new_objects = [obj for state in states for obj in state.objects]
    index = crd_index(Inventory(old_objects + new_objects), crd_paths)
    engine = None if config.cel_engine == "auto" else config.cel_engine
    findings, failure = [], None
    for old, new in pair(old_objects, new_objects):
        try:
            issues = transition_issues(new.group, new.version, new.kind, old.data, new.data, index, engine)
        except Exception as exc:  # a bug of ours: say so, keep the other objects' findings
            from kueuelint.checks.runner import internal_error_message

            failure = failure or internal_error_message(exc, f"comparing {new.display()}")
            continue
        for issue in issues:
            rule = rules.get(issue.code)
            location = new.locate(issue.path, at_value=issue.at_value)
            message = f"{new.display()}: {issue.message}" + (f" [{issue.judge}]" if issue.judge else "")
            findings.append(Finding(issue.code, rule.meta.name if rule else "update-rejected",
                                    rule.meta.severity if rule else Severity.ERROR, message, location,
                                    new.ref(), format_path(issue.path),
                                    new.doc.source.line_text(location.line)))
    return RunResult(sorted(findings, key=Finding.sort_key), files=len(new_files), objects=len(new_objects),
                     rules={code: rule.meta for code, rule in rules.items()}, internal_error=failure)
