"""Hostile, broken and huge files, run through the real command: never a traceback, always
findings with a position, the other files still checked, and a bounded time for each.

The bounds checked here are the documented defaults (README, "Reliability"): 32 MiB per file,
100,000 documents per file, 2,000,000 nodes per document after aliases, 200 levels of nesting,
2,000 columns of block indentation.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import run_cli

GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"


def check_json(*args: str, env: dict | None = None, timeout_budget: float | None = None):
    """Run ``check --format json`` and hold it to the guarantees every run must keep."""
    started = time.monotonic()
    proc = run_cli("check", "--format", "json", "-j", "1", *args, env=env)
    elapsed = time.monotonic() - started
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
    if timeout_budget is not None:
        assert elapsed < timeout_budget, f"took {elapsed:.1f} s"
    report = json.loads(proc.stdout)
    assert report["internalError"] is None
    return proc, report["findings"]


def codes_at(findings, name: str) -> list[tuple[str, int]]:
    return [(f["code"], f["line"]) for f in findings if f["file"].endswith(name)]


def with_good_file(tmp_path):
    (tmp_path / "good.yaml").write_text(GOOD + "  labels: {country: NO}\n")
    return [str(tmp_path / "good.yaml")]


def assert_good_file_checked(findings):
    # the intact neighbour is still read and checked (its KQ007 proves rules ran on it)
    assert ("KQ007", 5) in codes_at(findings, "good.yaml")


def test_alias_bomb_is_refused_quickly(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n")
    _, findings = check_json(str(tmp_path / "bomb.yaml"), *with_good_file(tmp_path), timeout_budget=30)
    assert [code for code, _ in codes_at(findings, "bomb.yaml")] == ["KQ006"]
    assert_good_file_checked(findings)


@pytest.mark.parametrize("text,line", [
    ("[" * 100_000 + "]" * 100_000, 1),
    ("- " * 100_000 + "x\n", 1),                       # crashed libyaml's C stack before
    ("a:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 400)) + "   v\n", 1),
])
def test_100k_deep_nesting_is_refused_not_a_crash(tmp_path, text, line):
    (tmp_path / "deep.yaml").write_text(text)
    _, findings = check_json(str(tmp_path / "deep.yaml"), *with_good_file(tmp_path), timeout_budget=30)
    deep = codes_at(findings, "deep.yaml")
    assert [code for code, _ in deep] in (["KQ006"], ["KQ001"]), deep
    assert_good_file_checked(findings)


def test_200_mb_file_is_refused_by_size_without_reading_it(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:       # sparse: costs no disk and no time
        handle.truncate(200 * 1024 * 1024)
    _, findings = check_json(str(big), *with_good_file(tmp_path), timeout_budget=20)
    big_findings = [f for f in findings if f["file"].endswith("big.yaml")]
    assert [f["code"] for f in big_findings] == ["KQ003"]
    assert "over the limit of 33,554,432" in big_findings[0]["message"]
    assert_good_file_checked(findings)


def test_file_over_a_configured_size_is_refused(tmp_path):
    (tmp_path / ".kueuelint.yaml").write_text("max-file-bytes: 100\n")
    (tmp_path / "f.yaml").write_text(GOOD * 3)
    _, findings = check_json("--config", str(tmp_path / ".kueuelint.yaml"), str(tmp_path / "f.yaml"))
    assert [f["code"] for f in findings] == ["KQ003"]


def test_1_mb_single_line_is_read(tmp_path):
    value = "x" * (1 << 20)
    (tmp_path / "long.yaml").write_text(GOOD + f"  annotations: {{note: {value}}}\n  labels: {{a: yes}}\n")
    _, findings = check_json(str(tmp_path / "long.yaml"), timeout_budget=30)
    assert codes_at(findings, "long.yaml") == [("KQ007", 6)]


def test_a_million_tiny_documents_are_cut_at_the_document_limit(tmp_path):
    (tmp_path / "many.yaml").write_text("---\na: 1\n" * 1_000_000)
    _, findings = check_json(str(tmp_path / "many.yaml"), *with_good_file(tmp_path), timeout_budget=60)
    many = [f for f in findings if f["file"].endswith("many.yaml")]
    assert [(f["code"], f["line"]) for f in many] == [("KQ003", 200_002)]
    assert "more than 100,000 documents" in many[0]["message"]
    assert_good_file_checked(findings)


def test_binary_invalid_utf8_and_utf16(tmp_path):
    (tmp_path / "bin.yaml").write_bytes(bytes(range(256)) * 20)
    (tmp_path / "latin1.yaml").write_bytes(b"a: 1\nb: caf\xe9\n")
    (tmp_path / "utf16.yaml").write_bytes(("\ufeff" + GOOD + "  labels: {x: on}\n").encode("utf-16-le"))
    _, findings = check_json(str(tmp_path), timeout_budget=30)
    assert codes_at(findings, "bin.yaml") == [("KQ004", 1)]
    assert codes_at(findings, "latin1.yaml") == [("KQ004", 2)]
    assert next(f["column"] for f in findings if f["file"].endswith("latin1.yaml")) == 7
    assert codes_at(findings, "utf16.yaml") == [("KQ007", 5)]


def test_symlink_loops_fifos_and_directories_named_like_files(tmp_path):
    os.symlink("loop-b.yaml", tmp_path / "loop-a.yaml")
    os.symlink("loop-a.yaml", tmp_path / "loop-b.yaml")
    os.symlink(".", tmp_path / "self")               # a directory loop
    os.mkfifo(tmp_path / "pipe.yaml")                # reading it would block forever
    (tmp_path / "dir.yaml").mkdir()
    (tmp_path / "dir.yaml" / "inner.yaml").write_text(GOOD + "  labels: {x: off}\n")
    with_good_file(tmp_path)
    _, findings = check_json(str(tmp_path), str(tmp_path / "pipe.yaml"), timeout_budget=30)
    assert [c for c, _ in codes_at(findings, "loop-a.yaml")] == ["KQ003"]
    assert [c for c, _ in codes_at(findings, "pipe.yaml")] == ["KQ003"]
    assert codes_at(findings, "inner.yaml") == [("KQ007", 5)]   # walked as the folder it is
    assert_good_file_checked(findings)


def _without_read_override() -> list[str] | None:
    """A prefix that runs a command without the power to read any file, or None."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    probe = subprocess.run([setpriv, "--inh-caps=-dac_override,-dac_read_search",
                            "--bounding-set=-dac_override,-dac_read_search", "true"], capture_output=True)
    return None if probe.returncode else [setpriv, "--inh-caps=-dac_override,-dac_read_search",
                                          "--bounding-set=-dac_override,-dac_read_search"]


def test_unreadable_file_is_a_finding_and_the_rest_is_checked(tmp_path):
    prefix = _without_read_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: every file is readable")
    secret = tmp_path / "secret.yaml"
    secret.write_text(GOOD)
    secret.chmod(0)
    with_good_file(tmp_path)
    env = {**os.environ, "KUEUELINT_NO_CACHE": "1"}
    proc = subprocess.run([*prefix, sys.executable, "-m", "kueuelint", "check", "--format", "json",
                           str(tmp_path)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    secret_findings = [f for f in findings if f["file"].endswith("secret.yaml")]
    assert [f["code"] for f in secret_findings] == ["KQ003"]
    assert "Permission denied" in secret_findings[0]["message"]
    assert_good_file_checked(findings)


def test_python_tags_are_findings_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / "evil.yaml").write_text(
        f"!!python/object/apply:os.system ['touch {marker}']\n---\n"
        f"a: !!python/object/apply:subprocess.call [['touch', '{marker}']]\n")
    _, findings = check_json(str(tmp_path / "evil.yaml"))
    assert [c for c, _ in codes_at(findings, "evil.yaml")] == ["KQ005", "KQ005"]
    assert not marker.exists()


def test_python_rules_in_the_scanned_tree_are_not_loaded(tmp_path):
    marker = tmp_path / "pwned"
    rules = tmp_path / "policies"
    rules.mkdir()
    (rules / "KQ980-evil.yaml").write_text(
        "code: KQ980\nname: evil\nseverity: error\nsummary: x\nkinds: [ConfigMap]\n"
        "implementation: python\npython: evil:check\ndocs: {what: x}\n")
    (rules / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef check(obj, ctx):\n    return []\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    proc = run_cli("check", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not marker.exists()


def test_a_finding_on_a_1_mb_line_shows_only_the_part_around_it(tmp_path):
    value = "x" * (1 << 20)
    (tmp_path / "long.yaml").write_text(GOOD + f"data: {{a: {value}, b: yes}}\n")
    proc = run_cli("check", str(tmp_path / "long.yaml"))
    line, caret = proc.stdout.splitlines()[1:3]
    assert len(line) < 300 and line.endswith("b: yes}")
    assert line[caret.index("^"):].startswith("yes")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_file_names_that_are_not_utf8_in_every_format(tmp_path, fmt):
    # found by hand: SARIF, and text/github written with -o, raised UnicodeEncodeError
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"caf\xe9.yaml"), "wb") as handle:
        handle.write(b"a: [\n")
    (tmp_path / "ok.yaml").write_text(GOOD + "data: {a: on}\n")
    to_stdout = run_cli("check", "--format", fmt, ".", cwd=tmp_path)
    to_file = run_cli("check", "--format", fmt, "-o", str(tmp_path / "report.out"), ".", cwd=tmp_path)
    for proc in (to_stdout, to_file):
        assert proc.returncode == 1 and "UnicodeEncodeError" not in proc.stderr + proc.stdout, proc.stderr
    assert "caf" in (tmp_path / "report.out").read_text(encoding="utf-8")


def test_an_ascii_only_terminal_gets_escapes_not_a_crash(tmp_path):
    (tmp_path / "ünï.yaml").write_text(GOOD + "data: {a: on, b: \"…\"}\n", encoding="utf-8")
    proc = run_cli("check", str(tmp_path), env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0 and "UnicodeEncodeError" not in proc.stdout + proc.stderr
    assert "KQ007" in proc.stdout


def test_a_dense_32_mb_file_is_refused_before_libyaml_builds_it(tmp_path):
    # found by hand: 16 million nodes under the size limit took over 5 minutes and 3 GB
    (tmp_path / "dense.yaml").write_text("a: [" + "1," * (16 * 1024 * 1024 - 10) + "1]\n")
    _, findings = check_json(str(tmp_path / "dense.yaml"), *with_good_file(tmp_path), timeout_budget=60)
    dense = [f for f in findings if f["file"].endswith("dense.yaml")]
    assert [f["code"] for f in dense] == ["KQ006"] and "over the limit of 4,000,000" in dense[0]["message"]
    assert_good_file_checked(findings)


def test_standard_input_is_bounded_too():
    proc = run_cli("check", "--format", "json", "-", stdin="a" * (33 * 1024 * 1024))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert [(f["file"], f["code"]) for f in findings] == [("<stdin>", "KQ003")]
    assert "input is over the limit of 33,554,432 bytes" in findings[0]["message"]
