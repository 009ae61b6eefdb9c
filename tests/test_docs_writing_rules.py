"""docs/writing-rules.md is executed: its files make a project of user rules and its console
blocks are run in it, so an example that stops working fails here."""

from __future__ import annotations

import re
import shlex

import pytest

from conftest import REPO, run_cli

DOC = REPO / "docs" / "writing-rules.md"
BLOCK = re.compile(r"^```(\w+)(?: file=(\S+))?\n(.*?)^```$", re.MULTILINE | re.DOTALL)
TIMING = re.compile(r" in \d+\.\d+s")


def _blocks():
    return [(lang, path, body) for lang, path, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))]


def _files():
    return [(path, body) for _, path, body in _blocks() if path]


def _sessions():
    found = []
    for lang, _, body in _blocks():
        if lang == "console":
            command, *output = body.splitlines()
            assert command.startswith("$ kueuelint "), command
            found.append((shlex.split(command[2:])[1:], "\n".join(output) + "\n"))
    return found


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("doc-project")
    for path, body in _files():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return root


def test_the_doc_defines_rules_fixtures_and_runs():
    paths = [path for path, _ in _files()]
    assert ".kueuelint.yaml" in paths and any(p.endswith(".py") for p in paths)
    assert any("/KQ950/fail" in p for p in paths) and any("/KQ950/pass" in p for p in paths)
    assert len(_sessions()) >= 2


@pytest.mark.parametrize("args,expected", _sessions(), ids=lambda value: " ".join(value)[:40]
                         if isinstance(value, list) else "")
def test_each_console_example_prints_what_the_doc_shows(project, args, expected):
    proc = run_cli(*args, cwd=project)
    assert "KQ009" not in proc.stdout, proc.stdout               # no example rule is broken
    assert TIMING.sub("", proc.stdout) == expected, proc.stdout + proc.stderr


def test_every_rule_of_the_doc_is_listed_and_explained(project):
    codes = sorted({re.match(r"policies/(KQ\d{3})-", p).group(1) for p, _ in _files()
                    if re.match(r"policies/KQ\d{3}-.*\.yaml$", p)})
    assert codes == ["KQ950", "KQ951", "KQ952", "KQ960"]
    listed = run_cli("rules", cwd=project).stdout
    for code in codes:
        assert re.search(rf"^{code}  ", listed, re.MULTILINE), code
        explained = run_cli("explain", code, cwd=project)
        assert explained.returncode == 0 and explained.stdout.startswith(code), explained.stderr
