"""Draw the queue setup: cohort trees, ClusterQueues with their quotas, LocalQueues by namespace,
admission checks and topologies; with --snapshot, usage and waiting workloads per queue.

Mermaid renders in GitHub and GitLab Markdown, DOT is for Graphviz, and HTML is one
self-contained page (no network access) with quota bars and the numbers on hover or click.
"""

from __future__ import annotations

import argparse

from kueuelint.cli import EXIT_OK, UsageError
from kueuelint.cli.common import add_config_file_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="queue objects (files, directories, globs or -)")
    parser.add_argument("--snapshot", action="append", default=[], metavar="PATH",
                        help="cluster snapshot: its queue objects are drawn too, its Workloads give usage")
    parser.add_argument("--format", choices=("mermaid", "dot", "html"), required=True, help="picture format")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the picture here instead of standard output")
    add_config_file_argument(parser)


def run(args: argparse.Namespace) -> int:
    from kueuelint.cli.output import write_text
    from kueuelint.cli.review import report_errors
    from kueuelint.cli.common import load_cli_config
    from kueuelint.review.inputs import read_objects

    config = load_cli_config(args)
    drawn, snapshot = read_objects(args.paths, config), read_objects(args.snapshot, config)
    write_text(render_map(drawn.objects, snapshot.objects if args.snapshot else None, args.format), args.output)
    errors = drawn.errors + snapshot.errors
    return report_errors(errors) if errors else EXIT_OK


def render_map(objects: list, snapshot: list | None, fmt: str) -> str:
    from kueuelint.review.queue_map import build_map, pending_per_queue
    from kueuelint.review.setup import read_setup
    from kueuelint.review.usage import read_usage

    setup = read_setup(objects + (snapshot or []))
    if not setup.cluster_queues and not setup.cohorts:
        raise UsageError("no ClusterQueue or Cohort found to draw")
    usage = read_usage(snapshot) if snapshot is not None else None
    queue_map = build_map(setup, usage.per_queue() if usage else None,
                          pending_per_queue(setup, usage.waiting) if usage else None)
    if fmt == "mermaid":
        from kueuelint.report.map_mermaid import map_mermaid

        return map_mermaid(queue_map)
    if fmt == "dot":
        from kueuelint.report.map_dot import map_dot

        return map_dot(queue_map)
    from kueuelint.report.map_html import map_html

    return map_html(queue_map)
