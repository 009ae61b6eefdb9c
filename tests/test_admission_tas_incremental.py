"""What the TAS bookkeeping keeps from one question to the next (counts brought up to date as
usage changes, placements remembered, the short cuts of preemption searches) must not change an
answer: on random clusters, after random admissions, preemptions, reservations and searches,
every placement, every fit during a search and every refit equals the one worked out afresh on
new flavors from the usage summed up here. Afresh, a placement at any level also takes the
general way, domains sorted, instead of bisecting the domains kept in order of their counts;
and the counts kept per level, in that order, equal those counted afresh."""

from __future__ import annotations

import random
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from kueuelint.admission.assignment import Assignment, PodSetResult
from kueuelint.admission.model import FIT, PREEMPT, ClusterQueue, PodSetSpec, ResourceGroup
from kueuelint.admission.nodes import Node
from kueuelint.admission.tas import HOSTNAME, Placement, PodSetAsk, TopologyRequest, build_flavor
from kueuelint.admission import tas_placement
from kueuelint.admission.tas_counts import counts_for
from kueuelint.admission.tas_placement import place
from kueuelint.admission.topology import Topologies, add_usage

LEVELS = ("block", "rack", HOSTNAME)
# Three flavors on the nodes (sharing their usage), one of them with the nodes as its only
# level; one more whose lowest level is the rack.
FLAVORS = {"left": (LEVELS, {"pool": "left"}), "right": (LEVELS, {"pool": "right"}),
           "hosts": (LEVELS[2:], {"pool": "right"}), "racks": (LEVELS[:2], {"pool": "left"})}
REQUESTS = (None, TopologyRequest(required="rack"), TopologyRequest(required="block"),
            TopologyRequest(preferred="rack"), TopologyRequest(unconstrained=True),
            TopologyRequest(preferred=HOSTNAME),
            TopologyRequest(required="block", slice_level="rack", slice_size=2))
SHAPES = ({"cpu": 1000, "memory": 2}, {"cpu": 2000, "memory": 8}, {"cpu": 3000, "memory": 1})


@contextmanager
def _general_way():
    """Placements made the general way: with slices per domain not the pods' own dict, no
    level is read from the domains kept in order (tas_placement._fit_level)."""
    kept = tas_placement._slices
    tas_placement._slices = lambda flavor, pods, plan: dict(kept(flavor, pods, plan))
    try:
        yield
    finally:
        tas_placement._slices = kept


def _nodes(rng: random.Random) -> list[Node]:
    nodes = []
    for block in range(2):
        for rack in range(3):
            for index in range(rng.choice((2, 4))):
                labels = {"pool": ("left", "right")[block], "block": f"b{block}", "rack": f"b{block}-r{rack}",
                          HOSTNAME: f"b{block}-r{rack}-n{index}"}
                taints = [{"key": "gpu", "effect": "NoSchedule"}] if rng.random() < 0.1 else []
                allocatable = {"cpu": rng.choice((4000, 8000)), "memory": 16, "pods": rng.choice((3, 8))}
                nodes.append(Node(labels[HOSTNAME], labels, taints, allocatable,
                                  {"cpu": rng.choice((0, 500, 7000)), "pods": 1}))
    return nodes


def _fresh(nodes: list[Node]) -> dict:
    return {name: build_flavor(name, "t", levels, labels, [], nodes) for name, (levels, labels) in FLAVORS.items()}


class World:
    """A Topologies under test, and what it should hold, summed up separately."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.nodes = rng, _nodes(rng)
        self.topologies = Topologies(_fresh(self.nodes), True)
        self.held: dict[str, dict] = {}
        self.reserved: list[dict] = []
        self.number = 0

    def usage(self, aside=()) -> dict:
        """Bucket -> leaf -> amounts of every held workload but those ``aside``, and reservations."""
        total: dict = {}
        for used in [u for key, u in self.held.items() if key not in aside] + self.reserved:
            for bucket, leaves in used.items():
                add_usage(total.setdefault(bucket, {}), leaves, 1)
        return total

    def expected(self, pod_sets: list[tuple[str, PodSetAsk]], aside=(), empty: bool = False):
        """Placements (or the first reason) worked out afresh, one pod set after another;
        ``empty``: on nodes without TAS workloads."""
        flavors, usage, assumed = _fresh(self.nodes), self.usage(aside), {}
        placements = []
        for name, ask in sorted(pod_sets, key=lambda item: item[0]):
            flavor = flavors[name]
            mine = assumed.setdefault(flavor.usage_bucket, {})
            used = None if empty else usage.get(flavor.usage_bucket, {})
            with _general_way():
                placement, reason = place(flavor, ask, used, dict(mine))
            if placement is None:
                return reason
            placements.append(placement)
            add_usage(mine, placement.usage(flavor, ask.per_pod), 1)
        return placements

    def request(self, pod_sets: int = 1):
        """A ClusterQueue, workload and FIT assignment asking for random pod sets."""
        rng, names = self.rng, sorted(FLAVORS)
        flavors = [rng.choice(names) for _ in range(pod_sets)]
        specs = [PodSetSpec(f"ps{i}", rng.choice((1, 2, 3, 4, 6, 9, 12)), per_pod=dict(rng.choice(SHAPES)), topology=rng.choice(REQUESTS))
                 for i in range(pod_sets)]
        results = [PodSetResult(spec.name, spec.count, {"cpu": flavor, "memory": flavor})
                   for spec, flavor in zip(specs, flavors)]
        cq = ClusterQueue("cq", groups=[ResourceGroup(("cpu", "memory"), tuple(names))])
        asks = [(flavor, PodSetAsk(spec.name, spec.count, spec.per_pod, spec.topology, [], {}, None))
                for spec, flavor in zip(specs, flavors)]
        return cq, SimpleNamespace(pod_sets=specs), Assignment.of(results), asks

    def admit(self) -> None:
        cq, workload, assignment, asks = self.request()
        self.topologies.check(cq, workload, assignment)
        expected = self.expected(asks)
        if assignment.mode != FIT:      # not placed now; placed on empty nodes to preempt
            assert not isinstance(expected, list)
            empty = self.expected(asks, empty=True)
            assert (assignment.mode == PREEMPT) == isinstance(empty, list)
            if assignment.mode == PREEMPT:
                assert _in_flavor_order(assignment) == empty
            return
        assert _in_flavor_order(assignment) == expected
        self.refit(workload, assignment)
        self.number += 1
        used = self.topologies.usage_of(workload, assignment)
        if self.rng.random() < 0.3:
            self.topologies.reserve_for_cycle(used)
            self.reserved.append(used)
        else:
            self.topologies.hold(f"w{self.number}", used)
            self.held[f"w{self.number}"] = used

    def refit(self, workload, assignment, gone=()) -> None:
        """Does an assignment still fit with none, the workloads ``gone``, or these and others gone?"""
        for others in ([], list(gone), list(gone) + self.rng.sample(sorted(self.held), min(len(self.held), 2))):
            fits = _fits(_fresh(self.nodes), self.usage(others), workload, assignment)
            assert self.topologies.still_fits(workload, assignment, others) == fits

    def search(self) -> None:
        """A preemption search: candidates set aside one by one, some put back, as Kueue's
        heuristic does; at every step the preemptor's fit is compared."""
        cq, workload, assignment, asks = self.request(self.rng.choice((1, 1, 2)))
        candidates = self.rng.sample(sorted(self.held), min(len(self.held), self.rng.randint(1, 5)))

        def find():
            aside = []
            for key in candidates:
                self.topologies.set_aside(key, True)
                aside.append(key)
                assert self.topologies.preemptor_fits() == isinstance(self.expected(asks, aside), list)
            for key in aside[:-1]:
                self.topologies.set_aside(key, False)
                aside.remove(key)
                assert self.topologies.preemptor_fits() == isinstance(self.expected(asks, aside), list)
            for key in aside:
                self.topologies.set_aside(key, False)
            return [SimpleNamespace(workload=SimpleNamespace(key=key)) for key in aside]

        found = self.topologies.targets(cq, workload, assignment, find)
        gone = [t.workload.key for t in found]
        expected = self.expected(asks, gone)
        if found and isinstance(expected, list):
            assert _in_flavor_order(assignment) == expected
            self.refit(workload, assignment, gone)

    def release(self) -> None:
        key = self.rng.choice(sorted(self.held))
        self.topologies.release(key)
        del self.held[key]

    def end_cycle(self) -> None:
        self.topologies.end_cycle()
        self.reserved = []

    def counts(self) -> None:
        """Every count kept, brought up to date, equals the one counted afresh, per domain and
        in the order of each level."""
        self.topologies._settle()
        fresh, usage = _fresh(self.nodes), self.usage(self.topologies._aside)
        for name, flavor in self.topologies.flavors.items():
            for (shape, empty), kept in list(flavor.counts.items()):
                ask = PodSetAsk("ps", 1, dict(shape[0]), None, [], {}, None)
                used = None if empty else usage.get(flavor.usage_bucket, {})
                kept = counts_for(flavor, ask, used, {})
                again = counts_for(fresh[name], ask, used, {})
                assert kept.ordered == again.ordered and kept.total == again.total
                assert {d.values: n for d, n in kept.pods.items()} == {d.values: n for d, n in again.pods.items()}


def _in_flavor_order(assignment) -> list:
    return [r.topology for r in sorted(assignment.pod_sets, key=lambda r: r.flavors["cpu"])]


def _fits(flavors: dict, usage: dict, workload, assignment) -> bool:
    for spec, result in zip(workload.pod_sets, assignment.pod_sets):
        flavor = flavors[result.flavors["cpu"]]
        taken = usage.get(flavor.usage_bucket, {})
        for leaf, amounts in result.topology.usage(flavor, spec.per_pod).items():
            room = flavor.free.get(leaf)
            if room is None or any(room.get(r, 0) - taken.get(leaf, {}).get(r, 0) < a for r, a in amounts.items()):
                return False
    return True


@pytest.mark.parametrize("seed", range(40))
def test_kept_answers_equal_fresh_ones(seed):
    world = World(random.Random(seed))
    steps = [world.admit] * 5 + [world.search] * 3 + [world.release, world.end_cycle, world.counts]
    for _ in range(60):
        step = world.rng.choice(steps)
        if step == world.release and not world.held:
            continue
        step()
