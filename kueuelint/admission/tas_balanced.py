"""Kueue's balanced placement for a preferred topology (TASBalancedPlacement, on by default
since v0.19; pkg/cache/scheduler/tas_balanced_placement.go), without leaders.

Among the groups of sibling domains at the requested level, it picks the group where the
slices can be spread most evenly (the highest per-domain "threshold"), then takes the set of
domains of the greedy size whose capacity overshoots the request least, and gives each
domain the threshold plus what is left, fullest first.
"""

from __future__ import annotations

import math

from kueuelint.admission.tas import Domain, Plan, TasFlavor, best_fit_order, sum_up


def balanced_domains(flavor: TasFlavor, plan: Plan, count: int) -> tuple[list[Domain], int] | None:
    """(domains with their slices set, the level they are at), or None when balanced placement
    does not apply and Kueue falls back to best fit."""
    wanted = count // plan.slice_size
    chosen, threshold = _best_group(flavor, plan, wanted)
    if threshold <= 0:
        return None
    level = plan.level
    if plan.level < plan.slice_level:
        picked = _optimal_set(chosen, wanted, plan.slice_size, by_entropy=True)
        if picked is None:
            return None
        chosen = [child for d in picked for child in d.children]
        level += 1
    placed = _spread(chosen, wanted, plan.slice_size, threshold)
    return None if placed is None else (placed, level)


def _groups(flavor: TasFlavor, level: int) -> list[list[Domain]]:
    if level == 0:
        return [list(flavor.levels_by_depth[0].values())]
    above = sorted(flavor.levels_by_depth[level - 1].values(), key=lambda d: d.values)
    return [d.children for d in above]


def _best_group(flavor: TasFlavor, plan: Plan, wanted: int) -> tuple[list[Domain], int]:
    best_threshold, best_count, found = 0, 0, []
    for siblings in _groups(flavor, plan.level):
        candidates = [d.clone() for d in siblings]
        lower = [c for d in candidates for c in d.children] if plan.level < plan.slice_level else candidates
        greedy = _greedy(lower, wanted)
        if greedy is None:
            continue
        used, last = greedy
        threshold = min(wanted // used, last.slices)
        if threshold < best_threshold:
            continue
        _prune(candidates, threshold, plan)
        after = _greedy(candidates, wanted)
        if after is None:
            continue
        if threshold > best_threshold or after[0] < best_count:
            best_threshold, best_count, found = threshold, after[0], candidates
    return found, best_threshold


def _greedy(domains: list[Domain], wanted: int) -> tuple[int, Domain] | None:
    """Kueue's ``evaluateGreedyAssignment``: how many domains, fullest first, take ``wanted``
    slices, and the last of them; None when they cannot."""
    used, last, remaining = 0, None, wanted
    for domain in best_fit_order(domains):
        if remaining <= 0 or domain.slices <= 0:
            break
        used, last = used + 1, domain
        remaining -= domain.slices
    if remaining > 0 or last is None:
        return None
    return used, last


def _prune(domains: list[Domain], threshold: int, plan: Plan) -> None:
    """Drop the children (and then the domains) that cannot hold ``threshold`` slices."""
    for domain in domains:
        for child in domain.children:
            if child.slices < threshold:
                child.clear()
    for domain in domains:
        sum_up(domain, plan.level, plan.slice_size, plan.slice_level)
        if domain.slices < threshold:
            domain.clear()


def _optimal_set(domains: list[Domain], wanted: int, slice_size: int, by_entropy: bool) -> list[Domain] | None:
    """Kueue's ``selectOptimalDomainSetToFit``: of the sets as large as the greedy one, the
    one whose pods overshoot the request least (the first found among equals)."""
    greedy = _greedy(domains, wanted)
    if greedy is None:
        return None
    size = greedy[0]
    if by_entropy:
        ordered = sorted(domains, key=lambda d: (-d.slices, -_entropy(d.children), d.values))
    else:
        ordered = sorted(domains, key=lambda d: d.values)
    # placements[i]: pods still to place -> the first set of i domains leaving that many
    placements: list[dict[int, list[Domain]]] = [{} for _ in range(size + 1)]
    placements[0][wanted * slice_size] = []
    for domain in ordered:
        for i in range(size, 0, -1):
            for before in sorted(placements[i - 1]):
                if before <= 0 or domain.slices <= 0:
                    continue
                placements[i].setdefault(before - domain.pods, placements[i - 1][before] + [domain])
    fitting = [left for left in placements[size] if left <= 0]
    return placements[size][max(fitting)] if fitting else None


def _entropy(domains: list[Domain]) -> float:
    total = sum(d.pods for d in domains)
    if total == 0:
        return 0.0
    return -sum((d.pods / total) * math.log2(d.pods / total) for d in domains if d.pods > 0)


def _spread(domains: list[Domain], wanted: int, slice_size: int, threshold: int) -> list[Domain] | None:
    """Kueue's ``placeSlicesOnDomainsBalanced``: the threshold on each domain, the rest on
    the fullest first."""
    chosen = _optimal_set(domains, wanted, slice_size, by_entropy=False)
    if chosen is None or wanted < len(chosen) * threshold:
        return None
    extra = wanted - len(chosen) * threshold
    chosen = best_fit_order(chosen)
    for domain in chosen:
        take = min(domain.slices - threshold, extra) if extra > 0 else 0
        domain.slices = threshold + take
        domain.pods = domain.slices * slice_size
        extra -= take
    return None if extra > 0 else chosen
