"""The human-readable reporter: exact lines, colour, source snippets, summary, statistics."""

from __future__ import annotations

import io

import pytest

from kueuelint.findings import Finding, Location, ObjectRef, RunResult, Severity
from kueuelint.report import ReportOptions, get_reporter

JOB = "manifests/team-a/job.yaml"
CQ = "manifests/cluster-queue.yaml"


def sample() -> RunResult:
    findings = [
        Finding("KQ201", "queue-name-missing", Severity.ERROR,
                "Job team-a/train has no kueue.x-k8s.io/queue-name label",
                Location(JOB, 4, 3, 4, 9), ObjectRef("batch/v1", "Job", "team-a", "train"),
                source_line="  labels:\n"),
        Finding("KQ305", "requests-exceed-quota", Severity.WARNING,
                "requests 120% of nominal quota\nflavor “gpu-ä100” has 8",
                Location(JOB, 17, 15, 17, 18), source_line="        cpu: \"12\"\n"),
        Finding("KQ201", "queue-name-missing", Severity.ERROR, "no queue <&>",
                Location(CQ, 2, 1), source_line="kind: ClusterQueue"),
        Finding("KQ410", "cohort-unknown", Severity.INFO, "cohort is not defined",
                Location(CQ, 9, 11, 10, 1), source_line="  cohort: research\n"),
    ]
    return RunResult(findings, files=3, objects=7, seconds=0.1234)


def render(result: RunResult, **options) -> str:
    stream = io.StringIO()
    get_reporter("text")(result, stream, ReportOptions(**options))
    return stream.getvalue()


def test_findings_with_source_snippets_and_summary():
    assert render(sample()).splitlines() == [
        f"{JOB}:4:3: KQ201 [error] Job team-a/train has no kueue.x-k8s.io/queue-name label (queue-name-missing)",
        "  4 |   labels:",
        "    |   ^~~~~~",
        "",
        f"{JOB}:17:15: KQ305 [warning] requests 120% of nominal quota",
        "    flavor “gpu-ä100” has 8 (requests-exceed-quota)",
        '  17 |         cpu: "12"',
        "     |               ^~~",
        "",
        f"{CQ}:2:1: KQ201 [error] no queue <&> (queue-name-missing)",
        "  2 | kind: ClusterQueue",
        "    | ^",
        "",
        f"{CQ}:9:11: KQ410 [info] cohort is not defined (cohort-unknown)",
        "  9 |   cohort: research",
        "    |           ^",
        "",
        "3 files, 7 objects: 2 errors, 1 warning, 1 info in 0.12s",
    ]


def test_without_source_lines():
    lines = render(sample(), show_source=False).splitlines()
    assert lines[0].startswith(f"{JOB}:4:3: KQ201 [error] ")
    assert lines[-2:] == ["", "3 files, 7 objects: 2 errors, 1 warning, 1 info in 0.12s"]
    assert len(lines) == 5 + 2  # four findings, one continuation line, gap, summary
    assert not any(" | " in line for line in lines)


def test_quiet_prints_only_findings():
    lines = render(sample(), quiet=True).splitlines()
    assert len(lines) == 5
    assert all(line.startswith("manifests/") or line.startswith("    flavor") for line in lines)


def test_all_checks_passed():
    output = render(RunResult([], files=1, objects=1, seconds=2))
    assert output == "All checks passed: 1 file, 1 object in 2.00s\n"
    assert render(RunResult([], files=1, objects=1), quiet=True) == ""


def test_colour_only_when_asked():
    assert "\x1b[" not in render(sample())
    first = render(sample(), color=True).splitlines()[0]
    assert first.startswith(f"\x1b[1m{JOB}\x1b[0m:4:3: \x1b[1;31mKQ201\x1b[0m \x1b[31m[error]\x1b[0m ")
    coloured = render(sample(), color=True)
    assert "\x1b[1;33mKQ305\x1b[0m \x1b[33m[warning]\x1b[0m" in coloured
    assert "\x1b[1;34mKQ410\x1b[0m \x1b[34m[info]\x1b[0m" in coloured
    assert "    |   \x1b[31m^~~~~~\x1b[0m" in coloured.splitlines()


def test_statistics_table_sorted_by_count():
    lines = render(sample(), statistics=True, show_source=False).splitlines()
    start = lines.index("") + 1
    assert lines[start:start + 3] == [
        "2  KQ201  queue-name-missing",
        "1  KQ305  requests-exceed-quota",
        "1  KQ410  cohort-unknown",
    ]
    assert lines[-1].startswith("3 files, 7 objects:")


def test_statistics_without_findings_prints_no_table():
    assert render(RunResult([], files=2), statistics=True).splitlines() == [
        "All checks passed: 2 files, 0 objects in 0.00s"]


def test_internal_error_follows_findings_and_blocks_all_passed():
    result = RunResult([], files=1, objects=0, internal_error="RecursionError in rule KQ301")
    assert render(result).splitlines() == [
        "kueuelint: internal error: RecursionError in rule KQ301",
        "",
        "1 file, 0 objects: 0 errors, 0 warnings, 0 info in 0.00s",
    ]
    result = sample()
    result.internal_error = "boom"
    lines = render(result, quiet=True).splitlines()
    assert lines[-2:] == ["", "kueuelint: internal error: boom"]


def _one(source: str, column: int, end_column: int | None = None, end_line: int | None = None,
         message: str = "m") -> list[str]:
    finding = Finding("KQ101", "api-version", Severity.ERROR, message,
                      Location("f.yaml", 3, column, end_line, end_column), source_line=source)
    return render(RunResult([finding]), quiet=False).splitlines()[1:3]


def test_caret_under_wide_characters_and_tabs():
    assert _one("name: 日本-job x", 10, 14) == ["  3 | name: 日本-job x", "    | " + " " * 11 + "^~~~"]
    assert _one("a:\tb", 4) == ["  3 | a:  b", "    |     ^"]


@pytest.mark.parametrize("end_line, end_column, caret", [
    (None, None, "^"),        # no end: a single caret
    (4, 8, "^"),              # span ends on another line: a caret at the start only
    (3, 3, "^"),              # empty or inverted span still shows where
    (None, 8, "^~~~~"),       # an end column alone means the same line
])
def test_caret_spans(end_line, end_column, caret):
    assert _one("kind: Job", 3, end_column, end_line)[1] == "    |   " + caret


def test_column_past_end_of_line_is_clamped():
    assert _one("kind:", 40)[1] == "    |      ^"


def test_control_characters_cannot_reach_the_terminal():
    lines = render(RunResult([Finding("KQ101", "api-version", Severity.ERROR, "bad \x1b[2J name",
                                      Location("f.yaml", 1, 8), source_line="name: \x1b[2Jx")]),
                   ).splitlines()
    assert lines[0] == "f.yaml:1:8: KQ101 [error] bad \\x1b[2J name (api-version)"
    assert lines[1:3] == ["  1 | name: \\x1b[2Jx", "    | " + " " * 10 + "^"]  # under the "["
