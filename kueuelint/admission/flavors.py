"""Kueue's flavor assigner (kueue-scheduler.md §2): a flavor per resource group per pod set."""

from __future__ import annotations

from typing import Callable

from kueuelint.accounting.quota import FR, borrowing_level_in, cell_of, flavor_resource, free_in, potential_in
from kueuelint.admission.assignment import (
    Assignment, Attempt, PodSetResult, amount_text, is_preferred, least_severe, most_severe,
)
from kueuelint.admission.candidates import preemptor_identity
from kueuelint.kueue.flavor_matching import matches_node_labels, taint_text, untolerated_taint
from kueuelint.admission.model import (
    FIT, NO_CANDIDATES, NO_FIT, PREEMPT, RECLAIM, ClusterQueue, Fungibility, Pending,
    PodSetSpec, ResourceGroup,
)
from kueuelint.admission.state import State

# (cq, workload, fr, value) -> (mode, borrowing level after the simulated preemption)
Oracle = Callable[[ClusterQueue, Pending, FR, int], tuple[int, int]]


class FlavorAssigner:
    def __init__(self, state: State, cq: ClusterQueue, workload: Pending,
                 oracle: Oracle | None = None, resume: list[dict[str, int]] | None = None,
                 pinned: list[dict[str, str]] | None = None) -> None:
        self.state = state
        # Where each pod set's scans resume (an earlier cycle's ``Assignment.tried``).
        self.resume = resume or []
        # Per pod set, the flavor of each resource the scan may only pick (Kueue's
        # NominationMapping, when an assignment is computed again within the cycle).
        self.pinned = pinned
        self.cq = cq
        self.workload = workload
        self.oracle = oracle
        node = state.tree.queues.get(cq.name)
        self._node = node
        self._root = node.root() if node is not None else None   # whose usage the memo tracks

    def assign(self, counts: list[int] | None = None) -> Assignment:
        counts = counts or [ps.count for ps in self.workload.pod_sets]
        assigned: dict[FR, int] = {}
        results = []
        last = len(counts) - 1
        for index, (pod_set, count) in enumerate(zip(self.workload.pod_sets, counts)):
            result = self._pod_set(pod_set, count, assigned, self.resume[index] if index < len(self.resume) else {},
                                   self.pinned[index] if self.pinned is not None else None)
            results.append(result)
            if index == last:
                break       # no later pod set to tell what this one took
            for resource, flavor in result.flavors.items():
                fr = flavor_resource(flavor, resource)
                assigned[fr] = assigned.get(fr, 0) + result.usage.get(resource, 0)
        assignment = Assignment.of(results)
        if self.state.topology is not None:
            self.state.topology.check(self.cq, self.workload, assignment)
        return assignment

    def _pod_set(self, pod_set: PodSetSpec, count: int, assigned: dict[FR, int],
                 resume: dict[str, int], pinned: dict[str, str] | None) -> PodSetResult:
        steps, failure = self._plan(pod_set, count)
        result = PodSetResult(pod_set.name, count)
        for wanted, requested, number, candidates in steps:
            first = resume.get(requested[0][0], -1) + 1 if resume and requested else 0
            # A pod set the nomination left without flavors pins to none: nothing is tried.
            pin = pinned.get(requested[0][0], "") if pinned is not None and requested else None
            if not self._place_group(wanted, requested, number, candidates, assigned, result, first, pin):
                break
        else:
            if failure is not None:
                result.fail(failure, "NoMatchingFlavor")
        if result.mode == NO_FIT:
            result.flavors, result.usage, result.modes, result.tried = {}, {}, {}, {}
        return result

    def _plan(self, pod_set: PodSetSpec, count: int) -> tuple[list[tuple], str | None]:
        """The resource groups to place, in Kueue's order, each as (wanted amounts, the same
        sorted, their request number, the group's flavors as ``_candidates`` gives them); and
        why the pod set fails once they are placed, if it does. Fixed for a pod set, queue and
        count, and asked at every cycle the workload heads its queue: kept on the pod set
        (and shared by pod sets alike, ``_shared_or_new_plan``)."""
        key = (self.cq.name, count)
        known = pod_set.plans.get(key)
        if known is None or not self._current(known):
            known = pod_set.plans[key] = self._shared_or_new_plan(pod_set, count)
        return known[3]

    def _current(self, known: tuple) -> bool:
        """Was this plan made for the queue and flavors of this run?"""
        state = self.state
        return known[0] is self.cq and known[1] is state.flavors and known[2] == state.ignore_undeclared

    def _shared_or_new_plan(self, pod_set: PodSetSpec, count: int) -> tuple:
        """(queue, flavors, ignore_undeclared, plan). A pod set without placement constraints
        (tolerations, node selector, affinity) in a run without topology plans like every
        other of its requests and count in a queue with the same resource groups (such a plan
        reads nothing else of the queue): thousands of pending records share a few shapes,
        and hundreds of queues often share their groups."""
        state = self.state
        if state.topology is not None or pod_set.tolerations or pod_set.node_selector or pod_set.affinity_terms:
            return self.cq, state.flavors, state.ignore_undeclared, self._new_plan(pod_set, count)
        shape = (tuple(self.cq.groups), count, tuple(sorted(pod_set.per_pod.items())))
        known = state.plans.get(shape)
        if known is None or known[1] is not state.flavors or known[2] != state.ignore_undeclared:
            known = state.plans[shape] = (None, state.flavors, state.ignore_undeclared, self._new_plan(pod_set, count))
        return self.cq, known[1], known[2], known[3]

    def _new_plan(self, pod_set: PodSetSpec, count: int) -> tuple[list[tuple], str | None]:
        cq = self.cq
        requests = {resource: amount * count for resource, amount in pod_set.per_pod.items()}
        if cq.covers("pods"):
            requests["pods"] = count
        steps: list[tuple] = []
        failure = None
        done: set[int] = set()
        # Kueue walks the requested resources by name; the first failing group ends the pod set.
        for resource in sorted(requests):
            index = cq.group_of(resource)
            if index is None:
                if requests[resource] > 0 and not self.state.ignore_undeclared:
                    failure = f"resource {resource} unavailable in ClusterQueue"
                    break
                continue
            if index in done:
                continue
            done.add(index)
            group = cq.groups[index]
            wanted = {r: requests[r] for r in group.resources if r in requests}
            requested = tuple(sorted(wanted.items()))      # by resource name, as Kueue walks them
            # Memo keys and look-ups name the request by a number: a nested tuple is hashed
            # afresh at every use.
            number = _REQUEST_NUMBERS.setdefault(requested, len(_REQUEST_NUMBERS))
            steps.append((wanted, requested, number, self._candidates(pod_set, group, requested)))
        return steps, failure

    def _candidates(self, pod_set: PodSetSpec, group: ResourceGroup,
                    requested: tuple[tuple[str, int], ...]) -> list[tuple[str, Attempt | None, tuple[FR, ...]]]:
        """(flavor, its refusal when it cannot host the pod set at all, the flavor/resources of
        the request) for each flavor of the group, in order. A refusal is shared: attempts
        that fail are only read."""
        candidates = []
        topology = self.state.topology
        for name in group.flavors:
            mismatch = topology.mismatch(self.cq, pod_set, name, group.resources) if topology is not None else None
            if mismatch is None:
                mismatch = _mismatch(self.state.flavors.get(name), pod_set, name)
            refusal = None if mismatch is None else Attempt(name, NO_FIT, reasons=[mismatch], kind="NoMatchingFlavor")
            candidates.append((name, refusal, tuple([flavor_resource(name, r) for r, _ in requested])))
        return candidates

    def _place_group(self, wanted: dict[str, int], requested: tuple[tuple[str, int], ...], number: int,
                     candidates: list, assigned: dict[FR, int], result: PodSetResult, first: int,
                     pin: str | None = None) -> bool:
        attempt, kind, last = self._choose_flavor(requested, number, candidates, assigned, result.reasons, first, pin)
        if attempt is None:
            result.fail(None, kind)
            return False
        tried = -1 if last == len(candidates) - 1 else last
        for resource, amount in wanted.items():
            result.tried[resource] = tried
            result.flavors[resource] = attempt.flavor
            result.usage[resource] = amount
            result.modes[resource] = attempt.resource_modes.get(resource, FIT)
        # Hot path: comparisons, not min() and max() (kueuelint.admission's notes).
        if attempt.mode < result.mode:
            result.mode = attempt.mode
        if attempt.borrow > result.borrow:
            result.borrow = attempt.borrow
        return True

    def _choose_flavor(self, requested: tuple[tuple[str, int], ...], number: int, candidates: list,
                       assigned: dict[FR, int], reasons: list[str],
                       first: int = 0, pin: str | None = None) -> tuple[Attempt | None, str | None, int]:
        """The flavor for a group, scanning from the ``first`` candidate (only ``pin`` when
        given); also why none was found, and the index of the last candidate the scan passed."""
        kinds: list[str | None] = []
        tried: list[Attempt] = []
        eager = self.cq.fungibility.when_can_preempt == "MayStopSearch"
        for index, (name, refusal, frs) in enumerate(candidates[first:] if first else candidates, first):
            if pin is not None and name != pin:
                continue
            attempt = refusal if refusal is not None else self._try_flavor(name, frs, requested, number, assigned)
            reasons.extend(attempt.reasons)
            kinds.append(attempt.kind)
            if attempt.mode == NO_FIT:
                continue
            if attempt.deferred and eager:
                attempt = self._resolved(attempt)
            # An attempt that still needs the oracle ends in a preemption mode, which only
            # stops the search under MayStopSearch; so its oracle can wait (it is often moot).
            if not attempt.deferred and _stops_search(attempt, self.cq.fungibility):
                return attempt, None, index
            tried.append(attempt)
        best: Attempt | None = None
        preference = self.cq.fungibility.preference
        for attempt in tried:
            if best is not None and not _may_be_preferred(attempt, best, preference):
                continue    # the oracle can only make it worse: no need to run it
            if attempt.deferred:
                attempt = self._resolved(attempt)
            if best is None or _preferred(attempt, best, preference):
                best = attempt
        return best, least_severe(kinds), len(candidates) - 1

    def _resolved(self, attempt: Attempt) -> Attempt:
        """The attempt completed by the preemption oracle for the resources that were waiting
        for it: a copy, as memoised attempts are shared (and most are never completed).

        The copy is kept on the attempt per preemptor identity (what of the preemptor the
        oracle reads). A memoised attempt is only handed out while the usage of its
        flavor/resources is unchanged in the cohort tree, and the oracle reads no more than
        that, except under fair sharing, where it reads all usage."""
        oracle = self.oracle
        if not attempt.deferred or oracle is None:
            return attempt
        if self.state.fair_sharing:
            return _completed(attempt, oracle, self.cq, self.workload)
        identity = preemptor_identity(self.cq, self.workload)
        kept = attempt.resolutions
        if kept is None:
            kept = attempt.resolutions = {}
        found = kept.get(identity)
        if found is None:
            found = kept[identity] = _completed(attempt, oracle, self.cq, self.workload)
        return found

    def _try_flavor(self, name: str, frs: tuple[FR, ...], requested: tuple[tuple[str, int], ...],
                    number: int, assigned: dict[FR, int]) -> Attempt:
        """The quota of a flavor that can host the pod set. ``requested``: (resource, amount)
        of the group, sorted by resource, and ``frs`` their flavor/resources; ``number``: the
        request's number in ``_REQUEST_NUMBERS``."""
        if not self.state.frozen or self._root is None:
            return self._quota_attempt(name, requested, frs, assigned)
        # Memoised while usage of the flavor's resources is unchanged in the cohort tree: heads
        # of many cycles ask about the same amounts.
        earlier = tuple([assigned.get(fr, 0) for fr in frs]) if assigned else ()
        key = ("attempt", self.cq.name, name, number, earlier, self.oracle is None)
        return self.state.memo.recall(key, self._root, frs, self._quota_attempt, name, requested, frs, assigned)

    def _quota_attempt(self, name: str, requested: tuple[tuple[str, int], ...], frs: tuple[FR, ...],
                       assigned: dict[FR, int]) -> Attempt:
        attempt = Attempt(name, FIT)
        kinds: list[str | None] = []
        preference = self.cq.fungibility.preference
        for (resource, amount), fr in zip(requested, frs):
            previous = assigned.get(fr, 0)
            mode, borrow, text, kind = self._fits_quota(fr, previous, amount)
            if mode is None:      # the oracle decides; run it only if the outcome matters
                attempt.deferred.append((resource, fr, previous + amount))
            else:
                attempt.add(resource, mode, borrow, preference)
            if text:
                attempt.reasons.append(text)
            kinds.append(kind)
        attempt.kind = most_severe(kinds)
        return attempt

    def _fits_quota(self, fr: FR, previous: int, request: int) -> tuple[int | None, int, str | None, str | None]:
        queue = self.cq.name
        value = previous + request
        flavor, resource = fr
        # The queue's cell read directly: asked at every flavor tried.
        node = self._node if self._node is not None else self.state.tree.queues[queue]
        cell = node.cells.get(fr)
        if cell is None:
            cell = cell_of(node, fr)
        capacity = potential_in(cell)
        if value > capacity:
            text = (f"insufficient quota for {resource} in flavor {flavor}, previously considered "
                    f"podsets requests ({amount_text(resource, previous)}) + current podset "
                    f"request ({amount_text(resource, request)}) > maximum capacity "
                    f"({amount_text(resource, capacity)})")
            return NO_FIT, 0, text, "ExceedsMaxQuota"
        borrow, may_reclaim = borrowing_level_in(cell, value)
        available = free_in(cell)
        if available < 0:
            available = 0
        if value <= available:
            return FIT, borrow, None, None
        text = (f"insufficient unused quota for {resource} in flavor {flavor}, "
                f"{amount_text(resource, value - available)} more needed")
        quota = cell.quota
        if (quota is not None and value <= quota.nominal) or may_reclaim or self._can_preempt_while_borrowing():
            if self.oracle is None:
                return NO_CANDIDATES, borrow, text, "WaitingForQuota"
            return None, borrow, text, "WaitingForQuota"
        return NO_FIT, borrow, text, "WaitingForQuota"

    def _can_preempt_while_borrowing(self) -> bool:
        preemption = self.cq.preemption
        if preemption.borrow_policy not in ("", "Never"):
            return True
        return self.state.fair_sharing and preemption.reclaim != "Never"


# Each (resource, amount) request of a resource group gets a number the first time it is seen;
# the few there are recur in every cycle.
_REQUEST_NUMBERS: dict[tuple, int] = {}


# flavor name -> (Flavor, why it cannot host a pod set without tolerations, node selector or
# affinity): most pod sets have none, and then only the flavor decides.
_UNCONSTRAINED: dict[str, tuple] = {}


def _mismatch(flavor, pod_set: PodSetSpec, name: str) -> str | None:
    """Why the flavor cannot host the pod set at all."""
    if pod_set.tolerations or pod_set.node_selector or pod_set.affinity_terms:
        return _constrained_mismatch(flavor, pod_set, name)
    known = _UNCONSTRAINED.get(name)
    if known is None or known[0] is not flavor:
        known = _UNCONSTRAINED[name] = (flavor, _constrained_mismatch(flavor, pod_set, name))
    return known[1]


def _constrained_mismatch(flavor, pod_set: PodSetSpec, name: str) -> str | None:
    if flavor is None:
        return f"flavor {name} not found"
    taint = untolerated_taint(flavor, pod_set)
    if taint is not None:
        return f"untolerated taint {taint_text(taint)} in flavor {name}"
    if not matches_node_labels(flavor, pod_set):
        return f"flavor {name} doesn't match node affinity"
    return None


def _completed(attempt: Attempt, oracle: Oracle, cq: ClusterQueue, workload: Pending) -> Attempt:
    done = attempt.copy()
    for resource, fr, value in attempt.deferred:
        mode, borrow = oracle(cq, workload, fr, value)
        done.add(resource, mode, borrow, cq.fungibility.preference)
    return done


def _stops_search(attempt: Attempt, fungibility: Fungibility) -> bool:
    """Kueue's ``shouldTryNextFlavor`` negated: a preemption or a borrowing each keep the
    search going when their policy says TryNextFlavor (a preemption that leaves the queue
    borrowing answers to both)."""
    mode = attempt.rep_mode
    if mode in (NO_FIT, NO_CANDIDATES):
        return False
    if mode in (PREEMPT, RECLAIM) and fungibility.when_can_preempt != "MayStopSearch":
        return False
    return attempt.rep_borrow == 0 or fungibility.when_can_borrow == "MayStopSearch"


def _preferred(candidate: Attempt, best: Attempt, preference: str) -> bool:
    """Kueue's ``isPreferred`` on the flavors' representative modes."""
    return is_preferred(candidate.rep_mode, candidate.rep_borrow, best.rep_mode, best.rep_borrow, preference)


def _may_be_preferred(candidate: Attempt, best: Attempt, preference: str) -> bool:
    """Could ``candidate`` still be preferred once its oracle has run? The oracle answers at
    best (RECLAIM, level 0) for a waiting resource, and the representative mode only ever
    gets worse as resources are added: so that best case decides."""
    mode, borrow = candidate.rep_mode, candidate.rep_borrow
    if candidate.deferred and is_preferred(mode, borrow, RECLAIM, 0, preference):
        mode, borrow = RECLAIM, 0
    return is_preferred(mode, borrow, best.rep_mode, best.rep_borrow, preference)
