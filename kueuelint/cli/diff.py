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
from kueuelint.cli.common import add_config_arguments, check_config_against_rules, load_cli_config
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
    from kueuelint.checks.updates import check_update
    from kueuelint.cli.check import write_reports
    from kueuelint.run import open_run

    config = load_cli_config(args)
    outputs = open_outputs(args.format or ["text"], args.output or [])
    started = time.perf_counter()
    rules = pipeline.load_rules(config)
    check_config_against_rules(config, rules)
    old, new_paths = _old_side(args, config)
    result = check_update(old, open_run(new_paths, config), config, rules,
                          [os.path.abspath(p) for p in args.crd])
    result.seconds = time.perf_counter() - started
    args.no_source, args.statistics, args.quiet = False, False, False
    write_reports(result, outputs, args)
    if result.internal_error:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(str(f.severity) == "error" for f in result.findings) else EXIT_OK


def _old_side(args: argparse.Namespace, config):
    """The Run of the old side, and the paths of the new one."""
    from kueuelint.run import assemble, open_run

    if args.baseline is None:
        if len(args.paths) != 2:
            raise UsageError("diff needs OLD and NEW, or --baseline REF and the paths to compare")
        return open_run([args.paths[0]], config), [args.paths[1]]
    from kueuelint.load.git_revision import GitError, files_at_revision

    paths = args.paths or ["."]
    try:
        files = files_at_revision(args.baseline, paths, config.limits, config.exclude)
        return assemble(files, config, all_checked=True), paths
    except GitError as exc:
        raise UsageError(f"--baseline {args.baseline}: {exc}") from None
