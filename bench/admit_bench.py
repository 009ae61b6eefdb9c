"""Benchmark of the dry-admission simulator (not a test).

Generates a synthetic cluster: ClusterQueues in cohorts (a quarter of them below a parent
Cohort with its own quota), 8 flavors in two resource groups, admitted Workloads that fill
most of the nominal quota, and pending Workloads of a handful of shapes and priorities. Then
times, on the same objects:

* ``derive``: the first, cold pass (Workload pod sets and requests derived and cached);
* ``simulate``: building the quota state from the inventory and running the scheduler to
  quiescence - the figure the 2 s budget is about. With more than one idle core (or
  ``--jobs``), the cohort trees are split over two processes as ``kueuelint admit`` does.

With ``--tas``, the cluster also has nodes and a topology-aware part (``tas_objects``):
2,000 Ready nodes (10 blocks of 20 racks of 10 nodes) running 20,000 non-Kueue pods, a
Topology and two TAS flavors, 20 more ClusterQueues in two cohorts with 1,000 admitted
Workloads placed on the nodes (their recorded topology assignments) and 1,000 pending ones
asking for a required rack or block, a preferred rack, an unconstrained placement, or nothing
(implicit TAS). Its time minus the plain run's is what the TAS scenarios add.

With ``--end-to-end``, the same objects are also written as a snapshot file, as
``kubectl get -o json`` and ``-o yaml`` write them (one ``kind: List``), and a whole
``kueuelint admit --snapshot FILE --format json`` process is timed on each: reading, deriving,
simulating and writing the report.

Each scale is measured in a new process of its own: a second measurement in one process
carries the first one's heap and runs slower (scale 2 after scale 1: 10-15% slower), as no
user's run does. With ``--repeat N``, each scale is measured N times, the scales taking turns
so that a ratio compares runs under the same load; each time is printed, with the median and
the fastest. On a shared machine single runs vary by 10-30%.

With ``--against DIR``, where DIR is another kueuelint source tree (the previous head, say:
``git worktree add /tmp/prev HEAD~1``), each scale is measured ``--repeat`` times (5 unless
given) on this tree and on DIR, on the same objects and each time in a new process, the two
taking turns and swapping which goes first every round. It prints both series and, round by
round, this tree's time over DIR's, with the median ratio and how many rounds each was faster:
a ratio of two runs a few seconds apart is steadier than either time on a shared machine.
It also says when the two trees decide differently (other cycle, admission or preemption counts).

Usage: python bench/admit_bench.py [--scale 1] [--scale 2] [--seed 7] [--jobs N] [--repeat N]
       [--tas] [--end-to-end] [--installed] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _tree_to_import() -> str | None:
    """This source tree by default; ``--installed``: the kueuelint this Python has installed (e.g.
    the compiled build: HATCH_BUILD_HOOK_ENABLE_MYPYC=1 pip install .); ``--source DIR``: the
    tree a run of ``--against`` measures in a process of its own."""
    if "--installed" in sys.argv:
        return None
    if "--source" in sys.argv[:-1]:
        return sys.argv[sys.argv.index("--source") + 1]
    return str(HERE)


_TREE = _tree_to_import()
if _TREE is not None:
    sys.path.insert(0, _TREE)

from kueuelint.admission.run import simulate  # noqa: E402
from kueuelint.identify.objects import identify  # noqa: E402
from kueuelint.index.inventory import Inventory  # noqa: E402
from kueuelint.load.source import Document, SourceFile  # noqa: E402

KUEUE = "kueue.x-k8s.io/v1beta2"
CPU_FLAVORS = ("cpu-a", "cpu-b", "cpu-c", "cpu-d")
GPU_FLAVORS = ("gpu-a", "gpu-b", "gpu-c", "gpu-d")
SHAPES = ((1, 2, 0), (2, 4, 0), (4, 8, 1), (1, 1, 0), (8, 16, 2), (2, 2, 1))   # cpu, GiB, gpu per pod


def generate(scale: float, seed: int) -> list[dict]:
    rng = random.Random(seed)
    queues, cohorts = max(1, int(200 * scale)), max(1, int(20 * scale))
    admitted, pending = int(50_000 * scale), int(10_000 * scale)
    objects = [_flavor(name) for name in CPU_FLAVORS + GPU_FLAVORS]
    objects += [_cohort(f"co{c}", cohorts) for c in range(cohorts)]
    objects += [_priority(f"p{p}", p * 100) for p in range(4)]
    for q in range(queues):
        objects += _queue(f"cq{q}", f"co{q % cohorts}", q)
    for index in range(admitted):
        objects.append(_workload(rng, f"run{index}", f"cq{index % queues}", admitted=True))
    for index in range(pending):
        objects.append(_workload(rng, f"wait{index}", f"cq{rng.randrange(queues)}", admitted=False))
    return objects


TAS_BLOCKS, TAS_RACKS, TAS_NODES = 10, 20, 10          # per cluster, per block, per rack
TAS_LEVELS = ("example.com/block", "example.com/rack", "kubernetes.io/hostname")
TAS_FLAVORS = ("tas-a", "tas-b")                          # blocks 0-4 and 5-9
TAS_REQUESTS = ((), ("required", "example.com/rack"), ("required", "example.com/block"),
                ("preferred", "example.com/rack"), ("unconstrained", "true"))


def tas_objects(seed: int) -> list[dict]:
    """Nodes, running pods and a topology-aware part of the cluster (see the docstring)."""
    rng = random.Random(seed + 1)
    objects = [{"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
                "spec": {"levels": [{"nodeLabel": level} for level in TAS_LEVELS]}}]
    objects += [{"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name},
                 "spec": {"nodeLabels": {"pool": name}, "topologyName": "default"}} for name in TAS_FLAVORS]
    hosts = []
    for block in range(TAS_BLOCKS):
        for rack in range(TAS_RACKS):
            for node in range(TAS_NODES):
                hosts.append((f"b{block}-r{rack}-n{node}", block, rack))
    for host, block, rack in hosts:
        objects.append(_node(host, block, rack))
        objects += [_running_pod(f"{host}-p{p}", host, rng) for p in range(10)]
    for q in range(20):
        objects += _tas_queue(f"tas{q}", f"tasco{q % 2}", TAS_FLAVORS[q % 2])
    hosts_of = {flavor: [h for h, b, _ in hosts if (b < TAS_BLOCKS // 2) == (flavor == TAS_FLAVORS[0])]
                for flavor in TAS_FLAVORS}
    for index in range(1000):
        queue = index % 20
        objects.append(_tas_workload(rng, f"tasrun{index}", queue, hosts_of[TAS_FLAVORS[queue % 2]]))
    for index in range(1000):
        objects.append(_tas_workload(rng, f"taswait{index}", rng.randrange(20), None))
    return objects


def _node(host: str, block: int, rack: int) -> dict:
    labels = {"pool": TAS_FLAVORS[block >= TAS_BLOCKS // 2], TAS_LEVELS[0]: f"b{block}",
              TAS_LEVELS[1]: f"b{block}-r{rack}", TAS_LEVELS[2]: host}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": host, "labels": labels},
            "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _running_pod(name: str, host: str, rng: random.Random) -> dict:
    cpu, memory = rng.choice(((1, 2), (2, 4), (500, 1)))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "apps"},
            "spec": {"nodeName": host, "containers": [{"name": "c", "image": "x", "resources": {
                "requests": {"cpu": f"{cpu}m" if cpu > 100 else str(cpu), "memory": f"{memory}Gi"}}}]},
            "status": {"phase": "Running"}}


def _tas_queue(name: str, cohort: str, flavor: str) -> list[dict]:
    spec = {"cohortName": cohort, "namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
            "resourceGroups": [_group(("cpu", "memory"), (flavor,), {"cpu": 2000, "memory": "8000Gi"})]}
    local = {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": f"lq-{name}", "namespace": "bench"},
             "spec": {"clusterQueue": name}}
    return [{"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}, local]


def _tas_workload(rng: random.Random, name: str, queue: int, hosts: list[str] | None) -> dict:
    """A TAS Workload; admitted (placed one pod per host from a random start) when given hosts."""
    cpu, mem = rng.choice(((4, 16), (8, 32))) if hosts else rng.choice(((4, 16), (8, 32), (16, 64)))
    count = rng.choice((2, 4)) if hosts else rng.choice((2, 4, 8, 16))
    template: dict = {"spec": {"containers": [{"name": "c", "image": "x", "resources": {
        "requests": {"cpu": str(cpu), "memory": f"{mem}Gi"}}}]}}
    asked = rng.choice(TAS_REQUESTS)
    if asked:
        template["metadata"] = {"annotations": {f"kueue.x-k8s.io/podset-{asked[0]}-topology": asked[1]}}
    data = {"apiVersion": KUEUE, "kind": "Workload",
            "metadata": {"name": name, "namespace": "bench", "uid": name,
                         "creationTimestamp": f"2026-01-{1 + rng.randrange(28):02d}T{rng.randrange(24):02d}:00:00Z"},
            "spec": {"queueName": f"lq-tas{queue}", "priority": rng.randrange(4) * 100,
                     "podSets": [{"name": "main", "count": count, "template": template}]}}
    if hosts is not None:
        start = rng.randrange(len(hosts) - count)
        flavor = TAS_FLAVORS[queue % 2]
        placed = {"levels": [TAS_LEVELS[-1]], "domains": [{"values": [h], "count": 1} for h in hosts[start:start + count]]}
        data["status"] = {"admission": {"clusterQueue": f"tas{queue}", "podSetAssignments": [
            {"name": "main", "count": count, "flavors": {"cpu": flavor, "memory": flavor},
             "resourceUsage": {"cpu": str(cpu * count), "memory": f"{mem * count}Gi"}, "topologyAssignment": placed}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "message": "", "lastTransitionTime": data["metadata"]["creationTimestamp"]}]}
    return data


def _flavor(name: str) -> dict:
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": {"nodeLabels": {"pool": name}}}


def _cohort(name: str, total: int) -> dict:
    index = int(name[2:])
    spec: dict = {}
    if index % 4 == 3:          # every fourth cohort hangs below a parent with quota of its own
        spec = {"parentName": f"org{index // 4}",
                "resourceGroups": [_group(("cpu", "memory"), CPU_FLAVORS[:1], {"cpu": 50, "memory": "100Gi"})]}
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def _priority(name: str, value: int) -> dict:
    return {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": name}, "value": value}


def _group(resources, flavors, quota: dict) -> dict:
    return {"coveredResources": list(resources),
            "flavors": [{"name": f, "resources": [{"name": r, "nominalQuota": quota[r]} for r in resources]}
                        for f in flavors]}


def _queue(name: str, cohort: str, index: int) -> list[dict]:
    preemption = [{}, {"withinClusterQueue": "LowerPriority"},
                  {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
                  {"reclaimWithinCohort": "LowerPriority",
                   "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100}}][index % 4]
    spec = {"cohortName": cohort, "namespaceSelector": {}, "preemption": preemption,
            "queueingStrategy": "StrictFIFO" if index % 10 == 0 else "BestEffortFIFO",
            "resourceGroups": [_group(("cpu", "memory"), CPU_FLAVORS, {"cpu": 400, "memory": "800Gi"}),
                               _group(("nvidia.com/gpu",), GPU_FLAVORS, {"nvidia.com/gpu": 100})]}
    local = {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": f"lq-{name}", "namespace": "bench"},
             "spec": {"clusterQueue": name}}
    return [{"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}, local]


def _workload(rng: random.Random, name: str, queue: str, admitted: bool) -> dict:
    cpu, mem, gpu = rng.choice(SHAPES)
    count = rng.choice((1, 1, 2, 4))
    requests = {"cpu": str(cpu), "memory": f"{mem}Gi"}
    if gpu:
        requests["nvidia.com/gpu"] = str(gpu)
    data = {"apiVersion": KUEUE, "kind": "Workload",
            "metadata": {"name": name, "namespace": "bench", "uid": name,
                         "creationTimestamp": f"2026-01-{1 + rng.randrange(28):02d}T{rng.randrange(24):02d}:00:00Z"},
            "spec": {"queueName": f"lq-{queue}", "priority": rng.randrange(4) * 100,
                     "podSets": [{"name": "main", "count": count, "template": {"spec": {"containers": [
                         {"name": "c", "image": "x", "resources": {"requests": requests}}]}}}]}}
    if admitted:
        flavor = CPU_FLAVORS[rng.randrange(4)]
        flavors = {"cpu": flavor, "memory": flavor}
        usage = {"cpu": str(cpu * count), "memory": f"{mem * count}Gi"}
        if gpu:
            flavors["nvidia.com/gpu"] = GPU_FLAVORS[rng.randrange(4)]
            usage["nvidia.com/gpu"] = str(gpu * count)
        data["status"] = {"admission": {"clusterQueue": queue, "podSetAssignments": [
            {"name": "main", "count": count, "flavors": flavors, "resourceUsage": usage}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "message": "", "lastTransitionTime": data["metadata"]["creationTimestamp"]}]}
    return data


def to_objects(dicts: list[dict]):
    source = SourceFile("<bench>")
    return [identify(Document(source, index, data)) for index, data in enumerate(dicts)]


def measure(scale: float, seed: int, jobs: int | None = None, tas: bool = False) -> dict:
    objects = to_objects(generate(scale, seed) + (tas_objects(seed) if tas else []))
    inventory = Inventory(objects)
    started = time.perf_counter()
    simulate(inventory, [], max_cycles=1, jobs=1)  # cold: derives and caches every pod set
    derived, derived_cpu = time.perf_counter(), time.process_time()
    result = simulate(inventory, [], jobs=jobs)
    finished, finished_cpu = time.perf_counter(), time.process_time()
    outcomes = [o.result for o in result.outcomes.values()]
    # CPU seconds of this process: steadier than wall time on a busy machine (with -j 1 only:
    # a forked child's work is not in it)
    return {"scale": scale, "kueuelint": _package_tree(), "derive_s": derived - started,
            "simulate_s": finished - derived,
            "simulate_cpu_s": finished_cpu - derived_cpu,
            "cycles": result.cycles, "admitted": outcomes.count("admitted"),
            "pending": outcomes.count("pending"), "preempted": len(result.preempted)}


def end_to_end(scale: float, seed: int, jobs: int | None, installed: bool = False) -> dict[str, float]:
    """Wall seconds of a whole ``kueuelint admit`` process per snapshot format."""
    import json
    import subprocess
    import tempfile

    import yaml

    snapshot = {"apiVersion": "v1", "items": generate(scale, seed), "kind": "List",
                "metadata": {"resourceVersion": ""}}
    times = {}
    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        # the input bounds are for untrusted manifests; a large cluster's dump passes them
        (folder_path / "config.yaml").write_text(
            "max-file-bytes: 2000000000\nmax-file-nodes: 200000000\nmax-nodes: 200000000\n")
        (folder_path / "snapshot.json").write_text(json.dumps(snapshot, indent=4))
        (folder_path / "snapshot.yaml").write_text(yaml.dump(snapshot, Dumper=yaml.CSafeDumper, sort_keys=False))
        for name in ("snapshot.json", "snapshot.yaml"):
            command = [sys.executable, "-m", "kueuelint", "admit", "--snapshot", str(folder_path / name),
                       "--config", str(folder_path / "config.yaml"), "--format", "json", "--no-progress"]
            if jobs:
                command += ["-j", str(jobs)]
            started = time.perf_counter()
            done = subprocess.run(command, stdout=subprocess.DEVNULL, check=False,
                                  cwd=folder if installed else Path(__file__).resolve().parent.parent)
            times[name.split(".")[1]] = time.perf_counter() - started
            if done.returncode not in (0, 1):       # 1: some workload stays pending, as expected
                raise SystemExit(f"kueuelint admit failed on {name} (exit {done.returncode})")
    return times


def _package_tree() -> str:
    """The folder holding the kueuelint package this process imported."""
    import kueuelint

    return str(Path(kueuelint.__file__).resolve().parent.parent)


def _build() -> str:
    import kueuelint
    from kueuelint.admission import compiled

    return f"{Path(kueuelint.__file__).parent}, {'compiled with mypyc' if compiled() else 'pure Python'}"


def _report(rows: list[dict]) -> None:
    for row in rows:
        print(f"scale {row['scale']:g}: derive {row['derive_s']:.2f}s, simulate {row['simulate_s']:.2f}s "
              f"({row['simulate_cpu_s']:.2f}s CPU), {_counts(row)}")
    if len(rows) == 2 and rows[0]["simulate_s"]:
        factor = rows[1]["scale"] / rows[0]["scale"]
        print(f"simulate time ratio for x{factor:g} counts: {rows[1]['simulate_s'] / rows[0]['simulate_s']:.2f}")


def _repeated(scales: list[float], args) -> dict[float, list[dict]]:
    """Each scale ``args.repeat`` times, a new process each time, the scales taking turns."""
    rows: dict[float, list[dict]] = {scale: [] for scale in scales}
    for _ in range(args.repeat or 1):
        for scale in scales:
            rows[scale].append(_row(scale, args))
    return rows


def _row(scale: float, args, source: Path | None = None) -> dict:
    """One measurement in a new process: of ``source`` (a kueuelint source tree) when given,
    else of what this run measures (this tree, or the installed kueuelint)."""
    command = [sys.executable, __file__, "--one-row", "--seed", str(args.seed), "--scale", str(scale)]
    command += ["--tas"] if args.tas else []
    command += ["--jobs", str(args.jobs)] if args.jobs else []
    if source is not None:
        command += ["--source", str(source)]
    elif args.installed:
        command += ["--installed"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"admit_bench: the measurement of {source or 'this build'} failed: {last}")
    row = json.loads(done.stdout)
    if source is not None and Path(row["kueuelint"]) != source:
        raise SystemExit(f"admit_bench: --against {source} imported the kueuelint in {row['kueuelint']}")
    return row


def _report_repeated(rows: dict[float, list[dict]], repeat: int) -> None:
    medians = {}
    for scale, runs in rows.items():
        times = [row["simulate_s"] for row in runs]
        medians[scale] = statistics.median(times)
        print(f"scale {scale:g}: simulate {' '.join(f'{t:.2f}' for t in times)} s: median {medians[scale]:.2f}, "
              f"fastest {min(times):.2f}; derive median {statistics.median(r['derive_s'] for r in runs):.2f}s; "
              f"{_counts(runs[0])}")
    if len(medians) == 2:
        small, large = sorted(medians)
        print(f"simulate time ratio for x{large / small:g} counts (medians of {repeat}): "
              f"{medians[large] / medians[small]:.2f}")


def _source_tree(path: Path) -> Path:
    """``--against``'s folder, which must hold a kueuelint source tree (a typo fails the run)."""
    tree = path.expanduser().resolve()
    if not (tree / "kueuelint" / "__init__.py").is_file():
        raise SystemExit(f"admit_bench: --against {path}: no kueuelint source tree there "
                         "(kueuelint/__init__.py is missing)")
    return tree


def _side_by_side(scales: list[float], args, other: Path) -> dict[float, dict[str, list[dict]]]:
    """Each scale ``--repeat`` times on this build and on ``other``, a new process each time;
    the two sides swap which goes first every round, so neither always runs on a warmer or
    busier machine."""
    rows: dict[float, dict[str, list[dict]]] = {scale: {"this": [], "other": []} for scale in scales}
    for number in range(args.repeat or 5):
        for scale in scales:
            for side in ("this", "other") if number % 2 == 0 else ("other", "this"):
                rows[scale][side].append(_row(scale, args, other if side == "other" else None))
    return rows


def _report_against(rows: dict[float, dict[str, list[dict]]], other: Path) -> None:
    for scale, sides in rows.items():
        for side, name in (("this", "this build"), ("other", str(other))):
            runs = sides[side]
            times = [row["simulate_s"] for row in runs]
            print(f"scale {scale:g}, {name}: simulate {' '.join(f'{t:.2f}' for t in times)} s: "
                  f"median {statistics.median(times):.2f}, fastest {min(times):.2f}; {_counts(runs[0])}")
        ratios = [mine["simulate_s"] / theirs["simulate_s"] for mine, theirs in zip(sides["this"], sides["other"])]
        faster = sum(ratio < 1 for ratio in ratios)
        print(f"scale {scale:g}: this build's time over {other}'s, round by round: "
              f"{' '.join(f'{r:.2f}' for r in ratios)}: median {statistics.median(ratios):.2f}; "
              f"this build faster in {faster} of {len(ratios)} rounds")
        if _counts(sides["this"][0]) != _counts(sides["other"][0]):
            print(f"scale {scale:g}: the two decide differently (their counts differ)")


def _counts(row: dict) -> str:
    return (f"{row['cycles']} cycles, {row['admitted']} admitted, {row['pending']} pending, "
            f"{row['preempted']} preemptions")


def _above_zero(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return number


def _at_least_one(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {number}")
    return number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=_above_zero, action="append",
                        help="multiply every count, e.g. 0.1 or 2 (repeatable; default 1 and 2)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, help="processes for the simulation (default: as admit: the idle cores)")
    parser.add_argument("--end-to-end", action="store_true",
                        help="also time whole admit processes on the snapshot as a JSON and a YAML file")
    parser.add_argument("--installed", action="store_true",
                        help="measure the installed kueuelint instead of this source tree")
    parser.add_argument("--repeat", type=_at_least_one,
                        help="measure each scale this many times, each in a new process "
                             "(default 1; 5 with --against)")
    parser.add_argument("--tas", action="store_true",
                        help="add 2,000 nodes, 20,000 running pods and a topology-aware part of the cluster")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="also measure the kueuelint source tree in DIR, taking turns with this one")
    parser.add_argument("--one-row", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)     # read before the imports above
    args = parser.parse_args()
    scales = args.scale or [1, 2]
    if args.one_row:        # a measurement of --repeat or --against, in its own process
        print(json.dumps(measure(scales[0], args.seed, args.jobs, args.tas)))
        return
    from kueuelint.cores import default_jobs

    other = _source_tree(args.against) if args.against is not None else None
    print(f"kueuelint: {_build()}")
    print(f"jobs: {args.jobs or default_jobs()}{'' if args.jobs else ' (idle cores now)'}")
    if other is not None:
        _report_against(_side_by_side(scales, args, other), other)
    elif (args.repeat or 1) > 1:
        _report_repeated(_repeated(scales, args), args.repeat)
    elif len(scales) > 1:
        _report([runs[0] for runs in _repeated(scales, args).values()])
    else:
        _report([measure(scales[0], args.seed, args.jobs, args.tas)])
    if args.end_to_end:
        for scale in args.scale or [1, 2]:
            times = end_to_end(scale, args.seed, args.jobs, args.installed)
            print(f"scale {scale:g} end to end: kueuelint admit --snapshot snapshot.json {times['json']:.2f}s, "
                  f"snapshot.yaml {times['yaml']:.2f}s")


if __name__ == "__main__":
    main()
