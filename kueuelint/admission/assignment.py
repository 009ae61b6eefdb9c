"""What a flavor assignment says: a flavor's attempt for one resource group, each pod set's
result and the workload's whole assignment, with Kueue's modes and reasons
(kueue-scheduler.md §2). The search that makes them is flavors.FlavorAssigner."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kueuelint.accounting.quantity import format_quantity
from kueuelint.accounting.quota import FR, flavor_resource
from kueuelint.admission.model import FIT, NO_CANDIDATES, NO_FIT, SEVERITY


@lru_cache(maxsize=4096)
def amount_text(resource: str, units: int) -> str:
    """Quantities in messages repeat endlessly (a few shapes, a few quotas): format each once."""
    return format_quantity(resource, units)


_SEVERITY_RANK = {kind: rank for rank, kind in enumerate(SEVERITY)}


def most_severe(kinds) -> str | None:
    return _by_severity(kinds, most=True)


def least_severe(kinds) -> str | None:
    return _by_severity(kinds, most=False)


def _by_severity(kinds, most: bool) -> str | None:
    """The most (or least) severe of the kinds given, None if none is given; asked at every
    flavor attempt, so without building a list or calling a key function."""
    found, found_rank = None, 0
    for kind in kinds:
        if kind:
            rank = _SEVERITY_RANK[kind]
            if found is None or (rank < found_rank if most else rank > found_rank):
                found, found_rank = kind, rank
    return found


@dataclass
class Attempt:
    """The outcome of trying one flavor for one resource group."""

    flavor: str
    mode: int
    borrow: int = 0
    reasons: list[str] = field(default_factory=list)
    kind: str | None = None
    resource_modes: dict[str, int] = field(default_factory=dict)
    deferred: list[tuple[str, FR, int]] = field(default_factory=list)   # oracle still to run
    # preemptor identity -> this attempt completed by the oracle (see FlavorAssigner._resolved)
    resolutions: dict[tuple, Attempt] | None = None
    # Kueue's representative mode of the flavor: the least preferred (mode, borrowing level)
    # of its resources. It decides whether the search stops and which flavor is preferred;
    # ``mode`` and ``borrow`` (worst mode, highest level) are what the assignment records.
    rep_mode: int = FIT
    rep_borrow: int = 0

    def __init__(self, flavor: str, mode: int, borrow: int = 0, reasons: list[str] | None = None,
                 kind: str | None = None, resource_modes: dict[str, int] | None = None,
                 deferred: list[tuple[str, FR, int]] | None = None) -> None:   # see model's docstring
        self.flavor, self.mode, self.borrow, self.kind = flavor, mode, borrow, kind
        self.reasons = [] if reasons is None else reasons
        self.resource_modes = {} if resource_modes is None else resource_modes
        self.deferred = [] if deferred is None else deferred
        self.resolutions = None
        self.rep_mode, self.rep_borrow = mode, borrow

    def copy(self) -> Attempt:
        """For completing a shared attempt with the oracle; its reasons are only ever read."""
        done = Attempt(self.flavor, self.mode, self.borrow, self.reasons, self.kind,
                       dict(self.resource_modes))
        done.rep_mode, done.rep_borrow = self.rep_mode, self.rep_borrow
        return done

    def add(self, resource: str, mode: int, borrow: int, preference: str) -> None:
        """One resource's outcome on this flavor."""
        self.resource_modes[resource] = mode
        if mode < self.mode:            # hot path: not min()/max() (kueuelint.admission's notes)
            self.mode = mode
        if borrow > self.borrow:
            self.borrow = borrow
        # A pair equal to the representative one is never strictly better: most resources of
        # a flavor fit alike, so the comparison is skipped for them.
        if (mode != self.rep_mode or borrow != self.rep_borrow) and \
                is_preferred(self.rep_mode, self.rep_borrow, mode, borrow, preference):
            self.rep_mode, self.rep_borrow = mode, borrow


@dataclass
class PodSetResult:
    name: str
    count: int
    flavors: dict[str, str] = field(default_factory=dict)     # resource -> flavor
    usage: dict[str, int] = field(default_factory=dict)       # resource -> pod-set total
    modes: dict[str, int] = field(default_factory=dict)       # resource -> granular mode
    mode: int = FIT
    borrow: int = 0
    reasons: list[str] = field(default_factory=list)
    kind: str | None = None
    topology: Any = None     # its tas.Placement, or why it was not placed (topology.py)
    # resource -> index of the last flavor its group's scan tried, -1 once the scan reached
    # the group's last flavor (Kueue's ``TriedFlavorIdx``); empty when the pod set failed.
    tried: dict[str, int] = field(default_factory=dict)

    def fail(self, reason: str | None, kind: str | None) -> None:
        self.mode = NO_FIT
        if reason:
            self.reasons.append(reason)
        self.kind = kind


@dataclass
class Assignment:
    pod_sets: list[PodSetResult]
    mode: int = FIT
    borrowing: int = 0
    usage: dict[FR, int] = field(default_factory=dict)
    preempt_frs: set[FR] = field(default_factory=set)
    # The flavor scan's progress per pod set, up to the first pod set that failed (Kueue stops
    # there): where the next cycle resumes the scan (Kueue's ``LastTriedFlavorIdx``).
    tried: list[dict[str, int]] = field(default_factory=list)

    @classmethod
    def of(cls, pod_sets: list[PodSetResult]) -> Assignment:
        # Made at every nomination: the fields are filled through locals, comparisons spelled out.
        result = cls(pod_sets)
        usage, preempt_frs, tried = result.usage, result.preempt_frs, result.tried
        mode, borrowing, failed = FIT, 0, False
        for ps in pod_sets:
            if not failed:
                tried.append(ps.tried)
                failed = ps.mode == NO_FIT
            if ps.mode < mode:
                mode = ps.mode
            if ps.borrow > borrowing:
                borrowing = ps.borrow
            amounts, modes = ps.usage, ps.modes
            for resource, flavor in ps.flavors.items():
                fr = flavor_resource(flavor, resource)
                usage[fr] = usage.get(fr, 0) + amounts.get(resource, 0)
                if modes.get(resource, FIT) < FIT:
                    preempt_frs.add(fr)
        result.mode, result.borrowing = mode, borrowing
        return result

    def flavors_used(self) -> set[str]:
        """The flavors the assignment places anything on."""
        return {flavor for ps in self.pod_sets for flavor in ps.flavors.values()}

    def flavors_untried(self) -> bool:
        """Kueue's ``PendingFlavors``: did a scan stop before its group's last flavor?"""
        for tried in self.tried:       # hot path: loops, not any() (kueuelint.admission's notes)
            for index in tried.values():
                if index != -1:
                    return True
        return False

    def public_mode(self) -> str:
        return "Fit" if self.mode == FIT else "NoFit" if self.mode == NO_FIT else "Preempt"

    def message(self) -> str:
        # A pod set without reasons is left out, as Kueue does (a TAS pod set turned Preempt
        # because another one could not be placed).
        parts = [f"couldn't assign flavors to pod set {ps.name}: {', '.join(sorted(ps.reasons))}"
                 for ps in self.pod_sets if ps.mode < FIT and ps.reasons]
        return "; ".join(parts)

    def reason(self) -> str:
        if self.mode != NO_FIT:
            return "WaitingForQuota"
        return most_severe(ps.kind for ps in self.pod_sets if ps.mode == NO_FIT) or "WaitingForQuota"


def is_preferred(mode: int, borrow: int, other_mode: int, other_borrow: int, preference: str) -> bool:
    """Kueue's ``isPreferred``: is (mode, borrowing level) strictly better than the other?"""
    if mode == NO_FIT:
        return False
    if other_mode == NO_FIT:
        return True
    if (mode == NO_CANDIDATES) != (other_mode == NO_CANDIDATES):
        return other_mode == NO_CANDIDATES
    if preference == "PreemptionOverBorrowing" and borrow != other_borrow:
        return borrow < other_borrow
    if mode != other_mode:
        return mode > other_mode
    return borrow < other_borrow
