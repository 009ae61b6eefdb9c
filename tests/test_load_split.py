"""A large kubectl List read by two processes gives what one reader gives, or is not cut."""

from __future__ import annotations

import pytest
import yaml

from helpers_fork import FAILURES, make_the_child_fail
from kueuelint.load import split
from kueuelint.load.discover import Target, read_target
from kueuelint.load.limits import Limits
from kueuelint.load.source import SourceFile, node_count_bound, parse_text
from test_admission_memo import _bench_generator

@pytest.fixture(autouse=True)
def small_files_are_cut_too(monkeypatch):
    monkeypatch.setattr(split, "MIN_SPLIT_BYTES", 1000)


def generated_objects(scale: float = 0.01) -> list[dict]:
    return _bench_generator()(scale, 3)


def kubectl_list(objects: list[dict]) -> str:
    """Laid out as kubectl writes it: apiVersion, items at column 0, then kind and metadata."""
    return yaml.safe_dump({"apiVersion": "v1", "items": objects, "kind": "List",
                           "metadata": {"resourceVersion": ""}}, sort_keys=False)


def with_surprises(text: str) -> str:
    """Problems late in the file: a YAML 1.1 boolean, a duplicate key, a null item."""
    lines = text.splitlines(keepends=True)
    late = max(i for i, line in enumerate(lines) if line.startswith("  metadata:"))
    lines.insert(late + 1, "    annotations: {flag: on, flag: off}\n")
    items_end = max(i for i, line in enumerate(lines) if line.startswith("kind: List"))
    lines.insert(items_end, "- null\n")
    return "".join(lines)


def summary(loaded) -> tuple[list, list]:
    return ([(d.data, d.line, d.item) for d in loaded.documents],
            [(p.kind, p.message, p.line, p.column) for p in loaded.problems])


def read_both_ways(text: str, limits: Limits = Limits(), is_context: bool = True):
    halves = split.read_in_two(SourceFile("snap.yaml", text, is_context=is_context), limits)
    return halves, parse_text(SourceFile("snap.yaml", text, is_context=is_context), limits)


@pytest.mark.parametrize("is_context", [True, False])
def test_two_processes_read_what_one_reads(is_context):
    text = with_surprises(kubectl_list(generated_objects()))
    halves, whole = read_both_ways(text, is_context=is_context)
    assert halves is not None
    assert summary(halves) == summary(whole)
    assert len(whole.documents) > 500 and {p.kind for p in whole.problems} >= {"duplicate-key", "yaml11-scalar"}
    late = halves.documents[-1]
    assert late.item == len(whole.documents) - 1 and late.source.text == text
    # a position inside a document of the second half: the whole file is composed again
    where = late.locate(("metadata", "name"))
    assert text.splitlines()[where.line - 1].strip() == f"name: {late.data['metadata']['name']}"


def test_items_listed_last_are_cut_as_well():
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": generated_objects()}, sort_keys=False)
    halves, whole = read_both_ways(text)
    assert halves is not None and summary(halves) == summary(whole)


@pytest.mark.parametrize("change", [
    lambda text: text.replace("name: cq1\n", "name: &anchor cq1\n", 1),          # aliases may cross
    lambda text: text + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    lambda text: text.replace("\n- ", "\n  - ").replace("items:\n", "items:\n"),  # not kubectl's layout
    lambda text: text.replace("items:", "things:"),
    lambda text: text[:500],
])
def test_files_not_surely_alike_in_halves_are_not_cut(change):
    text = change(kubectl_list(generated_objects()))
    assert split.read_in_two(SourceFile("snap.yaml", text), Limits()) is None


def test_a_second_items_key_is_read_as_one_reader_reads_it():
    """Found by fuzzing: a duplicate ``items:`` after the first sequence replaces it."""
    text = kubectl_list(generated_objects())
    text = text.replace("kind: List\n", "items:\n- apiVersion: v1\n  kind: ConfigMap\nkind: List\n")
    halves, whole = read_both_ways(text)
    assert len(whole.documents) == 1 and [p.kind for p in whole.problems] == ["duplicate-key"]
    assert halves is None or summary(halves) == summary(whole)


@pytest.mark.parametrize("bound", ["max_nodes", "max_file_nodes"])
def test_a_file_a_node_bound_would_refuse_is_not_cut(bound):
    text = kubectl_list(generated_objects())
    # over the bound as a whole, and not in halves (whose empty lines keep every line break)
    lines = text.count("\n")
    limit = lines + int((node_count_bound(text) - lines) * 0.8)
    limits = Limits(**{"max_nodes": 10**8, "max_file_nodes": 10**8, bound: limit})
    assert split.read_in_two(SourceFile("snap.yaml", text), limits) is None


@pytest.mark.parametrize("failure", ["syntax error late", *FAILURES])
def test_read_target_with_two_jobs_reads_like_one(failure, tmp_path, monkeypatch):
    text = kubectl_list(generated_objects())
    if failure == "syntax error late":
        at = text.rindex("  kind: Workload")
        text = text[:at] + "  kind: [Workload\n" + text[at + len("  kind: Workload\n"):]
    else:
        make_the_child_fail(monkeypatch, failure)
    path = tmp_path / "snap.yaml"
    path.write_text(text)
    one = read_target(Target(str(path), True), Limits(), is_context=True)
    two = read_target(Target(str(path), True), Limits(), is_context=True, jobs=2)
    assert summary(two) == summary(one)
    assert bool(one.problems) == (failure == "syntax error late")


SNIPPETS = ['- x\n', '"\n', "'\n", 'kind: X\n', '  a: "multi\n', 'line"\n', "- 'q\n", "b: 'c\n", '#c\n', '\n',
            '- null\n', '  - y\n', 'items:\n', '  z: on\n', '  z: {a: 1, a: 2}\n', '- [\n', ']\n', '  k: |\n',
            '    text\n', '-\n', '  m: &a x\n', '  n: *a\n', '---\n']


def test_mutated_lists_read_in_halves_as_one_reader_reads_them():
    import random

    rng = random.Random(11)
    base = kubectl_list(generated_objects(0.002)[:40]).splitlines(keepends=True)
    cut = 0
    for _ in range(200):
        lines = list(base)
        for _ in range(rng.randint(1, 2)):
            lines.insert(rng.randrange(len(lines)), rng.choice(SNIPPETS))
        halves, whole = read_both_ways("".join(lines))
        if halves is not None:
            cut += 1
            assert summary(halves) == summary(whole), "".join(lines)
    assert cut > 10
