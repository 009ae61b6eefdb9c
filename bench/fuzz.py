"""Mutation fuzzer: real manifests, damaged, through the whole pipeline in this process.

Each case takes a file of the corpora (``tests/data/corpus`` and the real-repository corpus
``tests/data/realrepos`` by default; ``--corpus`` names others), applies one to three
mutations (byte flips, truncation, duplicated or shuffled documents, swapped value types,
values at their limits, splices of other files, hostile YAML), writes it next to an intact
corpus file and runs ``kueuelint.pipeline.run_check`` on both.  A case fails when an
exception escapes, the run reports an internal error, a finding points outside the files of
the run (or at a column past the end of its line, or with a span that ends past the file or
before it starts), a reporter raises, or the case takes longer than 20 s.  Failing inputs
are saved (``--save DIR``) so they can become regression fixtures.

    python bench/fuzz.py --cases 3000 --seed 1        # what CI runs (tests/test_fuzz_corpus.py)
    bench/fuzz --cases 100000                         # the long local run
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPORA = (HERE.parent / "tests" / "data" / "corpus", HERE.parent / "tests" / "data" / "realrepos")
SUFFIXES = (".yaml", ".yml", ".json")

# Values a field might hold at or past its limits, and the shapes a type swap may take.
EDGE_VALUES = [
    "null", "~", "[]", "{}", '""', "0", "-1", "2147483648", "9223372036854775808",
    "-9223372036854775809", "1e400", "-.inf", ".nan", "0x7fffffff", "0755", "1:30", "yes", "NO",
    "true", "1Ei", "999999999999999999999Ki", "0.000000001m", "-5Gi", "1e-400", "\"\\u0000\"",
    "\"" + "a" * 300 + "\"", "!!binary aGVsbG8=", "!!python/object:os.system {}", "*undefined",
    "&a [*a]", "[[[[[[[[]]]]]]]]", "{a: {b: {c: {}}}}", "'\\ud800'", "\"\\t\\r\"", "|-\n  text",
    "!!float abc", "!!int \"\"", "!!bool maybe", "!!int 0b", "9" * 5000, "0x" + "f" * 900, "y",
]
HOSTILE = [
    "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b]\n"
    "d: [*c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d]\n",
    "[" * 300 + "]" * 300 + "\n",
    "- " * 3000 + "x\n",
    "? [a, b]\n: c\n",
    "%YAML 1.1\n--- !!map\nkind: !!python/name:os.system\n",
    "key: value\nkey: other\n",
    "apiVersion: v1\nkind: List\nitems: [1, null, [], {kind: Job}]\n",
    "\ufeffapiVersion: v1\n",
    "\t- tab\n",
    "--- |\n  literal\n--- >\n folded\n...\n",
]


@dataclass
class Failure:
    case: int
    source: str
    mutations: list[str]
    problem: str
    data: bytes = field(repr=False, default=b"")


@dataclass
class Summary:
    cases: int = 0
    findings: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)


def corpus_files(*roots: Path) -> list[tuple[str, bytes]]:
    """(name, bytes) of every manifest under ``roots``, named ``<root's name>/<path in it>``."""
    found = []
    for root in roots:
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
        found += [(f"{root.name}/{p.relative_to(root)}", p.read_bytes()) for p in files]
    return found


# --- mutations ------------------------------------------------------------------------

def _documents(data: bytes) -> list[bytes]:
    return re.split(rb"(?m)^---[^\n]*\n", data)


def flip_bytes(rng: random.Random, data: bytes, corpus) -> bytes:
    buf = bytearray(data or b" ")
    for _ in range(rng.randint(1, 8)):
        buf[rng.randrange(len(buf))] = rng.randrange(256)
    return bytes(buf)


def truncate(rng: random.Random, data: bytes, corpus) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def duplicate_document(rng: random.Random, data: bytes, corpus) -> bytes:
    docs = _documents(data)
    docs.insert(rng.randrange(len(docs) + 1), rng.choice(docs))
    return b"---\n".join(docs)


def shuffle_documents(rng: random.Random, data: bytes, corpus) -> bytes:
    docs = _documents(data)
    rng.shuffle(docs)
    return b"---\n".join(docs)


def swap_value(rng: random.Random, data: bytes, corpus) -> bytes:
    """Replace the value after one ``key:`` with an edge value (a type swap or a limit)."""
    spots = [m for m in re.finditer(rb"(?m)^(\s*-?\s*[\w./-]+:)[ ]+([^\n#]*)$", data)]
    if not spots:
        return data
    spot = rng.choice(spots)
    value = rng.choice(EDGE_VALUES).encode()
    return data[: spot.start(2)] + value + data[spot.end(2):]


def drop_line(rng: random.Random, data: bytes, corpus) -> bytes:
    lines = data.split(b"\n")
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def splice(rng: random.Random, data: bytes, corpus) -> bytes:
    _, other = rng.choice(corpus)
    cut, other_cut = rng.randrange(len(data) + 1), rng.randrange(len(other) + 1)
    return data[:cut] + other[other_cut:]


def hostile(rng: random.Random, data: bytes, corpus) -> bytes:
    docs = _documents(data)
    docs.insert(rng.randrange(len(docs) + 1), rng.choice(HOSTILE).encode())
    return b"---\n".join(docs)


def reencode(rng: random.Random, data: bytes, corpus) -> bytes:
    text = data.decode("utf-8", "replace")
    return rng.choice([text.encode("utf-16"), text.encode("utf-8-sig"), text.encode("latin-1", "replace"),
                       data.replace(b"\n", b"\r\n"), data + b"\x00"])


MUTATIONS = [flip_bytes, truncate, duplicate_document, shuffle_documents, swap_value, swap_value,
             swap_value, drop_line, splice, hostile, reencode]


def mutate(rng: random.Random, data: bytes, corpus) -> tuple[bytes, list[str]]:
    applied = []
    for _ in range(rng.randint(1, 3)):
        mutation = rng.choice(MUTATIONS)
        data = mutation(rng, data, corpus)
        applied.append(mutation.__name__)
    return data, applied


# --- running a case -------------------------------------------------------------------

class CaseTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise CaseTimeout()


def file_lines(data: bytes) -> list[str] | None:
    """The lines a finding may name: split at YAML's line breaks (CR, LF, CRLF, NEL, LS, PS) in
    the decoded text; None for a file that cannot be decoded."""
    from kueuelint.load.limits import Limits
    from kueuelint.load.source import decode, split_lines

    text, problem = decode(data, "case", Limits())
    return None if problem is not None or text is None else split_lines(text) or [""]


def line_count(data: bytes) -> int:
    """Lines of the decoded text; raw lines (LF) for a file that cannot be decoded."""
    lines = file_lines(data)
    return data.count(b"\n") + 1 if lines is None else len(lines)


def location_problems(result, files: dict[str, bytes]) -> list[str]:
    """Every finding must point into a file of the run, at a line and column that file has, and
    its span must end there too, not before it starts (SARIF regions and editors need both)."""
    wrong = []
    for finding in result.findings:
        loc = finding.location
        if loc.path not in files:
            wrong.append(f"{finding.code} points at {loc.path!r}, not a file of the run")
        elif problem := _span_problem(loc, files[loc.path]):
            wrong.append(f"{finding.code} at {loc.path}:{loc.line}:{loc.column} {problem}")
    return wrong


def _span_problem(loc, data: bytes) -> str | None:
    from kueuelint.report.common import end_of

    lines = file_lines(data)
    count = line_count(data) if lines is None else len(lines)
    end_line, end_column = end_of(loc)
    if not 1 <= loc.line <= count or loc.column < 1:
        return f"is outside the file ({count} lines)"
    if end_line is not None and not loc.line <= end_line <= count:
        return f"ends on line {end_line} ({count} lines)"
    if end_line == loc.line and end_column is not None and end_column < loc.column:
        return f"ends at column {end_column}"
    for line, column in ((loc.line, loc.column), (end_line, end_column)):
        if lines is not None and line is not None and column is not None and column > len(lines[line - 1]) + 1:
            return f"has column {column} past the end of line {line} ({len(lines[line - 1])} characters)"
    return None


ALL_FORMATS = ("text", "json", "sarif", "junit", "github")
# SARIF carries the whole rule catalogue and costs more than the check itself: every 25th case
SARIF_EVERY = 25


def render_all(result, formats=ALL_FORMATS) -> dict[str, str]:
    """The output formats, as the CLI writes them; a reporter that raises fails the case."""
    from kueuelint.report import get_reporter
    from kueuelint.report.options import ReportOptions

    rendered = {}
    for name in formats:
        stream = io.StringIO()
        get_reporter(name)(result, stream, ReportOptions(cwd_for_uris=os.getcwd()))
        rendered[name] = stream.getvalue()
    return rendered


def check_paths(paths: list[str], config, rules, files: dict[str, bytes], jobs: int = 1,
                formats=ALL_FORMATS):
    """Run the pipeline on ``paths``; return (result, problems found with the result)."""
    from kueuelint import pipeline

    result = pipeline.run_check(paths, config, rules, jobs=jobs)
    problems = location_problems(result, files)
    if result.internal_error:
        problems.append(result.internal_error)
    render_all(result, formats)
    return result, problems


class Fuzzer:
    def __init__(self, corpus: list[tuple[str, bytes]], workdir: str, case_seconds: int = 20) -> None:
        from kueuelint.config import Config
        from kueuelint.pipeline import load_rules

        self.corpus = corpus
        self.workdir = workdir
        self.report = None      # called with each Failure as it happens
        self.case_seconds = case_seconds
        self.config = Config()
        self.rules = load_rules(self.config)

    def run_case(self, number: int, rng: random.Random, summary: Summary) -> None:
        name, original = rng.choice(self.corpus)
        data, applied = mutate(rng, original, self.corpus)
        _, neighbour = rng.choice(self.corpus)
        files = {os.path.join(self.workdir, "case.yaml"): data,
                 os.path.join(self.workdir, "neighbour.yaml"): neighbour}
        for path, content in files.items():
            Path(path).write_bytes(content)
        formats = ALL_FORMATS if number % SARIF_EVERY == 0 else tuple(f for f in ALL_FORMATS if f != "sarif")
        problems = self._checked(list(files), files, summary, formats)
        if problems:
            summary.failures.append(Failure(number, name, applied, problems[0], data))
            if self.report:
                self.report(summary.failures[-1])

    def _checked(self, paths: list[str], files: dict[str, bytes], summary: Summary, formats) -> list[str]:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(self.case_seconds)
        try:
            result, problems = check_paths(paths, self.config, self.rules, files, formats=formats)
            summary.findings += len(result.findings)
            return problems
        except CaseTimeout:
            return [f"no result after {self.case_seconds} s"]
        except Exception as exc:  # noqa: BLE001 - this is what the fuzzer looks for
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            return [f"{type(exc).__name__}: {exc} ({frame.filename}:{frame.lineno})"]
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def fuzz(cases: int, seed: int, corpus_roots: tuple[Path, ...] = DEFAULT_CORPORA, *,
         max_seconds: float | None = None, progress=None, report=None) -> Summary:
    """Run ``cases`` cases (fewer if ``max_seconds`` runs out); the same seed gives the same cases."""
    corpus = corpus_files(*corpus_roots)
    if not corpus:
        raise SystemExit(f"no corpus files under {', '.join(map(str, corpus_roots))}")
    summary, started = Summary(), time.monotonic()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="kueuelint-fuzz-") as workdir:
        fuzzer = Fuzzer(corpus, workdir)
        fuzzer.report = report
        for number in range(cases):
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                break
            fuzzer.run_case(number, rng, summary)
            summary.cases += 1
            if progress and summary.cases % 1000 == 0:
                progress(summary, time.monotonic() - started)
    summary.seconds = time.monotonic() - started
    return summary


def save_failures(failures: list[Failure], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    saved = []
    for failure in failures:
        digest = hashlib.sha256(failure.data).hexdigest()[:12]
        path = directory / f"fuzz-{digest}.yaml"
        path.write_bytes(failure.data)
        saved.append(path)
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", type=Path, action="append",
                        help="a folder of manifests to mutate (repeatable; default: the test corpora)")
    parser.add_argument("--max-seconds", type=float, default=None, help="stop early after this long")
    parser.add_argument("--save", type=Path, default=None, help="write failing inputs to this folder")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))   # as the CLI does

    def progress(summary: Summary, seconds: float) -> None:
        print(f"{summary.cases} cases, {len(summary.failures)} failures, {seconds:.0f} s", file=sys.stderr)

    def report(failure: Failure) -> None:
        print(f"case {failure.case} ({failure.source}; {', '.join(failure.mutations)}): {failure.problem}",
              flush=True)
        if args.save:
            print(f"saved {save_failures([failure], args.save)[0]}", flush=True)

    summary = fuzz(args.cases, args.seed, tuple(args.corpus or DEFAULT_CORPORA), max_seconds=args.max_seconds,
                   progress=progress, report=report)
    print(f"{summary.cases} cases in {summary.seconds:.1f} s, {summary.findings} findings, "
          f"{len(summary.failures)} failures")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
