"""Benchmark suite: kueuelint against the YAML parse floor and peer tools, as whole processes.

One command measures everything, prints a table of timings and ratios, and writes JSON:

    python bench/run.py [--sizes 1000,5000,20000] [--runs 5] [--quick] [--json out.json] [--peers]

Run it with the Python that has kueuelint installed (its ``kueuelint`` script is used when it
sits next to that Python). Every measurement is a fresh process: one warm-up run (it writes
.pyc files and fills the CEL cache, as a user's earlier runs would), then ``--runs`` timed runs
reported as median, min and max. See bench/README.md for how to read the output.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402  (bench/generate.py, next to this file)

OUT = HERE / "out"
PEERS_VENV = HERE / ".peers-venv"
PEER_PACKAGES = ("yamllint", "check-jsonschema", "kubernetes-validate")
CORES = os.cpu_count() or 1

# The parse floor: the least any Python linter must do - read every file and build Python
# objects with libyaml. It counts documents so the run can be checked against the tree.
FLOOR_SCRIPT = """
import os, sys, yaml
count = 0
for top in sys.argv[1:]:
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")) and not name.startswith("."):
                with open(os.path.join(root, name), "rb") as handle:
                    count += sum(d is not None for d in yaml.load_all(handle.read(), Loader=yaml.CSafeLoader))
print(count)
"""


@dataclass
class Timing:
    """One measured command: wall and CPU (user+sys, children included) seconds per run."""

    name: str
    size: int | None            # resources in the tree; None for size-independent runs
    documents: int              # resources the command reads
    cores: int                  # cores the command may use (for resources/second/core)
    command: list[str]
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    returncode: int | None = None
    note: str = ""

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    def per_second(self) -> float | None:
        return self.documents / self.wall if self.walls and self.documents else None

    def per_core_second(self) -> float | None:
        rate = self.per_second()
        return rate / self.cores if rate else None

    def to_json(self) -> dict:
        data = asdict(self)
        if self.walls:
            data.update(median_s=self.wall, min_s=min(self.walls), max_s=max(self.walls),
                        cpu_median_s=self.cpu, resources_per_s=self.per_second(),
                        resources_per_s_per_core=self.per_core_second())
        return data


@dataclass
class Settings:
    sizes: list[int]
    runs: int
    max_seconds: float
    seed: int
    peers: bool
    admit: bool
    crds: Path
    corpus: Path


# ---------------------------------------------------------------- running processes

def bench_env() -> dict[str, str]:
    """What a user's shell looks like: bytecode is written and kept (this session's
    PYTHONDONTWRITEBYTECODE would double import times) and the CEL cache is on, in a
    folder of our own so each suite starts cold and leaves the user's cache alone."""
    env = dict(os.environ)
    for name in ("PYTHONDONTWRITEBYTECODE", "KUEUELINT_NO_CACHE", "PYTHONPROFILEIMPORTTIME"):
        env.pop(name, None)
    env["XDG_CACHE_HOME"] = str(OUT / "cache")
    env["NO_COLOR"] = "1"
    return env


def run_once(command: list[str], cwd: Path, log: Path | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (the process and the workers it waited for), exit status."""
    sink = open(log, "wb") if log else subprocess.DEVNULL
    try:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=bench_env(), stdin=subprocess.DEVNULL,
                                   stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if log:
            sink.close()
    return wall, usage.ru_utime + usage.ru_stime, process.returncode


def measure(timing: Timing, cwd: Path, settings: Settings) -> Timing:
    """Warm up once (logged), then time up to ``runs`` runs within the time budget."""
    return measure_together([timing], cwd, settings)[0]


def measure_together(timings: list[Timing], cwd: Path, settings: Settings) -> list[Timing]:
    """Warm each command up once (logged), then time them in interleaved rounds: on a shared
    machine the load drifts over minutes, and interleaving puts the numerator and denominator
    of each ratio under the same load. Fewer rounds when the budget would be passed."""
    warm = sum(_warm_up(timing, cwd) for timing in timings)
    runs = settings.runs
    budget = settings.max_seconds * len(timings)
    if warm * runs > budget:
        runs = max(1, int(budget // max(warm, 1e-9)))
        note = f"{runs} run(s): {runs + 1} would pass --max-seconds {settings.max_seconds:g}"
        for timing in timings:
            timing.note = note
    for _ in range(runs):
        for timing in timings:
            wall, cpu, _ = run_once(timing.command, cwd)
            timing.walls.append(wall)
            timing.cpus.append(cpu)
    for timing in timings:
        _progress(timing)
    return timings


def _warm_up(timing: Timing, cwd: Path) -> float:
    slug = re.sub(r"[^A-Za-z0-9.]+", "_", timing.name).strip("_")
    log = OUT / "logs" / f"{slug}-{timing.size or 'one'}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    wall, _, timing.returncode = run_once(timing.command, cwd, log)
    return wall


def _progress(timing: Timing) -> None:
    size = f"{timing.size:>6}" if timing.size else "   one"
    print(f"  {size}  {timing.name:<28} median {timing.wall:7.3f}s  (min {min(timing.walls):.3f}, "
          f"max {max(timing.walls):.3f}, cpu {timing.cpu:.3f}s, exit {timing.returncode}) {timing.note}",
          file=sys.stderr, flush=True)


def skipped(name: str, size: int | None, reason: str) -> Timing:
    print(f"  {size or 'one':>6}  {name:<28} skipped: {reason}", file=sys.stderr, flush=True)
    return Timing(name, size, 0, 1, [], note=f"skipped: {reason}")


# ---------------------------------------------------------------- commands

def kueuelint_command() -> list[str]:
    script = Path(sys.executable).parent / "kueuelint"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kueuelint"]


def check_command(paths: list[str], extra: list[str] = ()) -> list[str]:
    # An explicit, empty config so a config file above the tree never changes what runs.
    return [*kueuelint_command(), "check", "--config", str(OUT / "kueuelint-bench.yaml"),
            "--exit-zero", "-q", "--no-progress", *extra, *paths]


def crd_option(crd_dir: Path) -> tuple[list[str], str]:
    """``--crd DIR`` when the CLI has it; otherwise ``--context DIR``, which loads the CRDs
    into the run for cross-reference without reporting on the CRD files themselves."""
    help_text = subprocess.run([*kueuelint_command(), "check", "--help"], capture_output=True,
                               text=True, env=bench_env()).stdout
    if "--crd " in help_text or "--crd=" in help_text or "--crd PATH" in help_text:
        return ["--crd", str(crd_dir)], "--crd"
    return ["--context", str(crd_dir)], "--context (kueuelint check has no --crd option)"


def floor_command(paths: list[str]) -> list[str]:
    return [sys.executable, "-c", FLOOR_SCRIPT, *paths]


# ---------------------------------------------------------------- trees

def tree_for(size: int, settings: Settings) -> tuple[Path, dict]:
    """Generate (or reuse, when seed, size and generator are unchanged) the tree for a size."""
    root = OUT / f"tree-{size}"
    stamp = OUT / f"tree-{size}.json"
    key = {"size": size, "seed": settings.seed, "generator": _generator_digest()}
    if stamp.exists() and root.exists():
        saved = json.loads(stamp.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            return root, saved["summary"]
    print(f"generating {size} resources into {root} ...", file=sys.stderr, flush=True)
    summary = generate.generate(root, size, settings.seed, corpus=settings.corpus)
    stamp.write_text(json.dumps({"key": key, "summary": summary}), encoding="utf-8")
    return root, summary


def _generator_digest() -> str:
    import hashlib

    return hashlib.sha256((HERE / "generate.py").read_bytes()).hexdigest()[:16]


def one_file(root: Path) -> Path:
    """The pre-commit case: one queued Job, the commonest file in a team's folder."""
    return sorted(root.glob("teams/*/job/*.yaml"))[0]


# ---------------------------------------------------------------- peers

def peers_python() -> Path | None:
    """The peers' own venv, created and filled on first use; None when that fails."""
    python = PEERS_VENV / "bin" / "python"
    if all((PEERS_VENV / "bin" / tool).exists() for tool in PEER_PACKAGES):
        return python
    print(f"installing {', '.join(PEER_PACKAGES)} into {PEERS_VENV} ...", file=sys.stderr, flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True, capture_output=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True,
                       capture_output=True, timeout=900)
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"  peers unavailable ({exc}); skipping them", file=sys.stderr)
        return None
    return python


def local_queue_schema() -> Path:
    """A JSON Schema for check-jsonschema: the LocalQueue CRD's v1beta2 openAPIV3Schema."""
    import yaml

    path = OUT / "localqueue.schema.json"
    crd = yaml.load((generate.DEFAULT_CRDS / "kueue.x-k8s.io_localqueues.yaml").read_bytes(),
                    Loader=yaml.CSafeLoader)
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta2")
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", **version["schema"]["openAPIV3Schema"]}
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def peer_commands(root: Path) -> dict[str, list[str]]:
    """Each peer on the same files; paths are relative to the tree to keep argv short."""
    bin_dir = PEERS_VENV / "bin"
    files = [str(p.relative_to(root)) for p in sorted(root.rglob("*.y*ml")) if not p.name.startswith(".")]
    return {
        "yamllint (relaxed)": [str(bin_dir / "yamllint"), "-d", "relaxed", "."],
        "check-jsonschema (LQ)": [str(bin_dir / "check-jsonschema"), "--schemafile",
                                  str(local_queue_schema()), *files],
        "kubernetes-validate": [str(bin_dir / "kubernetes-validate"), "--quiet", *files],
    }


# ---------------------------------------------------------------- one size

def bench_size(size: int, settings: Settings, crd_args: list[str], previous: list[Timing]) -> list[Timing]:
    root, summary = tree_for(size, settings)
    docs = summary["documents"]
    crd_docs = len(list(settings.crds.glob("*.yaml")))
    tree, crds = str(root), str(settings.crds)
    timings = measure_together([
        Timing("parse floor", size, docs, 1, floor_command([tree])),
        Timing("check", size, docs, CORES, check_command([tree])),
        Timing("check -j 1", size, docs, 1, check_command([tree], ["-j", "1"])),
        Timing("parse floor + CRDs", size, docs + crd_docs, 1, floor_command([tree, crds])),
        Timing("check + CRDs", size, docs, CORES, check_command([tree], crd_args)),
    ], root, settings)
    if settings.peers and peers_python():
        for name, command in peer_commands(root).items():
            timings.append(_measure_peer(Timing(name, size, docs, 1, command), root, settings, previous))
    return timings


def _measure_peer(timing: Timing, root: Path, settings: Settings, previous: list[Timing]) -> Timing:
    """Skip a peer whose last size, scaled linearly, says this size would blow the budget."""
    earlier = [t for t in previous if t.name == timing.name and t.walls]
    if earlier:
        predicted = earlier[-1].wall * timing.size / earlier[-1].size
        if predicted > settings.max_seconds:
            return skipped(timing.name, timing.size, f"predicted {predicted:.0f}s per run > --max-seconds")
    return measure(timing, root, settings)


# ---------------------------------------------------------------- size-independent runs

def bench_one_file(settings: Settings) -> list[Timing]:
    root, _ = tree_for(min(settings.sizes), settings)
    target = str(one_file(root).relative_to(root))
    return measure_together([
        Timing("python -c pass", None, 0, 1, [sys.executable, "-c", "pass"]),
        Timing('python -c "import yaml"', None, 0, 1, [sys.executable, "-c", "import yaml"]),
        Timing("check one.yaml", None, 1, 1, check_command([target])),
    ], root, settings)


def bench_admit(settings: Settings) -> dict | None:
    """bench/admit_bench.py (written alongside) times the dry-admission simulator in-process at
    the admission issue's scales; we run it once, whole, and keep what it prints."""
    script = HERE / "admit_bench.py"
    if not settings.admit or not script.exists():
        return None
    print("running bench/admit_bench.py ...", file=sys.stderr, flush=True)
    log = OUT / "logs" / "admit_bench.log"
    timeout = max(settings.max_seconds * 3, 600)
    started = time.perf_counter()
    try:
        result = subprocess.run([sys.executable, str(script)], cwd=REPO, env=bench_env(),
                                capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"script": str(script), "wall_s": None, "note": f"timed out after {timeout:.0f}s"}
    wall = time.perf_counter() - started
    log.write_text(result.stdout + result.stderr, encoding="utf-8")
    return {"script": str(script), "wall_s": wall, "returncode": result.returncode,
            "output": result.stdout.strip().splitlines()}


# ---------------------------------------------------------------- ratios and budget

def ratios(timings: list[Timing]) -> list[dict]:
    rows = []
    sizes = sorted({t.size for t in timings if t.size})
    for size in sizes:
        at = {t.name: t for t in timings if t.size == size and t.walls}
        pairs = [("check", "parse floor"), ("check -j 1", "parse floor"),
                 ("check + CRDs", "parse floor + CRDs"), ("check + CRDs", "check")]
        pairs += [(mine, peer) for peer in at if _is_peer(peer) for mine in ("check", "check -j 1")]
        rows += [_ratio(size, at[a], at[b]) for a, b in pairs if a in at and b in at]
    rows += _growth(timings, sizes)
    one = {t.name: t for t in timings if t.size is None and t.walls}
    if "check one.yaml" in one and 'python -c "import yaml"' in one:
        rows.append(_ratio(None, one["check one.yaml"], one['python -c "import yaml"']))
    return rows


OWN_MEASUREMENTS = ("parse floor", "check", "check -j 1", "parse floor + CRDs", "check + CRDs")


def _is_peer(name: str) -> bool:
    return name not in OWN_MEASUREMENTS


def _ratio(size: int | None, mine: Timing, other: Timing, label: str | None = None) -> dict:
    return {"size": size, "ratio": label or f"{mine.name} ÷ {other.name}",
            "wall": mine.wall / other.wall, "cpu": mine.cpu / other.cpu if other.cpu else None}


def _growth(timings: list[Timing], sizes: list[int]) -> list[dict]:
    rows = []
    for small, large in zip(sizes, sizes[1:]):
        for name in ("check", "check -j 1", "parse floor"):
            a = next((t for t in timings if t.name == name and t.size == small and t.walls), None)
            b = next((t for t in timings if t.name == name and t.size == large and t.walls), None)
            if a and b:
                rows.append(_ratio(large, b, a, f"growth {name}: {large} ÷ {small} "
                                                f"(sizes ×{large / small:g})"))
    return rows


def budget(timings: list[Timing], ratio_rows: list[dict]) -> list[dict]:
    """The issue's budget, checked against this run's medians."""
    checks = []
    for t in timings:
        if t.name in ("check", "check -j 1") and t.walls and t.size:
            checks.append(_verdict(f"{t.name} at {t.size}: resources/s/core", t.per_core_second(), ">=", 2000))
    for row in ratio_rows:
        if row["ratio"] in ("check ÷ parse floor", "check -j 1 ÷ parse floor"):
            checks.append(_verdict(f"{row['ratio']} at {row['size']} (wall)", row["wall"], "<=", 2.0))
        if row["ratio"].startswith("growth check") and "20000 ÷ 5000" in row["ratio"]:
            checks.append(_verdict(row["ratio"], row["wall"], "<=", 4.4))
        if row["ratio"] == 'check one.yaml ÷ python -c "import yaml"':
            checks.append(_verdict("one file ÷ import yaml (wall)", row["wall"], "<=", 4.0))
    one = next((t for t in timings if t.name == "check one.yaml" and t.walls), None)
    if one:
        checks.append(_verdict("one file, cold process: wall seconds", one.wall, "<=", 0.25))
    return checks


def _verdict(what: str, value: float | None, op: str, limit: float) -> dict:
    met = value is not None and (value >= limit if op == ">=" else value <= limit)
    return {"check": what, "value": value, "limit": f"{op} {limit:g}", "met": met}


# ---------------------------------------------------------------- output

def print_report(timings: list[Timing], ratio_rows: list[dict], verdicts: list[dict],
                 admit: dict | None, notes: list[str]) -> None:
    print(f"\n## Timings (median of the timed runs after one warm-up; {CORES} cores; "
          f"load average at the end {_load()})\n")
    print("| size | measurement | median s | min s | max s | runs | cpu s | resources/s | res/s/core | note |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for t in timings:
        print(_timing_row(t))
    print("\n## Ratios (wall; cpu = user+sys seconds, steadier on a busy machine)\n")
    print("| size | ratio | wall | cpu |")
    print("|---:|---|---:|---:|")
    for row in ratio_rows:
        cpu = f"{row['cpu']:.2f}" if row["cpu"] is not None else "-"
        print(f"| {row['size'] or '-'} | {row['ratio']} | {row['wall']:.2f} | {cpu} |")
    print("\n## Budget (issue 7)\n")
    for v in verdicts:
        value = "-" if v["value"] is None else f"{v['value']:.3g}"
        print(f"- {'met ' if v['met'] else 'MISSED'}  {v['check']}: {value} (budget {v['limit']})")
    if admit:
        print(f"\n## kueuelint admit (bench/admit_bench.py, whole process {_seconds(admit.get('wall_s'))})\n")
        for line in admit.get("output", []) or [admit.get("note", "")]:
            print(f"    {line}")
    for note in notes:
        print(f"\nNote: {note}")


def _timing_row(t: Timing) -> str:
    if not t.walls:
        return f"| {t.size or '-'} | {t.name} | - | - | - | 0 | - | - | - | {t.note} |"
    rate, per_core = t.per_second(), t.per_core_second()
    return (f"| {t.size or '-'} | {t.name} | {t.wall:.3f} | {min(t.walls):.3f} | {max(t.walls):.3f} | "
            f"{len(t.walls)} | {t.cpu:.2f} | {_rate(rate)} | {_rate(per_core)} | {t.note} |")


def _rate(value: float | None) -> str:
    return f"{value:,.0f}" if value else "-"


def _seconds(value: float | None) -> str:
    return f"{value:.1f}s" if value is not None else "-"


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def write_json(path: Path, settings: Settings, trees: dict, timings: list[Timing], ratio_rows: list[dict],
               verdicts: list[dict], admit: dict | None, notes: list[str], load_before: str) -> None:
    data = {
        "format": 1,
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cores": CORES, "python": platform.python_version(), "platform": platform.platform(),
                    "load_before": load_before, "load_after": _load()},
        "kueuelint": {"commit": _git("rev-parse", "HEAD"), "dirty": bool(_git("status", "--porcelain", "kueuelint")),
                      "command": kueuelint_command()},
        "settings": {**asdict(settings), "crds": str(settings.crds), "corpus": str(settings.corpus)},
        "trees": trees, "timings": [t.to_json() for t in timings], "ratios": ratio_rows,
        "budget": verdicts, "admit": admit, "notes": notes,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {path}")


def _git(*args: str) -> str:
    result = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    return result.stdout.strip()


# ---------------------------------------------------------------- main

def parse_args(argv: list[str] | None) -> tuple[Settings, Path]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000", help="resources per tree (comma-separated)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement after the warm-up")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: one 200-resource tree, 3 runs, no admit (not for results)")
    parser.add_argument("--json", type=Path, help="write results here (default: bench/out/results-<time>.json)")
    parser.add_argument("--peers", action="store_true",
                        help=f"also time {', '.join(PEER_PACKAGES)} (installed into bench/.peers-venv)")
    parser.add_argument("--no-admit", action="store_true", help="skip bench/admit_bench.py")
    parser.add_argument("--max-seconds", type=float, default=300,
                        help="time budget per measurement; slower ones get fewer runs (noted)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--crds", type=Path, default=generate.DEFAULT_CRDS)
    parser.add_argument("--corpus", type=Path, default=generate.DEFAULT_CORPUS)
    args = parser.parse_args(argv)
    sizes = [200] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    runs = 3 if args.quick else args.runs
    settings = Settings(sorted(sizes), runs, args.max_seconds, args.seed, args.peers,
                        admit=not (args.no_admit or args.quick), crds=args.crds, corpus=args.corpus)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return settings, args.json or OUT / f"results-{stamp}.json"


def prepare() -> None:
    """A fresh CEL cache (the first warm-up fills it) and the empty bench config."""
    import yaml

    if not hasattr(yaml, "CSafeLoader"):
        raise SystemExit("run.py: PyYAML was built without libyaml; the parse floor needs CSafeLoader")
    OUT.mkdir(exist_ok=True)
    shutil.rmtree(OUT / "cache", ignore_errors=True)
    (OUT / "kueuelint-bench.yaml").write_text("{}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    settings, json_path = parse_args(argv)
    prepare()
    load_before = _load()
    crd_args, crd_how = crd_option(settings.crds)
    notes = [f"CRDs given with {crd_how}", f"load average at the start {load_before}"]
    timings: list[Timing] = []
    for size in settings.sizes:
        timings += bench_size(size, settings, crd_args, timings)
    timings += bench_one_file(settings)
    admit = bench_admit(settings)
    trees = {size: _tree_summary(size) for size in settings.sizes}
    ratio_rows = ratios(timings)
    verdicts = budget(timings, ratio_rows)
    print_report(timings, ratio_rows, verdicts, admit, notes)
    write_json(json_path, settings, trees, timings, ratio_rows, verdicts, admit, notes, load_before)


def _tree_summary(size: int) -> dict:
    summary = json.loads((OUT / f"tree-{size}.json").read_text(encoding="utf-8"))["summary"]
    summary.pop("mistake_files", None)
    return summary


if __name__ == "__main__":
    main()
