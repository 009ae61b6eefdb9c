"""The simulator's early exits must be invisible: the preemption search's upper bound on what
evictions could free, its answer for queues whose policies evict nothing, and the flavor
assigner skipping the oracle of a flavor that could not be preferred anyway. With each turned off, every scenario and a generated cluster with many cycles
of preemption give the same JSON, and on that cluster the exit is taken."""

from __future__ import annotations

import pytest

from kueuelint.admission import admit, flavors, preemption
from helpers_build import patches_simulator
from test_admission_memo import SCENARIOS, _bench_generator, _objects, _scenario


def _admit_with_and_without(module, name: str, off, snapshot: list, incoming: list, cycles,
                            monkeypatch) -> tuple[dict, dict, int]:
    """JSON with ``module.name`` as it is and with it answering ``off`` (the exit never taken),
    and how often the exit was taken."""
    exits = []
    check = getattr(module, name)

    def counted(*args) -> bool:
        answer = check(*args)
        exits.append(answer != off)
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(module, name, counted)
        _, with_exit = admit(_objects(snapshot), _objects(incoming), cycles)
    with monkeypatch.context() as patch:
        patch.setattr(module, name, lambda *args: off)
        _, without = admit(_objects(snapshot), _objects(incoming), cycles)
    return with_exit, without, sum(exits)


def _admit_with_and_without_bound(snapshot: list, incoming: list, cycles, monkeypatch) -> tuple[dict, dict, int]:
    return _admit_with_and_without(preemption, "_own_queue_cannot_make_room", False,
                                   snapshot, incoming, cycles, monkeypatch)


def _admit_with_and_without_no_eviction_exit(snapshot: list, incoming: list, cycles,
                                             monkeypatch) -> tuple[dict, dict, int]:
    return _admit_with_and_without(preemption, "_may_evict", True, snapshot, incoming, cycles, monkeypatch)


def _admit_with_and_without_pruning(snapshot: list, incoming: list, cycles, monkeypatch) -> tuple[dict, dict, int]:
    return _admit_with_and_without(flavors, "_may_be_preferred", True, snapshot, incoming, cycles, monkeypatch)


@patches_simulator
@pytest.mark.parametrize("name", SCENARIOS)
def test_own_queue_bound_changes_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    try:
        bounded, searched, _ = _admit_with_and_without_bound(snapshot, incoming, cycles, monkeypatch)
    except Exception as error:      # scenarios about invalid input fail the same way either way
        pytest.skip(f"not simulated: {type(error).__name__}")
    assert bounded == searched


@patches_simulator
@pytest.mark.parametrize("seed", [1, 3])      # seed 2 at this size has no search the bound ends
def test_own_queue_bound_ends_searches_without_changing_results(seed, monkeypatch):
    objects = _bench_generator()(0.04, seed)
    bounded, searched, ended = _admit_with_and_without_bound(objects, [], None, monkeypatch)
    assert bounded["preempted"] and ended > 0
    assert bounded == searched


@patches_simulator
@pytest.mark.parametrize("name", SCENARIOS)
def test_skipped_oracles_change_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    try:
        pruned, resolved, _ = _admit_with_and_without_pruning(snapshot, incoming, cycles, monkeypatch)
    except Exception as error:      # scenarios about invalid input fail the same way either way
        pytest.skip(f"not simulated: {type(error).__name__}")
    assert pruned == resolved


@patches_simulator
@pytest.mark.parametrize("seed", [1, 3])
def test_oracles_of_flavors_that_cannot_win_are_skipped_without_changing_results(seed, monkeypatch):
    objects = _bench_generator()(0.04, seed)
    pruned, resolved, skipped = _admit_with_and_without_pruning(objects, [], None, monkeypatch)
    assert pruned["preempted"] and skipped > 0
    assert pruned == resolved


@patches_simulator
@pytest.mark.parametrize("name", SCENARIOS)
def test_queues_that_evict_nothing_change_no_scenario(name, monkeypatch):
    snapshot, incoming, cycles = _scenario(name)
    try:
        with_exit, searched, _ = _admit_with_and_without_no_eviction_exit(snapshot, incoming, cycles, monkeypatch)
    except Exception as error:      # scenarios about invalid input fail the same way either way
        pytest.skip(f"not simulated: {type(error).__name__}")
    assert with_exit == searched


@patches_simulator
def test_queues_that_evict_nothing_skip_the_search_without_changing_results(monkeypatch):
    objects = _bench_generator()(0.04, 1)      # a quarter of its queues have no preemption policy
    with_exit, searched, skipped = _admit_with_and_without_no_eviction_exit(objects, [], None, monkeypatch)
    assert skipped > 0
    assert with_exit == searched
