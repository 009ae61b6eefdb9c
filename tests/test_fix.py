"""--fix: local, verified edits; files are untouched unless a fix applies cleanly."""

from __future__ import annotations

import os
import shutil

from conftest import CORPUS, REPO

FIXTURES = REPO / "fixtures" / "fix"


def test_fixes_are_local_edits(cli, tmp_path):
    target = tmp_path / "queues.yaml"
    shutil.copy(FIXTURES / "before.yaml", target)
    os.chmod(target, 0o640)
    proc = cli("check", "--fix", str(target))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert target.read_text() == (FIXTURES / "after.yaml").read_text()
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert "Fixed 3 findings in 1 file." in proc.stderr


def test_without_fix_nothing_is_written(cli, tmp_path):
    target = tmp_path / "queues.yaml"
    shutil.copy(FIXTURES / "before.yaml", target)
    assert cli("check", str(target)).returncode == 1
    assert target.read_text() == (FIXTURES / "before.yaml").read_text()


def test_flow_style_is_left_alone_with_a_reason(cli, tmp_path):
    target = tmp_path / "job.yaml"
    text = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, annotations: "
            "{kueue.x-k8s.io/queue-name: q}}\n")
    target.write_text(text)
    proc = cli("check", "--fix", str(target))
    assert proc.returncode == 1
    assert target.read_text() == text
    assert "not fixed" in proc.stderr and "KQ201" in proc.stderr


def test_stdin_is_never_rewritten(cli):
    proc = cli("check", "--fix", "-", stdin="apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\n"
                                              "metadata:\n  name: f\n")
    assert "standard input cannot be fixed" in proc.stderr


def test_fixing_the_corpus_keeps_every_file_valid_and_changes_only_fixed_lines(cli, tmp_path):
    tree = tmp_path / "corpus"
    shutil.copytree(CORPUS, tree)
    before = {p: p.read_text() for p in tree.rglob("*.yaml")}
    proc = cli("check", "--fix", "--exit-zero", "-q", str(tree))
    assert proc.returncode == 0, proc.stderr
    changed = [p for p, text in before.items() if p.read_text() != text]
    for path in changed:
        old, new = before[path].splitlines(), path.read_text().splitlines()
        assert abs(len(old) - len(new)) <= 4, path
    after = cli("check", "--select", "KQ102,KQ201,KQ630", "--format", "json", str(tree))
    assert '"code": "KQ102"' not in after.stdout
