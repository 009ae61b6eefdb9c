"""Check what changing objects from OLD to NEW would break: immutable fields and transition rules.

The API server runs these checks (CEL rules that use oldSelf, immutability) only on update,
so plain `check` skips them. OLD and NEW are files or folders; objects are paired by
kind, namespace and name. Findings point into NEW.
"""

from __future__ import annotations

import argparse
import os
import time

from kueuelint.cli import EXIT_FINDINGS, EXIT_OK
from kueuelint.cli.common import add_config_arguments, load_cli_config
from kueuelint.cli.output import open_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the objects as they are now (file or folder)")
    parser.add_argument("new", metavar="NEW", help="the objects as you want them (file or folder)")
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
    old_objects = _objects(args.old, config)
    new_files = pipeline.load_inputs([args.new], config).files
    result = _diff(old_objects, new_files, config, rules, [os.path.abspath(p) for p in args.crd])
    result.seconds = time.perf_counter() - started
    args.no_source, args.statistics, args.quiet = False, False, False
    write_reports(result, outputs, args)
    return EXIT_FINDINGS if any(str(f.severity) == "error" for f in result.findings) else EXIT_OK


def _objects(path: str, config) -> list:
    from kueuelint import pipeline
    from kueuelint.checks.runner import Checker

    files = pipeline.load_inputs([path], config).files
    return [obj for state in Checker({}, config).identify_files(files) for obj in state.objects]


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
    findings = []
    for old, new in pair(old_objects, new_objects):
        for issue in transition_issues(new.group, new.version, new.kind, old.data, new.data, index, engine):
            rule = rules.get(issue.code)
            location = new.locate(issue.path, at_value=issue.at_value)
            message = f"{new.display()}: {issue.message}" + (f" [{issue.judge}]" if issue.judge else "")
            findings.append(Finding(issue.code, rule.meta.name if rule else "update-rejected",
                                    rule.meta.severity if rule else Severity.ERROR, message, location,
                                    new.ref(), format_path(issue.path),
                                    new.doc.source.line_text(location.line)))
    return RunResult(sorted(findings, key=Finding.sort_key), files=len(new_files), objects=len(new_objects),
                     rules={code: rule.meta for code, rule in rules.items()})
