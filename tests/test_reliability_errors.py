"""Exit codes, internal errors that still write what was found, and deterministic output."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import CORPUS, REPO, run_cli

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  country: NO\n"

# Runs the command with identify() broken for one file: a stand-in for any bug of kueuelint's own.
INJECT = textwrap.dedent("""
    import sys
    from kueuelint import run as front_door
    real = front_door.identify
    def broken(doc, *args, **kwargs):
        if "boom" in doc.source.path:
            raise ZeroDivisionError("injected failure")
        return real(doc, *args, **kwargs)
    front_door.identify = broken
    from kueuelint.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def run_injected(*args: str, cwd):
    env = {**os.environ, "KUEUELINT_NO_CACHE": "1", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-c", INJECT, *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def make_tree(tmp_path, names=("a", "boom", "c")):
    for name in names:
        (tmp_path / f"{name}.yaml").write_text(CM.format(name=name))
    return tmp_path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_internal_error_exits_2_and_still_writes_the_findings_as_json(tmp_path, jobs):
    # with -j 2, enough files that the run is split over worker processes
    names = ["a", "boom", "c"] + ([f"x{n:03d}" for n in range(140)] if jobs == "2" else [])
    make_tree(tmp_path, names)
    proc = run_injected("check", "--format", "json", "-j", jobs, ".", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["internalError"].startswith("internal error, please report: ZeroDivisionError")
    assert "boom.yaml" in report["internalError"]
    assert sorted(f["file"] for f in report["findings"]) == sorted(f"{name}.yaml" for name in names)


def test_internal_error_in_text_sarif_and_junit(tmp_path):
    make_tree(tmp_path)
    proc = run_injected("check", "--no-source", "--format", "sarif", "-o", "out.sarif",
                        "--format", "junit", "-o", "out.xml", "--format", "text", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "internal error: please report: ZeroDivisionError: injected failure" in proc.stdout
    assert proc.stdout.count("KQ007") == 3
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert len(sarif["runs"][0]["results"]) == 3
    assert "internal error" in (tmp_path / "out.xml").read_text()


def test_exit_codes(tmp_path):
    (tmp_path / "clean.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (tmp_path / "bad.yaml").write_text("a: [\n")
    assert run_cli("check", str(tmp_path / "clean.yaml")).returncode == 0
    broken = run_cli("check", str(tmp_path / "bad.yaml"))
    assert broken.returncode == 1 and "Traceback" not in broken.stderr
    usage = run_cli("check")
    assert usage.returncode == 2 and "kueuelint: error:" in usage.stderr
    missing = run_cli("check", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 1 and "KQ003" in missing.stdout


def test_one_line_error_with_position_for_every_broken_file(tmp_path):
    (tmp_path / "a.yaml").write_text("a: 1\nb: [1, 2\n")
    (tmp_path / "b.yaml").write_text("kind: Job\n\tspec: {}\n")
    proc = run_cli("check", "--no-source", "-q", str(tmp_path))
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        path, line_no, column, rest = line.split(":", 3)
        assert path.endswith((".yaml",)) and int(line_no) >= 1 and int(column) >= 1
        assert rest.startswith(" KQ001")


def _corpus_copy(tmp_path, count=160):
    """Enough files for -j to split the run over workers (at least 128)."""
    sources = sorted(p for p in CORPUS.rglob("*.yaml"))
    target = tmp_path / "tree"
    for index in range(count):
        source = sources[index % len(sources)]
        folder = target / f"d{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, folder / f"{index:03d}-{source.name}")
    return target


def test_same_findings_in_the_same_order_whatever_the_file_order_or_jobs(tmp_path):
    tree = _corpus_copy(tmp_path)
    files = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.yaml"))
    shuffled = files[:]
    random.Random(3).shuffle(shuffled)
    outputs = []
    for jobs, paths in (("1", ["."]), ("2", ["."]), ("1", shuffled), ("2", list(reversed(files)))):
        proc = run_cli("check", "--format", "json", "-j", jobs, *paths, cwd=tree)
        assert proc.returncode in (0, 1), proc.stderr
        report = json.loads(proc.stdout)
        outputs.append([(f["file"], f["line"], f["column"], f["code"], f["message"])
                        for f in report["findings"]])
    assert outputs[0], "the corpus copy should produce findings"
    assert all(output == outputs[0] for output in outputs[1:])


def test_broken_pipe_is_not_a_traceback():
    proc = subprocess.run(f"{sys.executable} -m kueuelint check {CORPUS} | head -1", shell=True,
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert "Traceback" not in proc.stderr


# A worker process that dies (killed for memory, a crash in C code) instead of raising.
KILL_WORKER = textwrap.dedent("""
    import os, sys
    from kueuelint import run as front_door
    parent, real = os.getpid(), front_door.identify
    def dying(doc, *args, **kwargs):
        if "boom" in doc.source.path and os.getpid() != parent:
            os._exit(9)
        return real(doc, *args, **kwargs)
    front_door.identify = dying
    from kueuelint.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def test_a_worker_that_dies_costs_a_serial_rerun_not_the_findings(tmp_path):
    names = ["a", "boom", "c"] + [f"x{n:03d}" for n in range(140)]
    make_tree(tmp_path, names)
    env = {**os.environ, "KUEUELINT_NO_CACHE": "1"}
    proc = subprocess.run([sys.executable, "-c", KILL_WORKER, "check", "--format", "json", "-j", "2", "."],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr      # warnings only
    report = json.loads(proc.stdout)
    assert report["internalError"] is None
    assert len(report["findings"]) == len(names)


def test_a_python_rule_that_raises_is_reported_with_its_code_and_object(tmp_path):
    rules = tmp_path / "policies"
    rules.mkdir()
    (rules / "KQ981-explodes.yaml").write_text(
        "code: KQ981\nname: explodes\nseverity: error\nsummary: x\nkinds: [ConfigMap]\n"
        "implementation: python\npython: explodes:check\ndocs: {what: x}\n")
    (rules / "explodes.py").write_text("def check(obj, ctx):\n    raise KeyError('no such thing')\n")
    (tmp_path / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\n")
    (tmp_path / "cm.yaml").write_text(CM.format(name="a"))
    proc = run_cli("check", "--no-source", "-q", "cm.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("cm.yaml:1:1: KQ009") and "rule KQ981 (explodes) failed on ConfigMap "
               "default/a: KeyError: 'no such thing'" in line for line in lines), lines
    assert any(" KQ007 " in line for line in lines)      # the other rules still ran


# A bug while reading one file (here: parsing raises) is confined to that file.
BREAK_LOADER = textwrap.dedent("""
    import sys
    from kueuelint.load import discover
    real = discover.parse_text
    def broken(source, limits):
        if "boom" in source.path:
            raise MemoryError("injected")
        return real(source, limits)
    discover.parse_text = broken
    from kueuelint.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def test_a_bug_while_reading_one_file_keeps_the_other_files_findings(tmp_path):
    make_tree(tmp_path)
    env = {**os.environ, "KUEUELINT_NO_CACHE": "1"}
    proc = subprocess.run([sys.executable, "-c", BREAK_LOADER, "check", "--format", "json", "."],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    assert report["internalError"].startswith("internal error, please report: MemoryError: injected")
    assert "reading boom.yaml" in report["internalError"]
    assert sorted(f["file"] for f in report["findings"]) == ["a.yaml", "c.yaml"]


def test_diff_reports_files_it_cannot_read_instead_of_passing(tmp_path):
    # found by hand: `kueuelint diff OLD NEW` said "All checks passed" for a binary NEW
    (tmp_path / "old.yaml").write_text(CM.format(name="a"))
    (tmp_path / "new.yaml").write_bytes(b"\x00\x01binary")
    (tmp_path / "broken.yaml").write_text("a: [\n")
    proc = run_cli("diff", "--format", "json", "old.yaml", "new.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    found = [(f["file"], f["code"]) for f in json.loads(proc.stdout)["findings"]]
    assert found == [("new.yaml", "KQ004"), ("old.yaml", "KQ007")]
    proc = run_cli("diff", "broken.yaml", "old.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "broken.yaml:1:5: KQ001" in proc.stdout


def test_a_rule_file_with_kinds_that_are_not_a_list_is_a_usage_error(tmp_path):
    rules = tmp_path / "policies"
    rules.mkdir()
    (rules / "KQ970-x.yaml").write_text("code: KQ970\nname: x\nseverity: error\nsummary: x\nkinds: 5\n"
                                        "cel: {validations: [{expression: 'true'}]}\n")
    (tmp_path / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\n")
    proc = run_cli("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("kueuelint: error: ") and "KQ970-x.yaml" in proc.stderr
