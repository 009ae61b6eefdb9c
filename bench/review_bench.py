"""Benchmark of ``kueuelint review`` against one ``kueuelint admit`` run (not a test).

The cluster of bench/admit_bench.py (10,000 pending and 50,000 admitted Workloads, 200
ClusterQueues at scale 1) is written as a ``kubectl get -o json`` snapshot, and its queue
objects as BEFORE; AFTER lowers the nominal cpu quota of one ClusterQueue. Then whole
processes are timed, taking turns so that both see the same load:

* ``admit --snapshot snapshot.json --format json`` (read, derive, simulate once, report);
* ``review before.json after.json --snapshot snapshot.json --format json --all`` (read once,
  simulate both setups on every workload, compare, run the rules on AFTER, report);
* the same without ``--all``: the Workloads of cohort trees the change cannot reach are left
  out of both simulations (one tree of twenty here).

Usage: python bench/review_bench.py [--scale 1] [--repeat 3] [--seed 7]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from admit_bench import generate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def write_inputs(folder: Path, scale: float, seed: int) -> None:
    objects = generate(scale, seed)
    queues = [obj for obj in objects if obj["kind"] != "Workload"]
    lowered = copy.deepcopy(queues)
    first = next(obj for obj in lowered if obj["kind"] == "ClusterQueue")
    first["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 100
    for name, items in (("snapshot.json", objects), ("before.json", queues), ("after.json", lowered)):
        (folder / name).write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4))
    (folder / "config.yaml").write_text("max-file-bytes: 2000000000\nmax-file-nodes: 200000000\nmax-nodes: 200000000\n")


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, check=False, cwd=ROOT)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[2:4])} failed (exit {done.returncode})")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write_inputs(folder, args.scale, args.seed)
        common = ["--snapshot", str(folder / "snapshot.json"), "--config", str(folder / "config.yaml"),
                  "--format", "json"]
        admit = [sys.executable, "-m", "kueuelint", "admit", *common, "--no-progress"]
        review = [sys.executable, "-m", "kueuelint", "review", str(folder / "before.json"),
                  str(folder / "after.json"), *common]
        commands = {"admit": admit, "review --all": review + ["--all"], "review": review}
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.repeat):
            for label, command in commands.items():
                times[label].append(timed(command))
    for label, values in times.items():
        print(f"{label:12}  " + "  ".join(f"{v:.2f}" for v in values) + f"  median {statistics.median(values):.2f} s")
    for label in ("review --all", "review"):
        ratios = [r / a for a, r in zip(times["admit"], times[label])]
        print(f"{label} / admit per turn: {'  '.join(f'{r:.2f}' for r in ratios)}  (ratio of the medians: "
              f"{statistics.median(times[label]) / statistics.median(times['admit']):.2f})")


if __name__ == "__main__":
    main()
