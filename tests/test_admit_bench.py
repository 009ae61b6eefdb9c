"""bench/admit_bench.py --against: a side-by-side measurement of two source trees."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "admit_bench.py"


def _bench_module():
    spec = importlib.util.spec_from_file_location("admit_bench_under_test", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=300)


def test_against_a_tree_measures_both_in_turns_and_compares_round_by_round():
    done = _run("--scale", "0.02", "--jobs", "1", "--repeat", "2", "--against", str(ROOT))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    mine = [line for line in lines if line.startswith("scale 0.02, this build: simulate ")]
    theirs = [line for line in lines if line.startswith(f"scale 0.02, {ROOT}: simulate ")]
    assert len(mine) == len(theirs) == 1
    # two runs each, and the same decisions: the same tree on the same objects
    assert len(mine[0].split(": simulate ")[1].split(" s:")[0].split()) == 2
    assert mine[0].split("; ")[-1] == theirs[0].split("; ")[-1]
    assert "cycles" in mine[0]
    ratios = [line for line in lines if "round by round" in line]
    assert len(ratios) == 1 and ratios[0].endswith("of 2 rounds")
    assert not any("decide differently" in line for line in lines)


def test_against_a_folder_without_kueuelint_fails_with_one_line():
    done = _run("--scale", "0.02", "--against", str(ROOT / "no-such-tree"))
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"admit_bench: --against {ROOT / 'no-such-tree'}: no kueuelint source tree there "
        "(kueuelint/__init__.py is missing)"]
    assert "simulate" not in done.stdout


def _row(seconds: float, cycles: int) -> dict:
    return {"simulate_s": seconds, "cycles": cycles, "admitted": 5, "pending": 2, "preempted": 1}


def test_the_report_gives_ratios_per_round_and_says_when_decisions_differ(capsys):
    bench = _bench_module()
    rows = {1.0: {"this": [_row(1.8, 10), _row(2.4, 10), _row(1.9, 10)],
                  "other": [_row(2.0, 12), _row(2.0, 12), _row(1.9, 12)]}}
    bench._report_against(rows, Path("/prev"))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("scale 1, this build: simulate 1.80 2.40 1.90 s: median 1.90, fastest 1.80; "
                        "10 cycles, 5 admitted, 2 pending, 1 preemptions")
    assert lines[1].startswith("scale 1, /prev: simulate 2.00 2.00 1.90 s: median 2.00, fastest 1.90; 12 cycles")
    assert lines[2] == ("scale 1: this build's time over /prev's, round by round: 0.90 1.20 1.00: "
                        "median 1.00; this build faster in 1 of 3 rounds")
    assert lines[3] == "scale 1: the two decide differently (their counts differ)"


def test_counts_that_would_measure_nothing_are_refused():
    for args, message in ((("--scale", "0.02", "--repeat", "0"), "--repeat: must be 1 or more, got 0"),
                          (("--scale", "-1"), "--scale: must be above 0, got -1"),
                          (("--scale", "nan"), "--scale: must be above 0, got nan")):
        done = _run(*args, "--against", str(ROOT))
        assert done.returncode == 2, args
        assert message in done.stderr
        assert "simulate" not in done.stdout
