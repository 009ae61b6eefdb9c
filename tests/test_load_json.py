"""JSON files are decoded by the json module: the same objects and lines as the YAML reader
gives for the same text, and the YAML reader still takes whatever is not plain JSON."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers_load import CORPUS
from kueuelint.load import source as source_module
from kueuelint.load.limits import Limits
from kueuelint.load.source import LoadedFile, SourceFile, parse_text

CORPUS_FILES = sorted(glob.glob(os.path.join(CORPUS, "kueue", "site", "static", "examples", "**", "*.yaml"),
                             recursive=True))


def read_json(text: str, is_context: bool = False) -> LoadedFile:
    return parse_text(SourceFile("f.json", text, is_context=is_context), Limits())


def read_as_yaml(text: str) -> LoadedFile:
    loaded = LoadedFile(SourceFile("f.json", text))
    source_module._compose_all(loaded, Limits())
    return loaded


def summary(loaded: LoadedFile) -> list:
    return [(d.data, d.line, d.item) for d in loaded.documents]


def corpus_objects() -> list[dict]:
    objects = []
    for path in CORPUS_FILES:
        with open(path, encoding="utf-8") as handle:
            loaded = parse_text(SourceFile(path, handle.read()), Limits())
        if not loaded.problems:
            objects += [d.data for d in loaded.documents]
    return objects


@pytest.mark.parametrize("indent", [None, 2, 4])
def test_corpus_as_a_json_list_reads_as_the_yaml_reader_reads_it(indent):
    objects = corpus_objects()
    assert len(objects) > 50
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects + [None]}, indent=indent)
    fast = read_json(text)
    assert not fast.problems
    assert summary(fast) == summary(read_as_yaml(text))
    assert [d.data for d in fast.documents] == objects


def test_one_object_per_file_reads_as_the_yaml_reader_reads_it():
    for data in corpus_objects()[:40]:
        text = "\n\n" + json.dumps(data, indent=2) + "\n"
        assert summary(read_json(text)) == summary(read_as_yaml(text)) == [(data, 3, None)]


def test_lines_count_every_line_break_yaml_counts():
    items = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"},
              "data": {"k": "a\u2028b\x85c"}} for i in range(3)]
    text = json.dumps({"kind": "List", "items": items}, indent=1, ensure_ascii=False).replace("\n", "\r\n")
    fast = read_json(text)
    assert [d.line for d in fast.documents] == [d.line for d in read_as_yaml(text).documents]
    # Inside a JSON string these are characters, not line breaks to fold as YAML would.
    assert [d.data for d in fast.documents] == items


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}',                                  # duplicate key: YAML reports where
    '{"kind": "X", "spec": {"b": 1, "b": 2}}',
    '{"kind": "X", "n": NaN}',                           # not JSON; plain text to YAML
    '{a: 1, b: [x, y]}',                                 # a YAML flow mapping
    '{"kind": "X", "n": }',                              # a syntax error, located by YAML
    '{"kind": "X"} {"kind": "Y"}',
    '[1, 2',
])
def test_what_is_not_plain_json_is_read_by_the_yaml_reader(text):
    fast, slow = read_json(text), read_as_yaml(text)
    assert summary(fast) == summary(slow)
    assert [(p.kind, p.line, p.column) for p in fast.problems] == [(p.kind, p.line, p.column) for p in slow.problems]


def test_duplicate_keys_are_reported_in_checked_files_only():
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "b"}}'
    assert [p.kind for p in read_json(text).problems] == ["duplicate-key"]
    assert read_json(text, is_context=True).documents[0].data["metadata"] == {"name": "b"}


def test_json_numbers_keep_their_json_meaning():
    # The API server reads JSON as JSON: 1e3 is a number there, though YAML 1.1 reads it as text.
    loaded = read_json('{"apiVersion": "v1", "kind": "X", "n": 1e3, "big": 12345678901234567890}')
    assert loaded.documents[0].data["n"] == 1000.0
    assert loaded.documents[0].data["big"] == 12345678901234567890


def test_deep_json_is_refused_like_deep_yaml():
    text = "[" * 300 + "]" * 300
    assert [p.kind for p in read_json(text).problems] == ["depth-limit"]


def test_a_finding_in_a_json_manifest_points_at_its_line(tmp_path):
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
           "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
               {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "lots"}}}]}}}}
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [job]}, indent=2))
    proc = subprocess.run([sys.executable, "-m", "kueuelint", "check", "--format", "json", str(path)],
                          capture_output=True, text=True, check=False)
    findings = json.loads(proc.stdout)["findings"]
    cpu_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if '"lots"' in line)
    assert any(f["line"] == cpu_line and "lots" in f["message"] for f in findings), findings


def exact_nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}" and depth:
            depth -= 1
    return deepest


@given(st.text(alphabet="[]{}x\"", max_size=300), st.integers(min_value=0, max_value=40))
def test_the_quick_nesting_bound_never_lets_deep_text_through(text, limit):
    over = source_module._flow_nesting_over(text, limit)
    assert (over is not None) == (exact_nesting(text) > limit)


def test_mutated_json_never_raises_and_loses_no_other_file():
    import random

    rng = random.Random(7)
    texts = [json.dumps(data, indent=rng.choice([None, 2])) for data in corpus_objects()[:60]]
    for case in range(600):
        text = list(rng.choice(texts))
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(text))
            choice = rng.random()
            if choice < 0.4:
                text[position] = rng.choice('{}[]",:\\ \n0aé\u2028')
            elif choice < 0.7:
                del text[position:position + rng.randint(1, 40)]
            else:
                text.insert(position, rng.choice(['"a": 1, "a": 2', "NaN", "[" * 300, "\r", "\t"]))
        loaded = read_json("".join(text))          # must not raise, whatever the text
        for problem in loaded.problems:
            assert problem.line >= 1 and problem.column >= 1, (case, problem)
        for document in loaded.documents:
            assert document.line >= 1 and document.locate(("metadata", "name")).line >= 1
