"""The mutation fuzzer over the real corpora (tests/data/corpus and the real-repository corpus
tests/data/realrepos), with a fixed seed: what CI runs on every push.

bench/fuzz.py mutates corpus files (byte flips, truncation, duplicated and shuffled documents,
type swaps, values at limits, splices, hostile YAML) and runs each case through
``kueuelint.pipeline`` in this process.  The long local run is ``bench/fuzz --cases 100000``.
"""

from __future__ import annotations

import os
import random
import sys

import pytest

from conftest import CORPUS, DATA, REPO

sys.path.insert(0, str(REPO / "bench"))
import fuzz  # noqa: E402  (bench/ is not a package)

CASES = int(os.environ.get("KUEUELINT_FUZZ_CASES", "3000"))
SEED = 20261122


@pytest.mark.slow
def test_fixed_seed_mutation_fuzz_finds_nothing():
    summary = fuzz.fuzz(CASES, SEED, (CORPUS, DATA / "realrepos"), max_seconds=110)
    described = [f"case {f.case} ({f.source}; {', '.join(f.mutations)}): {f.problem}" for f in summary.failures]
    assert described == []
    assert summary.cases >= min(CASES, 1500), f"only {summary.cases} cases in {summary.seconds:.0f} s"
    assert summary.findings > summary.cases // 2     # the mutations really do break things


def test_the_same_seed_makes_the_same_cases():
    corpus = fuzz.corpus_files(CORPUS)
    first = [fuzz.mutate(random.Random(5), corpus[n][1], corpus) for n in range(20)]
    again = [fuzz.mutate(random.Random(5), corpus[n][1], corpus) for n in range(20)]
    assert first == again


def test_every_mutation_returns_bytes():
    rng = random.Random(1)
    corpus = [("a.yaml", b"apiVersion: v1\nkind: ConfigMap\n---\nmetadata: {name: a}\n")]
    for mutation in fuzz.MUTATIONS:
        for data in (b"", b"a: 1\n", corpus[0][1]):
            assert isinstance(mutation(rng, data, corpus), bytes), mutation.__name__


def test_the_fuzzer_notices_a_wrong_location(tmp_path):
    from kueuelint.findings import Finding, Location, RunResult, Severity

    path = str(tmp_path / "a.yaml")
    finding = Finding("KQ001", "x", Severity.ERROR, "m", Location(path, 3, 1))
    assert fuzz.location_problems(RunResult([finding]), {path: b"a: 1\n"}) != []
    assert fuzz.location_problems(RunResult([finding]), {path: b"a\nb\nc\n"}) == []
    past_the_end = Finding("KQ901", "x", Severity.ERROR, "m", Location(path, 2, 1, 4, 1))
    assert fuzz.location_problems(RunResult([past_the_end]), {path: b"a\nb\nc\n"}) != []
    backwards = Finding("KQ901", "x", Severity.ERROR, "m", Location(path, 2, 5, 2, 3))
    assert fuzz.location_problems(RunResult([backwards]), {path: b"a\nb: 12345\nc\n"}) != []
    past_the_line = Finding("KQ901", "x", Severity.ERROR, "m", Location(path, 1, 2, 1, 9))
    assert fuzz.location_problems(RunResult([past_the_line]), {path: b"a: 1\n"}) != []
    assert fuzz.location_problems(RunResult([past_the_line]), {path: b"a: 12345\n"}) == []
