"""--fix adds structure in the file's own style: a label map that does not exist yet, a field in
a nested block, a list entry; and nothing else in the file changes."""

from __future__ import annotations

import pytest
import yaml

from conftest import REPO, run_cli
from kueuelint.fix.edits import CannotFix, append_item, apply_edits, child, put_entry

ANNOTATED = "  annotations:\n    kueue.x-k8s.io/queue-name: q\n    owner: ml\n"


def _job(metadata_extra: str, newline: str = "\n") -> str:
    text = f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n{metadata_extra}{ANNOTATED}spec: {{}}\n"
    return text.replace("\n", newline)


@pytest.mark.parametrize("labels,fixed", [
    ("", "  labels:\n    kueue.x-k8s.io/queue-name: \"q\"\n  name: j\n"),
    ("  labels:\n", "  name: j\n  labels:\n    kueue.x-k8s.io/queue-name: \"q\"\n"),
    ("  labels: ~\n", "  name: j\n  labels:\n    kueue.x-k8s.io/queue-name: \"q\"\n"),
    ("  labels: {}\n", "  name: j\n  labels: {kueue.x-k8s.io/queue-name: \"q\"}\n"),
    ("  labels: {team: a}\n", "  name: j\n  labels: {kueue.x-k8s.io/queue-name: \"q\", team: a}\n"),
    ("  labels:\n    team: a\n", "  name: j\n  labels:\n    kueue.x-k8s.io/queue-name: \"q\"\n    team: a\n"),
])
def test_the_queue_label_goes_into_whatever_labels_there_are(tmp_path, labels, fixed):
    target = tmp_path / "job.yaml"
    target.write_text(_job(labels))
    proc = run_cli("check", "--fix", "--select", "KQ201", "job.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = f"apiVersion: batch/v1\nkind: Job\nmetadata:\n{fixed}  annotations:\n    owner: ml\nspec: {{}}\n"
    assert target.read_text() == expected


def test_added_lines_keep_the_files_line_endings_and_indentation(tmp_path):
    target = tmp_path / "job.yaml"
    text = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n    name: j\n    annotations:\n"
            "        kueue.x-k8s.io/queue-name: q\n        owner: ml\nspec: {}\n")
    target.write_bytes(text.replace("\n", "\r\n").encode())
    proc = run_cli("check", "--fix", "--select", "KQ201", "job.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = target.read_bytes().decode()
    assert "\n" not in written.replace("\r\n", "")
    assert "metadata:\r\n    labels:\r\n        kueue.x-k8s.io/queue-name: \"q\"\r\n    name: j\r\n" in written


def test_a_field_goes_into_a_nested_block(tmp_path):
    target = tmp_path / "rayjob.yaml"
    target.write_text("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n"
                      "  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n  entrypoint: python x.py\n"
                      "  rayClusterSpec:\n    headGroupSpec: {template: {spec: {containers: []}}}\n")
    proc = run_cli("check", "--fix", "--select", "KQ630", "rayjob.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "\nspec:\n  shutdownAfterJobFinishes: true\n  entrypoint: python x.py\n" in target.read_text()


def _node(text: str):
    return yaml.compose(text)


def test_put_entry_creates_every_missing_level():
    text = "kind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"
    edit = put_entry(text, _node(text), ("metadata", "labels", "team"), "ml")
    new = apply_edits(text, [edit])
    assert new == "kind: ConfigMap\nmetadata:\n  labels:\n    team: ml\n  name: c\ndata:\n  a: b\n"
    inner = put_entry(text, _node(text), ("spec", "template", "replicas"), "2")
    assert yaml.safe_load(apply_edits(text, [inner]))["spec"] == {"template": {"replicas": 2}}


def test_put_entry_in_flow_style_stays_flow():
    text = "metadata: {name: c}\n"
    new = apply_edits(text, [put_entry(text, _node(text), ("metadata", "labels", "team"), "ml")])
    assert new == "metadata: {labels: {team: ml}, name: c}\n"


def test_append_item_to_a_real_cluster_queue():
    """A new flavor in the resource group of the bundled example's ClusterQueue, block and flow."""
    path = REPO / "fixtures" / "fix" / "before.yaml"
    text = path.read_text()
    documents = list(yaml.compose_all(text))
    group = child(child(documents[0], "spec")[1], "resourceGroups")[1].value[0]
    flavors = child(group, "flavors")[1]
    added = apply_edits(text, [append_item(text, flavors, "{name: spot, resources: [{name: cpu, nominalQuota: 2}]}")])
    data = list(yaml.safe_load_all(added))[0]
    assert [f["name"] for f in data["spec"]["resourceGroups"][0]["flavors"]] == ["default", "spot"]
    assert added.replace("    - {name: spot, resources: [{name: cpu, nominalQuota: 2}]}\n", "", 1) == text
    covered = child(group, "coveredResources")[1]
    more = apply_edits(text, [append_item(text, covered, '"memory"')])
    assert 'coveredResources: ["cpu", "memory"]' in more
    assert more.replace(', "memory"', "", 1) == text


def test_append_item_refuses_what_it_cannot_place():
    text = "items: []\nother: x\n"
    with pytest.raises(CannotFix):
        append_item(text, child(_node(text), "items")[1], "a")
    with pytest.raises(CannotFix):
        append_item(text, child(_node(text), "other")[1], "a")


def test_fixes_of_every_bundled_manifest_change_only_the_lines_they_fix():
    """Over the example repository, the fix fixtures and every rule fixture: each planned fix
    leaves every line it does not edit byte-for-byte as it was (bench/fix_fidelity.py
    measures the same over the corpus, against a ruamel.yaml round trip)."""
    import difflib

    from kueuelint import pipeline
    from kueuelint.config import Config
    from kueuelint.fix.apply import plan_fixes

    config = Config()
    paths = [str(REPO / "fixtures"), str(REPO / "rules")]
    findings = pipeline.run_check(paths, config, pipeline.load_rules(config)).findings
    plans, _ = plan_fixes(findings)
    assert {f.code for plan in plans for f, _ in plan.edits} == {"KQ101", "KQ102", "KQ201", "KQ630"}
    for plan in plans:
        edits = [edit for _, planned in plan.edits for edit in planned]
        touched = set()
        for edit in edits:
            first = plan.text.count("\n", 0, edit.start)
            touched.update(range(first, plan.text.count("\n", 0, max(edit.start, edit.end - 1)) + 1))
        old, new = plan.text.splitlines(keepends=True), plan.new_text.splitlines(keepends=True)
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag != "equal":
                assert set(range(i1, i2)) <= touched or (i1 == i2 and i1 in touched | {i + 1 for i in touched}), \
                    (plan.path, tag, i1, i2)
