"""Review a change of the queue setup: which workloads it starts, strands or exposes to preemption.

BEFORE and AFTER are the queue objects (files or folders) as they are and as a pull request
makes them; with --baseline REF, BEFORE is the given paths as they are in git at REF and AFTER
the same paths in the working tree. Jobs among them are submitted on their side; --snapshot
adds a cluster's Workloads (running and waiting) and anything else the cluster holds. Both
setups are simulated on the same workloads and the fates compared; the rules of `check` run
on the AFTER files.
"""

from __future__ import annotations

import argparse
import sys

from kueuelint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from kueuelint.cli.common import (add_change_arguments, add_config_file_argument, add_jobs_argument,
                                  change_paths, files_at_baseline, load_cli_config)
from kueuelint.cli.output import write_text

FORMATS = ("text", "json", "markdown")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_change_arguments(parser, "BEFORE", "AFTER",
                         "the queue setup as it is and as the change makes it (files or folders)")
    parser.add_argument("--snapshot", action="append", default=[], metavar="PATH",
                        help="cluster snapshot: Workloads (running and waiting) and other objects (repeatable)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of standard output")
    parser.add_argument("--all", action="store_true", dest="every_workload",
                        help="list every workload, also those whose fate stays the same")
    parser.add_argument("--fail-on", choices=("stranded", "preempted", "any"), default="stranded",
                        help="exit 1 when the change strands workloads (default), exposes them to "
                             "preemption, or changes anything at all (a fate, a quota, a queue's cohort) "
                             "or check finds an error in AFTER")
    add_jobs_argument(parser, "large snapshots: cohort trees are simulated apart")
    add_config_file_argument(parser)


def run(args: argparse.Namespace) -> int:
    config = load_cli_config(args)
    from kueuelint import collector
    from kueuelint.admission import InputError
    from kueuelint.review.compare import compare

    try:
        # Snapshot objects and both simulations' records live until the report is written.
        with collector.paused(freeze=True):
            before, after, snapshot, after_run, errors = read_inputs(args, config)
            review = compare(before.objects, after.objects, snapshot.objects, args.jobs, args.every_workload)
    except InputError as exc:
        return report_errors(exc.errors)
    review.findings = _after_findings(after_run, config)
    write_text(render(review, args.format, args.every_workload), args.output)
    if errors:
        return report_errors(errors)
    return EXIT_FINDINGS if review.fails(args.fail_on) else EXIT_OK


def render(review, fmt: str, every_workload: bool = False) -> str:
    if fmt == "json":
        from kueuelint.report.review_json import dump, review_json

        return dump(review_json(review, every_workload))
    if fmt == "markdown":
        from kueuelint.report.review_markdown import review_markdown

        return review_markdown(review, every_workload)
    from kueuelint.report.review_text import review_text

    return review_text(review, every_workload)


def read_inputs(args: argparse.Namespace, config):
    """The objects of BEFORE, AFTER and the snapshot, AFTER's Run (for the rules) and one-line
    errors about input that could not be read."""
    from kueuelint.review.inputs import read_files, read_objects

    before_paths, after_paths = change_paths(args, "review", "BEFORE", "AFTER")
    if before_paths is not None:
        before = read_objects(before_paths, config)
    else:
        before = read_files(files_at_baseline(args.baseline, after_paths, config), config)
    after = read_objects(after_paths, config)
    from kueuelint.cores import default_jobs

    snapshot = read_objects(args.snapshot, config, jobs=args.jobs or default_jobs())   # a large file: two readers
    errors = before.errors + after.errors + snapshot.errors
    return before, after, snapshot, after.run, errors



def _after_findings(run, config) -> list:
    from kueuelint import pipeline

    return pipeline.check(run, config).findings



def report_errors(errors: list[str]) -> int:
    for line in errors:
        print(f"kueuelint: error: {line}", file=sys.stderr)
    return EXIT_ERROR
