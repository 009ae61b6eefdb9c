"""Cohort trees are simulated apart: a tree where a cycle changed nothing is left out of later
cycles, and the trees may be split over two processes. Neither may change any decision: every
scenario and generated clusters with many cycles of preemption give the same JSON either way.
The only field allowed to differ is a workload's ``cycle``, the cycle that decided its state: a
left-out tree keeps the cycle where it settled instead of repeating it until the last one."""

from __future__ import annotations

import pytest

from kueuelint.admission import admit
from kueuelint.admission.scheduler import Simulator
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
