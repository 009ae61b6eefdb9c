"""Predict whether Kueue would admit workloads against a snapshot of queues and usage, and why.

The snapshot is any mix of files and directories with ResourceFlavors, ClusterQueues, Cohorts,
LocalQueues, priority classes, AdmissionChecks, Namespaces, LimitRanges, RuntimeClasses and
Workloads (for example `kubectl get ... -A -o yaml`). Workloads there that hold quota count as
usage; those without a reservation queue up together with the workloads given as arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from kueuelint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError
from kueuelint.cli.common import add_config_file_argument, add_jobs_argument, load_cli_config
from kueuelint.cli.output import status_printer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="WORKLOAD",
                        help="job or Workload manifests to admit (files, directories, globs or -)")
    parser.add_argument("--snapshot", action="append", default=[], metavar="PATH",
                        help="cluster snapshot: queue setup and existing Workloads (repeatable)")
    parser.add_argument("--cycles", type=int, metavar="N",
                        help="simulate at most N scheduling cycles (default: until nothing changes)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--show-quota", action="store_true",
                        help="print the quota table per ClusterQueue and cohort after the simulation")
    add_jobs_argument(parser, "large snapshots: cohort trees are simulated apart")
    parser.add_argument("--no-progress", action="store_true",
                        help="never show the status line (shown on a terminal when a run takes a while)")
    add_config_file_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.cycles is not None and args.cycles < 1:
        raise UsageError("--cycles must be at least 1")
    if not args.paths and not args.snapshot:
        raise UsageError("nothing to admit; give workload manifests and --snapshot PATH")
    config = load_cli_config(args)
    progress = status_printer(sys.stderr) if _show_progress(args) else None
    from kueuelint import collector

    try:
        # Snapshot objects and the simulation's records live until the report is written.
        with collector.paused(freeze=True):
            result, explained = _simulate(args, config, progress)
            data = _json(result, explained) if result is not None else {}
    finally:
        if progress:
            progress(None)
    if result is None:
        for line in explained:
            print(f"kueuelint: error: {line}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(_rendered(args, result, data))
    judged = result.incoming or {wl.key for wl in result.pending}
    from kueuelint.admission.model import ADMITTED

    admitted = all(e["result"] == ADMITTED for e in data["workloads"] if e["workload"] in judged)
    return EXIT_OK if admitted else EXIT_FINDINGS


def _json(result, explained) -> dict:
    from kueuelint.report.admission_json import to_json

    return to_json(result, explained)


def _rendered(args: argparse.Namespace, result, data: dict) -> str:
    if args.format == "json":
        return json.dumps(data, indent=2) + "\n"
    from kueuelint.admission.explain import quota_rows
    from kueuelint.report.admission_text import render

    return render(data, quota_rows(result) if args.show_quota else None)


# About what takes a second to read and simulate: below it, a status line would only flicker.
LARGE_SNAPSHOT_BYTES = 2_000_000


def _show_progress(args: argparse.Namespace) -> bool:
    if args.no_progress or not sys.stderr.isatty():
        return False
    from kueuelint.load.discover import expand

    targets, _ = expand(args.snapshot)
    return sum(_size(target.path) for target in targets) >= LARGE_SNAPSHOT_BYTES


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _simulate(args: argparse.Namespace, config, progress):
    """(Result, Explained), or (None, one-line errors)."""
    from kueuelint.cores import default_jobs
    from kueuelint.run import open_run

    jobs = args.jobs or default_jobs()      # a large snapshot file is read by two processes
    run = open_run(args.paths, config, extra_context=tuple(args.snapshot), read_jobs=jobs,
                   on_read=_reading(progress) if progress else None)
    errors = run.problem_lines()
    if run.internal_error:
        errors.append(run.internal_error)
    if errors:
        return None, errors
    from kueuelint.admission import InputError, admit

    try:
        return admit(run.context_objects, run.objects, args.cycles, args.jobs, progress)
    except InputError as exc:
        return None, exc.errors


def _reading(progress):
    def say(target, number: int, total: int) -> None:
        progress(f"reading {target.path}" + (f" ({number}/{total} files)" if total > 1 else ""))
    return say
