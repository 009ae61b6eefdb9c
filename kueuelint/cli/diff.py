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

from kueuelint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from kueuelint.cli.common import (add_change_arguments, add_config_arguments, change_paths,
                                  check_config_against_rules, files_at_baseline, load_cli_config)
from kueuelint.cli.output import open_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_change_arguments(parser, "OLD", "NEW",
                         "the objects as they are now and as you want them (files or folders)")
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

    old_paths, new_paths = change_paths(args, "diff", "OLD", "NEW")
    if old_paths is not None:
        return open_run(old_paths, config), new_paths
    return assemble(files_at_baseline(args.baseline, new_paths, config), config, all_checked=True), new_paths
