"""The preemption search's early exits (upper bounds on what evictions could free) must be
invisible: with them turned off, every scenario and a generated cluster with many cycles of
preemption give the same JSON, and on that cluster the exits do end searches."""

from __future__ import annotations

import pytest

from kueuelint.admission import admit, preemption
from helpers_build import patches_simulator
from test_admission_memo import SCENARIOS, _bench_generator, _objects, _scenario


def _admit_with_and_without_bound(snapshot: list, incoming: list, cycles, monkeypatch) -> tuple[dict, dict, int]:
    exits = []
    bound = preemption._own_queue_cannot_make_room

    def counted(*args) -> bool:
        answer = bound(*args)
        exits.append(answer)
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(preemption, "_own_queue_cannot_make_room", counted)
        _, bounded = admit(_objects(snapshot), _objects(incoming), cycles)
    with monkeypatch.context() as patch:
        patch.setattr(preemption, "_own_queue_cannot_make_room", lambda *args: False)
        _, searched = admit(_objects(snapshot), _objects(incoming), cycles)
    return bounded, searched, sum(exits)


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
