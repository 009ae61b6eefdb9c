"""Cohort trees are simulated apart: a tree where a cycle changed nothing is left out of later
cycles, and the trees may be split over two processes. Neither may change any decision: every
scenario and generated clusters with many cycles of preemption give the same JSON either way.
The only field allowed to differ is a workload's ``cycle``, the cycle that decided its state: a
left-out tree keeps the cycle where it settled instead of repeating it until the last one."""

from __future__ import annotations

import os

import pytest

from kueuelint.admission import partition, run
from kueuelint.admission.build import build_state
from kueuelint.admission.run import simulate
from kueuelint.admission.scheduler import Simulator
from kueuelint.admission.workloads import Priorities
from kueuelint.index.inventory import Inventory
from helpers_admission import admit_json as admit, to_json
from helpers_build import patches_simulator
from helpers_fork import FAILURES, make_the_child_fail
from test_admission_memo import SCENARIOS, _bench_generator, _objects, _scenario

KUEUE = "kueue.x-k8s.io/v1beta2"


def _admit(snapshot: list, incoming: list, cycles) -> dict:
    return admit(_objects(snapshot), _objects(incoming), cycles)[1]


def _without_cycles(data: dict) -> tuple[dict, dict]:
    cycles = {entry["workload"]: entry.pop("cycle", None) for entry in data["workloads"]}
    return data, cycles


def _counting_heads(monkeypatch) -> list[int]:
    """Counts the heads nominated (one entry per cycle): what leaving a tree out saves."""
    original, counts = Simulator._heads, []

    def heads(self):
        found = original(self)
        counts.append(len(found))
        return found

    monkeypatch.setattr(Simulator, "_heads", heads)
    return counts


def _every_tree_every_cycle(monkeypatch) -> None:
    """The simulator as it was: all heads nominated in every cycle."""
    original = Simulator.cycle

    def cycle(self):
        self._active = None
        return original(self)

    monkeypatch.setattr(Simulator, "cycle", cycle)



@patches_simulator
@pytest.mark.parametrize("name", SCENARIOS)
def test_leaving_settled_trees_out_changes_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    fast = _admit(snapshot, incoming, cycles)
    with monkeypatch.context() as patch:
        _every_tree_every_cycle(patch)
        full = _admit(snapshot, incoming, cycles)
    assert _without_cycles(fast)[0] == _without_cycles(full)[0]


@patches_simulator
@pytest.mark.parametrize("seed", [1, 2])
def test_leaving_settled_trees_out_changes_nothing_on_a_generated_cluster(seed, monkeypatch):
    # 30 queues in 3 cohort trees, which keep changing until a preemption ping-pong stops them;
    # and one tree that settles at once: a StrictFIFO head that can never fit blocks its queue
    objects = _bench_generator()(0.15, seed) + _blocked_tree()
    with monkeypatch.context() as patch:
        fast_heads = _counting_heads(patch)
        fast, fast_cycles = _without_cycles(_admit(objects, [], None))
    with monkeypatch.context() as patch:
        _every_tree_every_cycle(patch)
        full_heads = _counting_heads(patch)
        full, full_cycles = _without_cycles(_admit(objects, [], None))
    assert fast["cycles"] > 20 and fast["preempted"]
    assert fast == full
    # a settled workload's cycle is where it settled, never later than the full run's
    decided = [key for key, cycle in fast_cycles.items() if cycle is not None]
    assert all(fast_cycles[key] <= full_cycles[key] for key in decided)
    # trees were left out: fewer heads nominated over the same cycles. (Their reported cycles
    # need not show it: a settled tree's only heads may be requeued victims from the snapshot,
    # which the report does not list.)
    assert len(fast_heads) == len(full_heads) and sum(fast_heads) < sum(full_heads)


def _blocked_tree() -> list[dict]:
    return [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "blocked"}},
        {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "blocked"},
         "spec": {"cohortName": "co-blocked", "namespaceSelector": {}, "queueingStrategy": "StrictFIFO",
                  "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                      {"name": "blocked", "resources": [{"name": "cpu", "nominalQuota": 1}]}]}]}},
        {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "blocked", "namespace": "bench"},
         "spec": {"clusterQueue": "blocked"}},
        {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": "too-big", "namespace": "bench"},
         "spec": {"queueName": "blocked", "podSets": [{"name": "main", "count": 2, "template": {"spec": {
             "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}}]


# --- two processes ------------------------------------------------------------------------------

def _split_always(monkeypatch) -> None:
    monkeypatch.setattr(partition, "MIN_QUEUED_TO_SPLIT", 0)


def _simulate(objects: list, jobs: int):
    inventory = Inventory(_objects(objects))
    return simulate(inventory, [], None, jobs)


@pytest.mark.parametrize("name", SCENARIOS)
def test_two_processes_change_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    alone = _admit(snapshot, incoming, cycles)
    with monkeypatch.context() as patch:
        _split_always(patch)
        patch.setattr(partition, "default_jobs", lambda: 2)
        split = _admit(snapshot, incoming, cycles)
    assert split == alone


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("jobs", [2, 1], ids=["two processes", "tree after tree"])
def test_trees_simulated_apart_decide_and_end_like_all_together(seed, jobs, monkeypatch):
    objects = _bench_generator()(0.15, seed)
    alone = _simulate(objects, jobs=1)
    _split_always(monkeypatch)
    split = _simulate(objects, jobs=jobs)
    assert to_json(split) == to_json(alone)
    assert len(alone.preempted) > 10 and alone.warnings == split.warnings
    # the state the report reads: usage of every node, and the holders of every queue
    for kind in ("queues", "cohorts"):
        for name, node in getattr(alone.state.tree, kind).items():
            assert getattr(split.state.tree, kind)[name].usage == node.usage, name
    for name in alone.state.queues:
        assert set(split.state.admitted_by_cq.get(name, {})) == set(alone.state.admitted_by_cq.get(name, {}))
        frs = sorted({fr for held in alone.state.holders(name) for fr in held.usage})
        assert [h.key for h in split.state.holders_in_order(name, frs)] == \
            [h.key for h in alone.state.holders_in_order(name, frs)]


def test_each_process_reads_the_holders_of_its_own_trees_only(monkeypatch):
    objects = _bench_generator()(0.15, 2)
    holders = sum(1 for data in objects if data.get("status", {}).get("admission"))
    read = []
    original = run.admitted_from_workload

    def counted(obj, *rest):
        read.append(obj.name)
        return original(obj, *rest)

    monkeypatch.setattr(run, "admitted_from_workload", counted)
    _split_always(monkeypatch)
    result = _simulate(objects, jobs=2)
    assert 0 < len(read) < holders      # the child read the others, in its own memory
    alone = _simulate(objects, jobs=1)
    assert sum(map(len, result.state.admitted_by_cq.values())) == sum(map(len, alone.state.admitted_by_cq.values()))
    assert len(read) == 2 * holders     # asked for, the rest were read here too (and alone: all)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_tree_with_nothing_queued_still_counts_its_holders(jobs, monkeypatch):
    """Nobody simulates such a tree, yet the quota table reads its usage."""
    objects = _bench_generator()(0.15, 1)         # cq<n> in cohort co<n % 3>
    idle = {data["metadata"]["name"] for data in objects
            if data["kind"] == "ClusterQueue" and data["spec"]["cohortName"] == "co1"}
    objects = [data for data in objects if "status" in data or data["kind"] != "Workload"
               or data["spec"]["queueName"].removeprefix("lq-") not in idle]
    expected: dict[tuple, int] = {}
    for data in objects:
        admission = data.get("status", {}).get("admission", {})
        if admission.get("clusterQueue") in idle:
            assigned = admission["podSetAssignments"][0]
            fr = (admission["clusterQueue"], assigned["flavors"]["cpu"])
            expected[fr] = expected.get(fr, 0) + 1000 * int(assigned["resourceUsage"]["cpu"])
    _split_always(monkeypatch)
    result = _simulate(objects, jobs=jobs)
    assert expected and all(result.state.tree.usage(queue, (flavor, "cpu")) == amount
                            for (queue, flavor), amount in expected.items())


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_child_leaves_its_trees_to_this_process(failure, monkeypatch):
    objects = _bench_generator()(0.1, 1)
    alone = to_json(_simulate(objects, jobs=1))
    _split_always(monkeypatch)
    make_the_child_fail(monkeypatch, failure)
    assert to_json(_simulate(objects, jobs=2)) == alone


def test_a_child_result_that_cannot_be_read_leaves_its_trees_to_this_process(monkeypatch):
    """The child pickles each tree's results on its own; one unreadable tree is a failed child."""
    objects = _bench_generator()(0.1, 1)
    alone = to_json(_simulate(objects, jobs=1))
    _split_always(monkeypatch)
    monkeypatch.setattr(partition, "_packed", lambda result: b"not a pickle")
    assert to_json(_simulate(objects, jobs=2)) == alone


def test_small_runs_and_one_job_stay_in_one_process(monkeypatch):
    started = []
    monkeypatch.setattr(partition.Child, "start", classmethod(lambda cls, work: started.append(1)))
    objects = _bench_generator()(0.1, 1)
    _simulate(objects, jobs=2)                      # 1,000 queued: under the threshold
    _split_always(monkeypatch)
    _simulate(objects, jobs=1)
    assert started == []


def _tree_order(queues: dict[str, tuple[dict, int]]) -> list[list[str]]:
    """The order ``partition`` hands out the trees of ``queues``: name -> (preemption, pending
    workloads), each ClusterQueue in a cohort of its own."""
    snapshot = [{"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "f"}}]
    for name, (preemption, pending) in queues.items():
        snapshot += [
            {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name},
             "spec": {"cohortName": f"co-{name}", "namespaceSelector": {}, "preemption": preemption,
                      "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                          {"name": "f", "resources": [{"name": "cpu", "nominalQuota": 1}]}]}]}},
            {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": name, "namespace": "ns"},
             "spec": {"clusterQueue": name}}]
        snapshot += [
            {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": f"{name}-{n}", "namespace": "ns"},
             "spec": {"queueName": name, "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                 "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}}
            for n in range(pending)]
    inventory = Inventory(_objects(snapshot))
    state, _ = build_state(inventory, False, False)
    pending_records, _, _ = run._snapshot_workloads(inventory, [], Priorities(inventory), lambda text: None)
    queued = [wl for wl in pending_records if run._resolve_queue(wl, inventory, state, {}) is None]
    return [names for names, _ in partition._trees(state, queued)]


WITHIN = {"withinClusterQueue": "LowerPriority"}
BOTH = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}


def test_trees_whose_queues_may_evict_are_handed_out_first():
    """Victim searches make a tree long: two processes end together when short trees come last."""
    assert _tree_order({"calm": ({}, 5), "evicting": (WITHIN, 3)}) == [["evicting"], ["calm"]]
    assert _tree_order({"calm": ({}, 7), "evicting": (WITHIN, 3)}) == [["calm"], ["evicting"]]
    assert _tree_order({"within": (WITHIN, 4), "both": (BOTH, 3)}) == [["both"], ["within"]]
    assert _tree_order({"a": ({}, 2), "b": ({}, 4), "c": ({}, 3)}) == [["b"], ["c"], ["a"]]


# --- progress -----------------------------------------------------------------------------------

def test_progress_tells_each_phase_and_changes_nothing(monkeypatch):
    objects = _bench_generator()(0.1, 1)
    quiet = to_json(_simulate(objects, jobs=1))
    lines: list[str] = []
    told = simulate(Inventory(_objects(objects)), [], None, 1, lines.append)
    assert to_json(told) == quiet
    assert lines[0].startswith("reading Workloads: 0/")
    cycles = [line for line in lines if "cycle" in line]
    assert cycles[:2] == ["simulating: cycle 1", "simulating: cycle 2"]
    # The cycles that changed something, then the few in which heads only resumed their flavor
    # scans from points they had not had (a handful here), the last finding nothing new.
    assert told.cycles < len(cycles) <= told.cycles + 1 + 4


def test_progress_of_trees_taken_one_after_another_names_the_tree(monkeypatch):
    objects = _bench_generator()(0.1, 1)
    _split_always(monkeypatch)
    lines: list[str] = []
    simulate(Inventory(_objects(objects)), [], None, 1, lines.append)
    cycles = [line for line in lines if "cycle" in line]
    assert cycles[0] == "simulating: cohort tree 1 of 2, cycle 1"
    assert any(line.startswith("simulating: cohort tree 2 of 2, cycle ") for line in cycles)


def test_progress_of_two_processes_comes_from_this_one_only(tmp_path, monkeypatch):
    """The child's lines would garble the one status line; they are recorded with the pid of
    the process that told them, in a file both processes append to."""
    objects = _bench_generator()(0.1, 1)
    quiet = to_json(_simulate(objects, jobs=2))
    _split_always(monkeypatch)
    record = tmp_path / "told.txt"

    def tell(text: str) -> None:
        with open(record, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {text}\n")

    assert to_json(simulate(Inventory(_objects(objects)), [], None, 2, tell)) == quiet
    told = [line.split(" ", 1) for line in record.read_text().splitlines()]
    assert {pid for pid, _ in told} == {str(os.getpid())}
    assert any(text.startswith("simulating in two processes: cohort tree ") for _, text in told)


def _stderr_on_a_terminal(*argv: str) -> tuple[int, str]:
    """Run ``kueuelint`` with stderr on a pseudo-terminal; (exit code, what it drew there)."""
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "kueuelint", *argv], stdout=subprocess.DEVNULL,
                              stderr=follower, check=False, timeout=120)
    finally:
        os.close(follower)
    drawn = b""
    try:
        while chunk := os.read(leader, 65536):
            drawn += chunk
    except OSError:         # the terminal is closed once everything was read
        pass
    os.close(leader)
    return proc.returncode, drawn.decode()


def test_admit_draws_a_status_line_on_a_terminal_for_a_large_snapshot(tmp_path):
    import yaml

    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(yaml.safe_dump_all(_bench_generator()(0.05, 1)))
    assert snapshot.stat().st_size > 2_000_000
    code, drawn = _stderr_on_a_terminal("admit", "--snapshot", str(snapshot), "--format", "json")
    assert code in (0, 1)
    assert f"\r\x1b[Kreading {snapshot}" in drawn and "\r\x1b[Ksimulating" in drawn
    assert drawn.endswith("\r\x1b[K")           # cleared before the report
    code, drawn = _stderr_on_a_terminal("admit", "--snapshot", str(snapshot), "--no-progress")
    assert code in (0, 1) and drawn == ""
    small = tmp_path / "small.yaml"             # read and simulated in an instant: no flicker
    small.write_text(yaml.safe_dump_all(_bench_generator()(0.002, 1)))
    code, drawn = _stderr_on_a_terminal("admit", "--snapshot", str(small))
    assert code in (0, 1) and drawn == ""


def test_status_and_progress_lines_are_throttled_and_cleared(monkeypatch):
    import io
    import time

    from kueuelint.cli.output import progress_printer, status_printer

    # A machine booted a minute ago: its monotonic clock is still below the interval.
    monkeypatch.setattr(time, "monotonic", lambda: 60.0)
    stream = io.StringIO()
    show = status_printer(stream, interval=3600)
    show(None)                                  # nothing drawn: nothing to clear
    show("reading a.yaml")
    show("reading b.yaml")                      # within the interval: skipped
    show("done", force=True)
    show(None)
    assert stream.getvalue() == "\r\x1b[Kreading a.yaml\r\x1b[Kdone\r\x1b[K"
    stream = io.StringIO()
    progress = progress_printer(stream, min_files=3, interval=3600)
    progress(1, 2)                              # too few files to bother
    progress(1, 3)
    progress(2, 3)
    progress(3, 3)                              # the last count is always drawn
    progress(0, 0)
    assert stream.getvalue() == "\r\x1b[Kchecking 1/3 files\r\x1b[Kchecking 3/3 files\r\x1b[K"


def test_the_records_a_child_sends_back_survive_pickling():
    """In the compiled build a record class with its own __init__ cannot be unpickled, and a
    child whose results cannot be read is a child whose trees this process simulates again."""
    import pickle

    objects = _bench_generator()(0.04, 1)
    result = _simulate(objects, jobs=1)
    admitted = next(o for o in result.outcomes.values() if o.result == "admitted" and o.preempts)
    holder = next(iter(result.state.holders(admitted.cluster_queue)))
    outcome = pickle.loads(pickle.dumps(admitted))
    assert repr(outcome.assignment) == repr(admitted.assignment) and outcome.message == admitted.message
    assert [(t.workload.__getstate__(), t.reason) for t in outcome.preempts] == \
        [(t.workload.__getstate__(), t.reason) for t in admitted.preempts]
    assert pickle.loads(pickle.dumps(holder)).__getstate__() == holder.__getstate__()
