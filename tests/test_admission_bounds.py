"""The simulator's early exits must be invisible: the preemption search's upper bound on what
evictions could free, its answer for queues whose policies evict nothing, and the flavor
assigner skipping the oracle of a flavor that could not be preferred anyway. With each turned
off, every scenario and a generated cluster with many cycles of preemption give the same JSON,
and on that cluster the exit is taken."""

from __future__ import annotations

import pytest

from kueuelint.admission import flavors, preemption
from helpers_admission import admit_json as admit
from helpers_build import patches_simulator
from test_admission_memo import SCENARIOS, _bench_generator, _objects, _scenario

# name -> (module, check, what the check answers when the exit is never taken)
EXITS = {
    "own-queue-bound": (preemption, "_own_queue_cannot_make_room", False),
    "evicts-nothing": (preemption, "_may_evict", True),
    "moot-oracle": (flavors, "_may_be_preferred", True),
}


def _admit_with_and_without(exit_name: str, snapshot: list, incoming: list, cycles,
                            monkeypatch) -> tuple[dict, dict, int]:
    """JSON with the exit as it is and with it never taken, and how often it was taken."""
    module, name, off = EXITS[exit_name]
    taken = []
    check = getattr(module, name)

    def counted(*args) -> bool:
        answer = check(*args)
        taken.append(answer != off)
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(module, name, counted)
        _, with_exit = admit(_objects(snapshot), _objects(incoming), cycles)
    with monkeypatch.context() as patch:
        patch.setattr(module, name, lambda *args: off)
        _, without = admit(_objects(snapshot), _objects(incoming), cycles)
    return with_exit, without, sum(taken)


@patches_simulator
@pytest.mark.parametrize("exit_name", EXITS)
@pytest.mark.parametrize("name", SCENARIOS)
def test_an_early_exit_changes_no_scenario(exit_name, name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    with_exit, without, _ = _admit_with_and_without(exit_name, snapshot, incoming, cycles, monkeypatch)
    assert with_exit == without


@patches_simulator
@pytest.mark.parametrize("exit_name", EXITS)
@pytest.mark.parametrize("seed", [1, 3])      # seed 2 at this size has no search the bound ends
def test_an_early_exit_is_taken_without_changing_results(exit_name, seed, monkeypatch):
    objects = _bench_generator()(0.04, seed)
    with_exit, without, taken = _admit_with_and_without(exit_name, objects, [], None, monkeypatch)
    assert with_exit["preempted"] and taken > 0
    assert with_exit == without
