"""Loading: values, positions, multi-document files, lists, and bad input as data."""

from __future__ import annotations

import os

import pytest

from kueuelint.load.discover import Target, expand, read_target
from kueuelint.load.limits import Limits
from kueuelint.load.source import SourceFile, parse_text


def parse(text: str, limits: Limits = Limits()):
    return parse_text(SourceFile("t.yaml", text), limits)


def test_values_follow_the_api_servers_yaml_reading():
    loaded = parse("a: on\nb: 012\nc: 2024-01-02\nd: '5'\ne: 1.5\nf: ~\ng: 0x1f\n")
    assert loaded.documents[0].data == {"a": True, "b": 10, "c": "2024-01-02", "d": "5",
                                        "e": 1.5, "f": None, "g": 31}


def test_positions_of_keys_and_values():
    text = "kind: Job\nspec:\n  template:\n    spec:\n      containers:\n        - name: a\n          image: x\n"
    doc = parse(text).documents[0]
    loc = doc.locate(("spec", "template", "spec", "containers", 0, "image"))
    assert (loc.line, loc.column) == (7, 11)
    value = doc.locate(("spec", "template", "spec", "containers", 0, "image"), at_value=True)
    assert (value.line, value.column) == (7, 18)


def test_missing_path_points_at_nearest_existing_ancestor():
    doc = parse("kind: Job\nspec:\n  parallelism: 2\n").documents[0]
    loc = doc.locate(("spec", "template", "spec"))
    assert loc.line == 2


def test_multi_document_skips_empty_and_expands_lists():
    text = ("---\n---\nkind: A\n---\napiVersion: v1\nkind: List\nitems:\n"
            "  - kind: B\n    metadata: {name: b}\n  - kind: C\n")
    docs = parse(text).documents
    assert [d.data["kind"] for d in docs] == ["A", "B", "C"]
    assert [d.line for d in docs] == [3, 8, 10]


def test_positions_of_list_items_and_documents_before_a_syntax_error():
    # node trees are composed again when a position is first asked for: same nodes, same places
    text = ("kind: A\n---\nkind: List\nitems:\n  - kind: B\n  - null\n  - kind: C\n"
            "    spec: {x: 1}\n---\nkind: D\nbad: [1, 2\n")
    loaded = parse(text)
    assert [p.kind for p in loaded.problems] == ["syntax"]
    a, b, c = loaded.documents
    assert (a.locate(("kind",)).line, b.locate(("kind",)).line) == (1, 5)
    assert (c.locate(("spec", "x"), at_value=True).line, c.locate(("spec", "x")).column) == (8, 12)


def test_typed_list_kind_is_expanded():
    docs = parse("kind: ConfigMapList\nitems:\n- kind: ConfigMap\n").documents
    assert docs[0].data == {"kind": "ConfigMap"}


def test_syntax_error_is_a_problem_with_position():
    loaded = parse("a: 1\nb: [1, 2\nc: 3\n")
    assert [p.kind for p in loaded.problems] == ["syntax"]
    assert loaded.problems[0].line == 3


def test_duplicate_and_non_string_keys_are_reported():
    loaded = parse("a: 1\na: 2\n? [x]\n: y\n")
    kinds = sorted(p.kind for p in loaded.problems)
    assert kinds == ["duplicate-key", "non-string-key"]
    assert loaded.documents[0].data["a"] == 2


def test_alias_bomb_is_refused_quickly():
    lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i-1}"] * 9) + "]" for i in range(1, 12)]
    loaded = parse("\n".join(lines))
    assert [p.kind for p in loaded.problems] == ["alias-limit"]
    assert loaded.documents == []


def test_shared_aliases_still_work():
    loaded = parse("a: &x {k: v}\nb: *x\nc: {<<: *x, z: 1}\n")
    assert loaded.documents[0].data == {"a": {"k": "v"}, "b": {"k": "v"}, "c": {"k": "v", "z": 1}}


def test_deep_flow_nesting_does_not_crash_libyaml():
    loaded = parse("[" * 100_000 + "]" * 100_000)
    assert [p.kind for p in loaded.problems] == ["depth-limit"]


def test_deep_block_nesting_is_bounded():
    text = "".join(" " * i + "- \n" for i in range(0, 600))
    loaded = parse(text)
    assert [p.kind for p in loaded.problems] == ["depth-limit"]


def test_unsafe_tags_are_read_as_plain_data():
    loaded = parse("a: !!python/object/apply:os.system ['true']\n")
    assert loaded.documents[0].data == {"a": ["true"]}
    assert loaded.problems[0].kind == "unsafe-tag"


def test_document_limit(tmp_path):
    loaded = parse("---\na: 1\n" * 10, Limits(max_documents=3))
    assert len(loaded.documents) == 3
    assert loaded.problems[0].kind == "document-limit"


def read(path, limits=Limits()):
    return read_target(Target(str(path), True), limits)


def test_invalid_utf8_reports_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    problem = read(path).problems[0]
    assert (problem.kind, problem.line, problem.column) == ("encoding", 2, 7)


def test_utf16_with_bom_is_decoded(tmp_path):
    path = tmp_path / "u16.yaml"
    path.write_bytes("kind: Job\n".encode("utf-16"))
    assert read(path).documents[0].data == {"kind": "Job"}


def test_binary_and_oversized_files(tmp_path):
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01\x02")
    (tmp_path / "big.yaml").write_text("a: " + "x" * 100 + "\n")
    assert read(tmp_path / "bin.yaml").problems[0].kind == "binary-file"
    assert read(tmp_path / "big.yaml", Limits(max_file_bytes=50)).problems[0].kind == "file-too-large"


def test_directory_fifo_and_missing_paths(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert read(fifo).problems[0].kind == "unreadable"
    assert read(tmp_path).problems[0].kind == "unreadable"
    _, problems = expand([str(tmp_path / "nope.yaml")])
    assert problems[0].kind == "missing-path"


def test_directory_walk_is_sorted_skips_hidden_and_survives_symlink_loops(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.yaml").write_text("a: 1\n")
    (tmp_path / "a.yml").write_text("a: 1\n")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.yaml").write_text("a: 1\n")
    os.symlink(tmp_path, tmp_path / "b" / "loop")
    targets, problems = expand([str(tmp_path)])
    assert [os.path.relpath(t.path, tmp_path) for t in targets] == ["a.yml", "b/x.yaml"]
    assert problems == []


def test_directory_walk_leaves_a_helm_charts_templates_alone(tmp_path):
    chart = tmp_path / "chart"
    (chart / "templates" / "tests").mkdir(parents=True)
    (chart / "crds").mkdir()
    for name in ("Chart.yaml", "values.yaml", "templates/job.yaml", "templates/tests/t.yaml", "crds/c.yaml"):
        (chart / name).write_text("{{- if .Values.job }}\nkind: Job\n{{- end }}\n")
    (tmp_path / "templates").mkdir()                  # no Chart.yaml beside it: plain manifests
    (tmp_path / "templates" / "job.yaml").write_text("kind: Job\n")
    targets, _ = expand([str(tmp_path)])
    assert [os.path.relpath(t.path, tmp_path) for t in targets] == [
        "chart/Chart.yaml", "chart/crds/c.yaml", "chart/values.yaml", "templates/job.yaml"]
    named, _ = expand([str(chart / "templates" / "job.yaml")])
    assert read_target(named[0], Limits()).problems[0].kind == "syntax"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.yaml"
    path.write_text("a: 1\n")
    path.chmod(0)
    assert read(path).problems[0].kind == "unreadable"


def test_kueue_objects_have_typed_views():
    from kueuelint.identify.objects import identify
    from kueuelint.models import typed_view

    text = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\n"
            "spec:\n  cohortName: research\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
            "metadata:\n  name: bad\nspec:\n  cohort: research\n---\napiVersion: batch/v1\nkind: Job\n")
    good, bad, job = (identify(doc) for doc in parse(text).documents)
    assert typed_view(good).spec.cohort_name == "research"
    assert typed_view(bad) is None  # does not validate: the schema rule says why
    assert typed_view(job) is None  # no model for batch/v1


def test_a_file_that_grew_after_stat_is_still_read_up_to_the_limit(tmp_path):
    from kueuelint.load.discover import _read_bounded

    path = tmp_path / "growing.yaml"
    path.write_bytes(b"x" * 100)
    with open(path, "rb") as handle:      # stat said 10 bytes; the file has 100 by now
        assert _read_bounded(handle, 10, 51) == b"x" * 51
    with open(path, "rb") as handle:
        assert _read_bounded(handle, 100, 1000) == b"x" * 100
    with open(path, "rb") as handle:      # it shrank: what is there
        assert _read_bounded(handle, 500, 1000) == b"x" * 100
