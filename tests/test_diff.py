"""`kueuelint diff OLD NEW`: update-only checks (immutable fields, CEL transition rules)."""

from __future__ import annotations

import json

from conftest import SHARED

OLD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: q
  namespace: a
spec:
  clusterQueue: cq-1
"""


def test_changed_immutable_field_is_reported_in_new(cli, tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(OLD.replace("cq-1", "cq-2"))
    proc = cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    finding = json.loads(proc.stdout)["findings"][0]
    assert (finding["line"], finding["fieldPath"]) == (7, "spec.clusterQueue")
    assert "immutable" in finding["message"]


def test_crd_transition_rules_judge_when_given(cli, tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(OLD.replace("cq-1", "cq-2"))
    proc = cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
               "--crd", str(SHARED / "kueue-crds"))
    assert proc.returncode == 1
    assert "KQ112" in proc.stdout and "localqueues.kueue.x-k8s.io" in proc.stdout


def test_unchanged_and_unpaired_objects_pass(cli, tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(OLD + "---\n" + OLD.replace("name: q", "name: other"))
    proc = cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"))
    assert proc.returncode == 0, proc.stdout
