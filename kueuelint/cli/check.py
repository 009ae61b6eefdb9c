"""Lint manifests, Kueue objects and compute configs.

Paths may be files, directories (searched for *.yaml, *.yml and *.json), globs, or - for
standard input.
"""

from __future__ import annotations

import argparse
import os
import sys

from kueuelint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError
from kueuelint.cli.common import (add_config_arguments, add_jobs_argument, check_config_against_rules,
                                  load_cli_config)
from kueuelint.cli.output import open_outputs, progress_printer, want_color

FAIL_ON = ("error", "warning", "info")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, directories, globs or - (stdin)")
    out = parser.add_argument_group("output")
    out.add_argument("--format", action="append", choices=("text", "json", "sarif", "junit", "github", "gitlab"),
                     help="output format (repeat with --output to write several; default: text)")
    out.add_argument("--output", "-o", action="append", metavar="FILE",
                     help="write the matching --format to FILE instead of standard output")
    out.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                     help="colour text output (auto: only on a terminal, honouring NO_COLOR)")
    out.add_argument("--no-source", action="store_true", help="do not show the offending source line")
    out.add_argument("--statistics", action="store_true", help="count findings per rule")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    out.add_argument("-v", "--verbose", action="store_true",
                     help="also say what was skipped (e.g. CEL transition rules that need an old version)")
    out.add_argument("--no-progress", action="store_true", help="never show a progress line")
    fix = parser.add_argument_group("fixing")
    fix.add_argument("--fix", action="store_true",
                     help="rewrite files to fix what can be fixed safely (KQ101, KQ102, KQ201, KQ630), "
                          "then report what is left")
    fix.add_argument("--diff", action="store_true",
                     help="print the changes --fix would make as a unified diff, write nothing "
                          "(exit 1 when there are changes)")
    gate = parser.add_argument_group("exit status")
    gate.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    gate.add_argument("--fail-on", choices=FAIL_ON, default="error",
                      help="lowest severity that makes the exit status 1 (default: error)")
    sel = parser.add_argument_group("rule selection")
    sel.add_argument("--select", metavar="CODES", help="comma-separated codes or prefixes to run (e.g. KQ1,KQ201)")
    sel.add_argument("--ignore", metavar="CODES", help="comma-separated codes or prefixes to skip")
    sel.add_argument("--extend-select", metavar="CODES", help="add codes to the configured selection")
    sel.add_argument("--no-suppressions", action="store_true",
                     help="ignore every suppression comment and annotation (for admins)")
    inp = parser.add_argument_group("input")
    add_jobs_argument(inp, "large runs")
    inp.add_argument("--context", action="append", default=[], metavar="PATH",
                     help="also load PATH for cross-references, without reporting on it")
    inp.add_argument("--crd", action="append", default=[], metavar="PATH",
                     help="CustomResourceDefinitions (files or folders) to validate objects against")
    inp.add_argument("--stdin-filename", default="<stdin>", metavar="NAME",
                     help="the name to report for standard input")
    inp.add_argument("--type", dest="file_type", metavar="TYPE",
                     choices=("manifest", "anyscale-compute-config", "skypilot-config", "skypilot-task"),
                     help="treat every input as this type instead of detecting it")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if not args.paths:
        raise UsageError("no paths given; try 'kueuelint check .' or 'kueuelint check -' for stdin")
    if args.diff and (args.fix or args.format or args.output):
        raise UsageError("--diff prints only the diff: it cannot be combined with --fix, --format or --output")
    config = load_cli_config(args)
    config.crds += tuple(os.path.abspath(path) for path in args.crd)
    outputs = open_outputs(args.format or ["text"], args.output or [])
    from kueuelint import pipeline
    from kueuelint.checks.registry import RuleFileError

    try:
        rules = pipeline.load_rules(config)
    except RuleFileError as exc:
        raise UsageError(str(exc)) from None
    check_config_against_rules(config, rules, args.context)
    result = _run_checks(args, config, rules)
    if result.files == 0 and not result.internal_error:
        print(f"kueuelint: no files found to check under {' '.join(args.paths)} "
              "(*.yaml, *.yml and *.json are read from folders)", file=sys.stderr)
        return EXIT_ERROR
    if args.diff:
        return _print_diff(result, config)
    if args.fix and not result.internal_error:
        result = _fix_and_recheck(result, args, config, rules)
    _mark_fixable(result, config)
    write_reports(result, outputs, args)
    if args.verbose:
        _explain_stats(result.stats)
    if result.internal_error:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    threshold = FAIL_ON.index(args.fail_on)
    failing = {sev for sev in FAIL_ON[: threshold + 1]}
    return EXIT_FINDINGS if any(str(f.severity) in failing for f in result.findings) else EXIT_OK


def _run_checks(args, config, rules):
    from kueuelint import collector, pipeline
    from kueuelint.cores import default_jobs

    show_progress = not args.no_progress and not args.quiet and sys.stderr.isatty()
    # The parsed manifests and what is derived from them live until the report is written and
    # form almost no reference cycles (a 20,000-manifest run leaves about 2,000 cyclic objects),
    # yet collector passes kept walking them: a quarter of such a run, with the same peak memory
    # when paused.  Worker processes are forked inside the pause and inherit it.  As the program,
    # what survives is then frozen (the first collection after the pause would walk it all);
    # a caller in a longer-lived process keeps its collector as it was.
    with collector.paused(freeze=args._program):
        return pipeline.run_check_guarded(
            args.paths, config, rules, jobs=args.jobs or default_jobs(),
            use_suppressions=not args.no_suppressions, extra_context=tuple(args.context),
            stdin_name=args.stdin_filename, forced_type=args.file_type,
            progress=progress_printer(sys.stderr) if show_progress else None)


def _fix_and_recheck(result, args, config, rules):
    from kueuelint.fix.session import fix_and_recheck, fixed_summary, not_fixed_lines

    result, report = fix_and_recheck(result, config, lambda: _run_checks(args, config, rules))
    _say(not_fixed_lines(report))
    if not args.quiet:
        _say([fixed_summary(report)])
    return result


def _mark_fixable(result, config) -> None:
    if result.may_have_fixes():
        from kueuelint.fix.session import mark_fixable

        mark_fixable(result, config)


def _print_diff(result, config) -> int:
    """ruff's --diff: the fixes as a unified diff on standard output, nothing written."""
    from kueuelint.fix.session import not_fixed_lines, preview, preview_summary, unified_diff

    if result.internal_error:
        _say([f"kueuelint: {result.internal_error}"])
        return EXIT_ERROR
    plans, report = preview(result, config)
    sys.stdout.writelines(unified_diff(plans))
    _say(not_fixed_lines(report) + [preview_summary(plans)])
    return EXIT_FINDINGS if plans else EXIT_OK


def _say(lines: list[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def _explain_stats(stats) -> None:
    evaluated, skipped = stats.cel_rules_evaluated, stats.transition_rules_skipped
    print(f"kueuelint: {evaluated} CRD CEL rule evaluations", file=sys.stderr)
    if skipped:
        print(f"kueuelint: {skipped} CRD transition rules (using oldSelf) skipped: they judge updates; "
              "run 'kueuelint diff OLD NEW' to check them", file=sys.stderr)


def write_reports(result, outputs, args) -> None:
    from kueuelint import __version__
    from kueuelint.report import ReportOptions, write_reports as write

    def options_for(stream, to_terminal: bool) -> ReportOptions:
        return ReportOptions(color=want_color(args.color, stream) if to_terminal else False,
                             show_source=not args.no_source, statistics=args.statistics,
                             quiet=args.quiet, tool_version=__version__, cwd_for_uris=os.getcwd())

    write(result, outputs, options_for)
