"""Commands' entry to the checks: a Run (``kueuelint.run``) through the rules, serially or spread
over worker processes, into a RunResult.

The rule fixtures, the tests and ``check`` come through here; ``admit`` and ``diff`` open their
Run at the same front door and hand it to the simulator or the transition checks instead.
"""

from __future__ import annotations

import time
from typing import Callable

from kueuelint.checks.registry import load_rules  # noqa: F401 - the commands' way to the rules
from kueuelint.config import Config
from kueuelint.findings import Finding, RunResult
from kueuelint.run import Run, assemble, open_run, plan, read_entries


def load_inputs(paths: list[str], config: Config, *, extra_context: tuple[str, ...] = (),
                stdin_name: str = "<stdin>", forced_type: str | None = None) -> Run:
    return open_run(paths, config, extra_context=extra_context, stdin_name=stdin_name,
                    forced_type=forced_type)


def check(run: Run, config: Config, rules=None, *, use_suppressions: bool = True,
          progress: Callable[[int, int], None] | None = None) -> RunResult:
    from kueuelint.checks.runner import Checker

    rules = load_rules(config) if rules is None else rules
    checker = Checker(rules, config, use_suppressions=use_suppressions, progress=progress)
    return checker.run(run)


def run_check(paths: list[str], config: Config, rules, *, jobs: int = 1, use_suppressions: bool = True,
              extra_context: tuple[str, ...] = (), stdin_name: str = "<stdin>",
              forced_type: str | None = None, progress=None) -> RunResult:
    """Check ``paths``; with ``jobs`` > 1 and enough files, in worker processes (same findings)."""
    from kueuelint.checks import parallel

    entries, problem_files = plan(paths, config, extra_context=extra_context, forced_type=forced_type)
    checked = sum(1 for _, is_context, _ in entries if not is_context)
    reads_stdin = any(target.path == "-" for target, _, _ in entries)
    if reads_stdin or not parallel.worth_parallel(jobs, checked):
        run = assemble(read_entries(entries, config, stdin_name) + problem_files, config)
        return check(run, config, rules, use_suppressions=use_suppressions, progress=progress)
    result = parallel.run_parallel(entries, config, rules, jobs=jobs, use_suppressions=use_suppressions,
                                   stdin_name=stdin_name)
    unread = [f for f in problem_files if not f.source.is_context]
    if unread:
        extra = check(assemble(unread, config), config, rules, use_suppressions=use_suppressions)
        result.findings = sorted(result.findings + extra.findings, key=Finding.sort_key)
        result.files += extra.files
    return result


def run_check_guarded(paths: list[str], config: Config, rules, *, progress=None, **options) -> RunResult:
    """``run_check``, timed.  A failure of kueuelint itself becomes the result's internal error
    (the commands exit 2 on it) instead of a bare traceback; the progress line is cleared either way."""
    started = time.perf_counter()
    try:
        result = run_check(paths, config, rules, progress=progress, **options)
    except Exception as exc:  # the tool's own bug: say so, never crash
        return RunResult([], rules={c: r.meta for c, r in rules.items()}, internal_error=_failure_line(exc))
    finally:
        if progress:
            progress(0, 0)
    result.seconds = time.perf_counter() - started
    return result


def _failure_line(exc: Exception) -> str:
    """The error and the innermost frame of the traceback being handled."""
    import traceback

    context = traceback.format_exc(limit=-3).strip().splitlines()
    return f"internal error, please report: {type(exc).__name__}: {exc} ({context[-3].strip()})"
