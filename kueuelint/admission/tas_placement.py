"""Topology-Aware Scheduling: where on the nodes of a TAS flavor a pod set would go.

Follows Kueue v0.19.2 (pkg/cache/scheduler/tas_flavor_snapshot.go) with its feature gates at
their defaults (pkg/features/kube_features.go): the Mixed profile (TASProfileMixed, beta:
BestFit, and LeastFreeCapacity for an unconstrained request), no balanced placement
(TASBalancedPlacement is alpha) and no preferred node affinity (TASRespectNodeAffinityPreferred,
alpha). Not modelled: pod set groups (a leader placed with its workers), slice layers beyond the
first (TASMultiLayerTopology), replacing failed nodes, elastic workloads.

Phase 1 counts how many pods (and slices) fit in each domain, leaves first; phase 2 picks the
domains at the requested level (going up a level for a preferred topology that fits nowhere)
and walks down, filling the best-fitting domains first.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from dataclasses import dataclass

from kueuelint.admission.tas import Domain, PodSetAsk, Placement, TasFlavor, TopologyRequest
from kueuelint.admission.tas_counts import counts_for


@dataclass
class Plan:
    """How a request reads against one flavor's levels."""

    level: int               # index of the requested level
    slice_level: int
    slice_size: int
    required: bool
    unconstrained: bool      # placed with the LeastFreeCapacity profile (TASProfileMixed)


class _Tree:
    """One placement's view of phase 1: pods and slices that fit per domain, and the pods
    phase 2 assigns (Kueue keeps both in one mutable state; here capacity stays shared)."""

    def __init__(self, counts, slices: dict, unconstrained: bool) -> None:
        self.counts, self.pods, self.slices, self.unconstrained = counts, counts.pods, slices, unconstrained
        self.assigned: dict[Domain, int] = {}

    def sorted(self, domains: list[Domain], slices: dict | None = None) -> list[Domain]:
        """BestFit order: most slices first, then fewest pods, then by name; LeastFreeCapacity
        (an unconstrained request) takes the fewest slices first."""
        pods, slices = self.pods, slices or self.slices
        if slices is pods:      # the same order from one number: pods, then rank (by values)
            span = self.counts.spans[-1]        # no level has more domains than the leaves
            if self.unconstrained:
                return sorted(domains, key=lambda d: pods[d] * span + d.rank)
            return sorted(domains, key=lambda d: d.rank - pods[d] * span)
        if self.unconstrained:
            return sorted(domains, key=lambda d: (slices[d], pods[d], d.values))
        return sorted(domains, key=lambda d: (-slices[d], pods[d], d.values))


def place(flavor: TasFlavor, ask: PodSetAsk, used: dict[str, dict[str, int]] | None,
          assumed: dict[str, dict[str, int]]) -> tuple[Placement | None, str]:
    """Kueue's ``findTopologyAssignment`` for a pod set without a leader: the placement, or
    why there is none. ``used``: TAS usage per leaf key (None: as if every TAS workload
    were preempted); ``assumed``: what earlier pod sets of the workload take."""
    plan = flavor.plans.get(ask.request)
    if plan is None:
        plan = flavor.plans[ask.request] = _plan(flavor, ask.request)
    if isinstance(plan, str):
        return None, plan
    counts = counts_for(flavor, ask, used, assumed)
    tree = _Tree(counts, _slices(flavor, counts.pods, plan), plan.unconstrained)
    fitted = _fit_level(flavor, plan.level, ask.count, plan, tree, counts.stats)
    if isinstance(fitted, str):
        return None, fitted
    fit_level, chosen = fitted
    return _assignment(flavor, _descend(flavor, plan, tree, chosen, fit_level, ask.count), tree), ""


def pods_placed(ask: PodSetAsk) -> int:
    """The pods a placement of ``ask`` holds: whole slices only (``count // size`` of them, as
    Kueue counts them), every pod without slices."""
    size = _slice_size(ask.request)
    return ask.count if size is None or size <= 1 else ask.count // size * size


def _slice_size(request: TopologyRequest | None) -> int | None:
    """Pods per slice: 1 without a slice level; None when the level names no size."""
    return request.slice_size if request is not None and request.slice_level else 1


def _plan(flavor: TasFlavor, request: TopologyRequest | None) -> Plan | str:
    slice_size = _slice_size(request)
    if slice_size is None or slice_size <= 0:
        return "slice topology requested, but slice size not provided"
    required = request is not None and request.required is not None
    unconstrained = request is None or request.unconstrained or (
        request.slice_level is not None and not request.required and not request.preferred)
    level = _level_key(flavor, request)
    if level is None:
        return "topology level not specified"
    if level not in flavor.levels:
        return f"no requested topology level: {level}"
    slice_level = request.slice_level if request is not None and request.slice_level else flavor.levels[-1]
    if slice_level not in flavor.levels:
        return f"no requested topology level for slices: {slice_level}"
    level_index, slice_index = flavor.levels.index(level), flavor.levels.index(slice_level)
    if level_index > slice_index:
        return f"podset slice topology {slice_level} is above the podset topology {level}"
    return Plan(level_index, slice_index, slice_size, required, unconstrained)


def _level_key(flavor: TasFlavor, request: TopologyRequest | None) -> str | None:
    if request is None:
        return flavor.levels[-1]
    if request.required:
        return request.required
    if request.preferred:
        return request.preferred
    if request.slice_level:
        return flavor.levels[0]
    if request.unconstrained:
        return flavor.levels[-1]
    return None


def _slices(flavor: TasFlavor, pods: dict, plan: Plan) -> dict:
    """Slices per domain (Kueue's ``fillInCountsHelper``): pods // size at the slice level,
    the sum of the children's above it, none below. One pod per slice at the lowest level
    (no slice requested) makes them the pod counts themselves."""
    if plan.slice_size == 1 and plan.slice_level == len(flavor.levels) - 1:
        return pods
    slices: dict = {}
    for root in flavor.levels_by_depth[0].values():
        _slices_below(root, 0, pods, plan, slices)
    return slices


def _slices_below(domain: Domain, depth: int, pods: dict, plan: Plan, slices: dict) -> int:
    below = sum(_slices_below(child, depth + 1, pods, plan, slices) for child in domain.children)
    found = pods[domain] // plan.slice_size if depth == plan.slice_level else below
    slices[domain] = found
    return found


def _descend(flavor: TasFlavor, plan: Plan, tree: _Tree, chosen: list[Domain], depth: int,
             count: int) -> list[Domain]:
    """Phase 2b: from the chosen domains down to the leaves, fewest domains at each level."""
    size = plan.slice_size
    chosen = _to_minimum(tree, chosen, count, size, True)
    last = len(flavor.levels) - 1
    while depth < min(last, plan.slice_level):
        chosen = _to_minimum(tree, tree.sorted([child for d in chosen for child in d.children]), count, size, True)
        depth += 1
    while depth < last:
        step = size if depth < plan.slice_level else 1
        below = []
        for domain in chosen:
            children = tree.sorted(domain.children)
            local = {child: tree.pods[child] // step for child in children} if step > 1 else None
            below += _to_minimum(tree, children, tree.assigned[domain], step, step > 1, local)
        chosen = below
        depth += 1
    return chosen


def _best_fit(domains: list[Domain], needed: int, have: dict) -> Domain:
    """The first domain with the fewest slices (or pods) still holding ``needed``."""
    best, best_count = None, None
    for domain in domains:
        count = have[domain]
        if count >= needed and (best_count is None or count < best_count):
            best, best_count = domain, count
    return best if best is not None else domains[0]


def _fit_level(flavor: TasFlavor, level_index: int, count: int, plan: Plan, tree: _Tree,
               stats) -> tuple[int, list[Domain]] | str:
    """Kueue's ``findLevelWithFitDomains``: the domains at the requested level (or above it,
    for a preferred request) that take every slice. Kueue sorts the level first; the domain
    it takes when one suffices is found here without sorting (a level can be every node)."""
    if not flavor.levels_by_depth[level_index]:
        return f"no topology domains at level: {flavor.levels[level_index]}"
    unconstrained, size, slices, pods = plan.unconstrained, plan.slice_size, tree.slices, tree.pods
    if slices is pods:
        return _fit_ordered(flavor, level_index, count, plan, tree, stats)
    domains = list(flavor.levels_by_depth[level_index].values())
    wanted = count // size
    holding = [d for d in domains if slices[d] >= wanted]
    if holding:
        # BestFit's best fit and LeastFreeCapacity's first fit are the same domain: the fewest
        # slices that hold them, then the fewest pods, then the name.
        return level_index, [min(holding, key=lambda d: (slices[d], pods[d], d.values))]
    if plan.required:
        if unconstrained:
            return _not_fit(flavor, pods[max(domains, key=lambda d: (slices[d], pods[d], d.values))], wanted, size, stats)
        return _not_fit(flavor, slices[min(domains, key=lambda d: (-slices[d], pods[d], d.values))], wanted, size, stats)
    if level_index > 0 and not unconstrained:
        return _fit_level(flavor, level_index - 1, count, plan, tree, stats)
    # Domains without room take no pod wherever the order puts them, and when all the room
    # falls short the greedy walk below ends short by as much: neither needs the sort.
    domains = [d for d in domains if slices[d] > 0]
    room = sum(slices[d] for d in domains)
    if room < wanted:
        return _not_fit(flavor, room, wanted, size, stats)
    return level_index, _greedy(domains, wanted, tree)


def _fit_ordered(flavor: TasFlavor, level: int, count: int, plan: Plan, tree: _Tree,
                 stats) -> tuple[int, list[Domain]] | str:
    """``_fit_level`` with one pod per slice, read from the level's domains kept in order of
    their counts (``Counts.ordered``): the same answers, found by bisection."""
    ordered, span, ranked = tree.counts.ordered[level], tree.counts.spans[level], flavor.ranked[level]
    first = bisect_left(ordered, count * span)
    if first < len(ordered):
        return level, [ranked[ordered[first] % span]]
    if plan.required:
        return _not_fit(flavor, ordered[-1] // span if ordered else 0, count, 1, stats)
    if level > 0 and not plan.unconstrained:
        return _fit_level(flavor, level - 1, count, plan, tree, stats)
    if tree.counts.total < count:
        return _not_fit(flavor, tree.counts.total, count, 1, stats)
    return level, _greedy_ordered(ranked, ordered, span, count, plan.unconstrained)


def _greedy_ordered(ranked: list[Domain], ordered: list[int], span: int, count: int,
                    unconstrained: bool) -> list[Domain]:
    """``_greedy`` over domains kept in order of (pods, name); their room is known to suffice."""
    chosen, remaining = [], count
    if unconstrained:       # fewest pods first
        for entry in ordered[bisect_left(ordered, span):]:
            chosen.append(ranked[entry % span])
            remaining -= entry // span
            if remaining <= 0:
                break
        return chosen
    taken: set = set()
    end = len(ordered)
    while True:             # most pods first, by name among equals
        start = bisect_left(ordered, ordered[end - 1] // span * span)
        for entry in ordered[start:end]:
            pods, domain = entry // span, ranked[entry % span]
            if pods >= remaining:
                # Kueue's best fit over the rest: the fewest pods that hold what is left
                rest = ordered[bisect_left(ordered, remaining * span):]
                chosen.append(next(ranked[e % span] for e in rest if ranked[e % span] not in taken))
                return chosen
            chosen.append(domain)
            taken.add(domain)
            remaining -= pods
        end = start


def _greedy(domains: list[Domain], wanted: int, tree: _Tree) -> list[Domain]:
    """Domains in the profile's order until they hold ``wanted`` slices, the last one by best
    fit (BestFit only); the room is known to suffice. Taken from a heap: a level can be
    thousands of nodes, of which a few are taken."""
    slices, pods, sign = tree.slices, tree.pods, 1 if tree.unconstrained else -1
    heap = [(sign * slices[d], pods[d], d.values, d) for d in domains]
    heapq.heapify(heap)
    chosen, remaining = [], wanted
    while remaining > 0:
        domain = heapq.heappop(heap)[3]
        if sign < 0 and slices[domain] >= remaining:
            # Kueue's best fit over the rest in order: the fewest slices that hold what is
            # left, the earliest in order among equals.
            rest = [domain] + [item[3] for item in heap if slices[item[3]] >= remaining]
            domain = min(rest, key=lambda d: (slices[d], pods[d], d.values))
        chosen.append(domain)
        remaining -= slices[domain]
    return chosen


def _not_fit(flavor: TasFlavor, fitting: int, wanted: int, slice_size: int, stats) -> str:
    unit = "pod" if slice_size == 1 else "slice"
    if fitting == 0:
        text = f'topology "{flavor.topology}" doesn\'t allow to fit any of {wanted} {unit}(s)'
    else:
        text = f'topology "{flavor.topology}" allows to fit only {fitting} out of {wanted} {unit}(s)'
    return text + stats.text()


def _to_minimum(tree: _Tree, domains: list[Domain], count: int, slice_size: int, by_slices: bool,
                local: dict | None = None) -> list[Domain]:
    """Kueue's ``updateCountsToMinimumGeneric`` without leaders: take domains in order until
    ``count`` pods are placed, the last one chosen by best fit (not under LeastFreeCapacity).
    ``local``: slices per domain recomputed for an inner slice size."""
    have = (local or tree.slices) if by_slices else tree.pods
    result = []
    remaining = count // slice_size if by_slices else count
    for index, domain in enumerate(domains):
        if have[domain] >= remaining:
            if not tree.unconstrained:
                domain = _best_fit(domains[index:], remaining, have)
            tree.assigned[domain] = remaining * slice_size if by_slices else remaining
            result.append(domain)
            return result
        tree.assigned[domain] = have[domain] * slice_size if by_slices else have[domain]
        remaining -= have[domain]
        result.append(domain)
    return result


def _assignment(flavor: TasFlavor, domains: list[Domain], tree: _Tree) -> Placement:
    first = len(flavor.levels) - 1 if flavor.by_host else 0
    ordered = sorted(domains, key=lambda d: d.values)
    assigned = tree.assigned
    return Placement(flavor.levels[first:], [(d.values[first:], assigned[d]) for d in ordered if assigned.get(d, 0) > 0])
