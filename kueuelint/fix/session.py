"""A ``--fix`` run and its ``--diff`` preview on top of a finished check: rewrite what can be
fixed, check again, and say what was not fixed.  The commands only print what these return."""

from __future__ import annotations

import difflib
from typing import Callable, Iterator

from kueuelint.config import Config
from kueuelint.findings import RunResult
from kueuelint.fix.apply import FilePlan, FixReport, attach_fixes, fix_files, plan_fixes


def fix_and_recheck(result: RunResult, config: Config,
                    recheck: Callable[[], RunResult]) -> tuple[RunResult, FixReport]:
    """Fix the files of ``result``'s findings; when anything changed, the findings of a new check."""
    report = fix_files(result.findings, config.limits, config.default_namespace)
    return (recheck() if report.fixed else result), report


def mark_fixable(result: RunResult, config: Config) -> None:
    """Attach to each finding the fix ``--fix`` would apply, so reports can offer it."""
    try:
        attach_fixes(result.findings, config.limits, config.default_namespace)
    except Exception as exc:  # the findings are still worth writing
        from kueuelint.errors import internal_error_message

        result.internal_error = result.internal_error or internal_error_message(exc, "planning fixes")


def preview(result: RunResult, config: Config) -> tuple[list[FilePlan], FixReport]:
    return plan_fixes(result.findings, config.limits, config.default_namespace)


def unified_diff(plans: list[FilePlan]) -> Iterator[str]:
    """The planned edits as one unified diff, lines ending in newlines."""
    for plan in plans:
        for line in difflib.unified_diff(plan.text.splitlines(keepends=True),
                                         plan.new_text.splitlines(keepends=True), plan.path, plan.path):
            # as diff(1) and git mark it, so that patch(1) can apply the output
            yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def not_fixed_lines(report: FixReport) -> list[str]:
    return [f"kueuelint: not fixed: {finding.location.path}:{finding.location.line}: "
            f"{finding.code}: {reason}" for finding, reason in report.not_fixed]


def fixed_summary(report: FixReport) -> str:
    files = len(report.files)
    return (f"Fixed {len(report.fixed)} finding{'s' * (len(report.fixed) != 1)} in {files} "
            f"file{'s' * (files != 1)}.")


def preview_summary(plans: list[FilePlan]) -> str:
    fixes = sum(len(plan.edits) for plan in plans)
    return (f"Would fix {fixes} finding{'s' * (fixes != 1)} in {len(plans)} "
            f"file{'s' * (len(plans) != 1)}.")
