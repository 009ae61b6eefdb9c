"""Cohort trees are simulated apart: a tree where a cycle changed nothing is left out of later
cycles, and the trees may be split over two processes. Neither may change any decision: every
scenario and generated clusters with many cycles of preemption give the same JSON either way.
The only field allowed to differ is a workload's ``cycle``, the cycle that decided its state: a
left-out tree keeps the cycle where it settled instead of repeating it until the last one."""

from __future__ import annotations

import os

import pytest

from kueuelint.admission import admit, partition
from kueuelint.admission.report import to_json
from kueuelint.admission.run import simulate
from kueuelint.admission.scheduler import Simulator
from kueuelint.index.inventory import Inventory
from test_admission_memo import SCENARIOS, _bench_generator, _objects, _scenario


def _admit(snapshot: list, incoming: list, cycles) -> dict:
    return admit(_objects(snapshot), _objects(incoming), cycles)[1]


def _without_cycles(data: dict) -> tuple[dict, dict]:
    cycles = {entry["workload"]: entry.pop("cycle", None) for entry in data["workloads"]}
    return data, cycles


def _every_tree_every_cycle(monkeypatch) -> None:
    """The simulator as it was: all heads nominated in every cycle."""
    original = Simulator.cycle

    def cycle(self):
        self._active = None
        return original(self)

    monkeypatch.setattr(Simulator, "cycle", cycle)



@pytest.mark.parametrize("name", SCENARIOS)
def test_leaving_settled_trees_out_changes_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    try:
        fast = _admit(snapshot, incoming, cycles)
    except Exception as error:      # scenarios about invalid input fail the same way either way
        pytest.skip(f"not simulated: {type(error).__name__}")
    with monkeypatch.context() as patch:
        _every_tree_every_cycle(patch)
        full = _admit(snapshot, incoming, cycles)
    assert _without_cycles(fast)[0] == _without_cycles(full)[0]


@pytest.mark.parametrize("seed", [1, 2])
def test_leaving_settled_trees_out_changes_nothing_on_a_generated_cluster(seed, monkeypatch):
    objects = _bench_generator()(0.15, seed)     # 30 queues in 3 cohort trees
    fast, fast_cycles = _without_cycles(_admit(objects, [], None))
    with monkeypatch.context() as patch:
        _every_tree_every_cycle(patch)
        full, full_cycles = _without_cycles(_admit(objects, [], None))
    assert fast["cycles"] > 20 and fast["preempted"]
    assert fast == full
    # a settled workload's cycle is where it settled, never later than the full run's
    decided = [key for key, cycle in fast_cycles.items() if cycle is not None]
    assert all(fast_cycles[key] <= full_cycles[key] for key in decided)
    assert any(fast_cycles[key] < full_cycles[key] for key in decided)


# --- two processes ------------------------------------------------------------------------------

def _split_always(monkeypatch) -> None:
    monkeypatch.setattr(partition, "MIN_QUEUED_TO_SPLIT", 0)


def _simulate(objects: list, jobs: int):
    inventory = Inventory(_objects(objects))
    return simulate(inventory, [], None, jobs)


@pytest.mark.parametrize("name", SCENARIOS)
def test_two_processes_change_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    try:
        alone = _admit(snapshot, incoming, cycles)
    except Exception as error:
        pytest.skip(f"not simulated: {type(error).__name__}")
    with monkeypatch.context() as patch:
        _split_always(patch)
        patch.setattr(partition, "default_jobs", lambda: 2)
        split = _admit(snapshot, incoming, cycles)
    assert split == alone


@pytest.mark.parametrize("seed", [1, 2])
def test_two_processes_decide_and_end_like_one(seed, monkeypatch):
    objects = _bench_generator()(0.15, seed)
    alone = _simulate(objects, jobs=1)
    _split_always(monkeypatch)
    split = _simulate(objects, jobs=2)
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


@pytest.mark.parametrize("failure", ["child dies", "no fork"])
def test_a_failed_child_leaves_its_trees_to_this_process(failure, monkeypatch):
    objects = _bench_generator()(0.1, 1)
    alone = to_json(_simulate(objects, jobs=1))
    _split_always(monkeypatch)
    if failure == "child dies":
        monkeypatch.setattr(partition, "_child_main", lambda work, writer: os._exit(3))
    else:
        def no_fork():
            raise OSError("fork: resource temporarily unavailable")
        monkeypatch.setattr(partition.os, "fork", no_fork)
    assert to_json(_simulate(objects, jobs=2)) == alone


def test_small_runs_and_one_job_stay_in_one_process(monkeypatch):
    started = []
    monkeypatch.setattr(partition._Child, "start", classmethod(lambda cls, work: started.append(1)))
    objects = _bench_generator()(0.1, 1)
    _simulate(objects, jobs=2)                      # 1,000 queued: under the threshold
    _split_always(monkeypatch)
    _simulate(objects, jobs=1)
    assert started == []
