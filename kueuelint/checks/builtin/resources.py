"""Resource amounts: quantities the API server refuses, the reserved ``pods`` name, and
workloads too large for every flavor their ClusterQueue could ever give them.

Pod-template quantities are read once, by the shared accounting code (via the derived
workloads' ``problems``), so this module only sorts those problems into rules. ClusterQueue
and Cohort quota syntax is the schema rule's job (KQ110); here only the sign is checked.
"""

from __future__ import annotations

from typing import NamedTuple

from kueuelint.accounting.quantity import format_quantity, pod_value_problem, safe_parse
from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import Fact
from kueuelint.kueue.flavor_candidates import (
    SKIPPED_KINDS, flavor_groups, flavors_by_name, queued, queued_workloads, resource_groups)
from kueuelint.kueue.flavor_matching import matches_node_labels, untolerated_taint

QUANTITY_PROBLEM = "invalid quantity"
PODS_PROBLEM = "'pods' cannot be requested"
LIMIT_RANGE_KEYS = ("default", "defaultRequest", "max", "min", "maxLimitRequestRatio")
QUOTA_KEYS = ("nominalQuota", "borrowingLimit", "lendingLimit")
PODS = "pods"


# --- KQ301 / KQ302: values in pod templates, LimitRanges and quotas --------------------------------

def _derive_problems(obj: KObject, ctx: RuleContext, prefix: str):
    seen = set()
    if obj.key in SKIPPED_KINDS:
        return
    for workload in ctx.workloads(obj):
        for path, message in workload.problems:
            if message.startswith(prefix) and path not in seen:
                seen.add(path)
                yield path, message


@rule("KQ301")
def invalid_quantity(obj: KObject, ctx: RuleContext):
    if obj.key == "LimitRange":
        yield from _limit_range_values(obj)
    elif obj.key in ("kueue.x-k8s.io/ClusterQueue", "kueue.x-k8s.io/Cohort"):
        yield from _negative_quotas(obj)
    else:
        for path, message in _derive_problems(obj, ctx, QUANTITY_PROBLEM):
            named = message if " for " in message.partition(":")[0] else f"{path[-1]}: {message}"
            yield Violation(path=path, at_value=True, args={"detail": named})


def _limit_range_values(obj: KObject):
    items = obj.spec.get("limits")
    for index, item in enumerate(items if isinstance(items, list) else []):
        for key in LIMIT_RANGE_KEYS:
            values = item.get(key) if isinstance(item, dict) else None
            for resource, value in (values.items() if isinstance(values, dict) else ()):
                path = ("spec", "limits", index, key, resource)
                amount, error = safe_parse(value)
                reason = error or pod_value_problem(str(resource), amount)
                if reason:
                    detail = reason if error else f"invalid quantity {value!r} for {resource}: {reason}"
                    yield Violation(path=path, at_value=True, args={"detail": detail})


def _negative_quotas(obj: KObject):
    for path, resource, key, value in _quota_values(obj):
        amount, error = safe_parse(value)
        if error is None and amount < 0:
            yield Violation(path=path, at_value=True, args={
                "detail": f"{key} {value!r} of {resource} must be greater than or equal to 0"})


def _quota_values(obj: KObject):
    for g, group in enumerate(resource_groups(obj)):
        flavors = group.get("flavors")
        for f, flavor in enumerate(flavors if isinstance(flavors, list) else []):
            resources = flavor.get("resources") if isinstance(flavor, dict) else None
            for r, res in enumerate(resources if isinstance(resources, list) else []):
                if not isinstance(res, dict):
                    continue
                for key in QUOTA_KEYS:
                    if res.get(key) is not None:
                        path = ("spec", "resourceGroups", g, "flavors", f, "resources", r, key)
                        yield path, res.get("name"), key, res[key]


@rule("KQ302")
def reserved_pods_resource(obj: KObject, ctx: RuleContext):
    for path, _ in _derive_problems(obj, ctx, PODS_PROBLEM):
        yield Violation(path=path)


# --- KQ320: more than the ClusterQueue could ever hold ---------------------------------------------

class Bound(NamedTuple):
    """The most a ClusterQueue could ever hold of one flavor/resource, and why."""

    amount: int
    why: str


def _quota_state(ctx: RuleContext):
    return QUOTA_STATE.of(ctx.inventory)


def _build_quota_state(inventory):
    from kueuelint.admission import quota_state

    return quota_state(inventory)


QUOTA_STATE = Fact("quota-state", _build_quota_state)
# (ClusterQueue, flavor, resource) -> what a pod set can get there at most; asked per pod set
MAX_OBTAINABLE: Fact[dict[tuple, Bound | None]] = Fact("max-obtainable", lambda inventory: {})
# (flavor names, placement text) -> the flavors a pod set of that placement may use
ALLOWED_FLAVORS: Fact[dict[tuple, list[str]]] = Fact("allowed-flavors", lambda inventory: {})


def max_obtainable(ctx: RuleContext, queue: str, flavor: str, resource: str) -> Bound | None:
    """None when the run cannot tell: the queue borrows from a cohort without a borrowingLimit
    and other members of the cohort may live outside the run."""
    # every pod set queued to the same ClusterQueue asks again: answered once per run
    known = MAX_OBTAINABLE.of(ctx.inventory)
    key = (queue, flavor, resource)
    if key not in known:
        known[key] = _max_obtainable(ctx, queue, flavor, resource)
    return known[key]


def _max_obtainable(ctx: RuleContext, queue: str, flavor: str, resource: str) -> Bound | None:
    state = _quota_state(ctx)
    node = state.tree.queues.get(queue)
    cq = state.queues.get(queue)
    if node is None or cq is None or (cq.cohort and node.parent is None):
        return None   # unknown queue, or a cohort cycle (the queue is inactive anyway)
    quota = node.quotas.get((flavor, resource))
    if quota is None:
        return None   # the flavor lists no quota for it: a structure rule reports that (KQ401, KQ408)
    nominal = quota.nominal
    text = format_quantity(resource, nominal)
    if node.parent is None:
        return Bound(nominal, f"nominalQuota {text}, no cohort")
    if ctx.inventory.require_complete:
        amount = state.tree.max_obtainable(queue, flavor, resource)
        return Bound(amount, f"nominalQuota {text} plus what cohort {cq.cohort} can lend")
    if quota.borrowing_limit is not None:
        limit = format_quantity(resource, quota.borrowing_limit)
        return Bound(nominal + quota.borrowing_limit, f"nominalQuota {text} + borrowingLimit {limit}")
    return None


@rule("KQ320")
def gang_exceeds_quota(obj: KObject, ctx: RuleContext):
    seen = set()
    pod_sets = queued(obj, ctx)
    for workload, target in queued_workloads(obj, ctx):
        placements = [_placement(q.placement) for q in pod_sets if q.workload is workload]
        for path, detail in _infeasible(workload, placements, target, ctx):
            if path not in seen:   # LWS groups and per-pod copies share their template
                seen.add(path)
                yield Violation(path=path, args={"detail": detail, "target": target.describe()})


class _Need(NamedTuple):
    """One pod set's demand on one resource group."""

    pod_set: object
    count: int
    per_pod: dict[str, int]
    flavors: list[str]       # flavors of the group its placement allows
    path_of: dict[str, tuple]


def _infeasible(workload, placements: list, target, ctx: RuleContext) -> list[tuple[tuple, str]]:
    queue = target.cluster_queue.name
    found = []
    for group in flavor_groups(target.cluster_queue, ctx.inventory):
        resources, flavors = group.resources, group.names
        needs = [need for ps, placement in zip(workload.pod_sets, placements)
                 if (need := _need(ps, placement, workload, resources, flavors, ctx)) is not None]
        single = [_pod_set_problem(ctx, queue, need) for need in needs]
        found += [problem for problem in single if problem is not None]
        if len(needs) > 1 and not any(single):
            found += _together_problem(ctx, queue, needs, resources)
    return found


def _need(pod_set, placement, workload, resources, flavors, ctx: RuleContext) -> _Need | None:
    count = pod_set.count if pod_set.min_count is None else min(pod_set.count, pod_set.min_count)
    per_pod = {r: a for r, a in pod_set.requests.items() if a > 0 and r in resources}
    if PODS in resources:
        per_pod[PODS] = 1   # Kueue charges every pod set `pods = count` (§1.6)
    allowed = _allowed_flavors(ctx, flavors, placement)
    if count <= 0 or not per_pod or not allowed:
        return None   # nothing to place, or no flavor fits its placement (KQ702)
    fallback = workload.queue_name_path or pod_set.template_path
    paths = {r: pod_set.request_paths.get(r, fallback) for r in per_pod}
    return _Need(pod_set, count, per_pod, allowed, paths)


def _allowed_flavors(ctx: RuleContext, flavors: list[str], placement) -> list[str]:
    """The flavors Kueue would consider for the pod set; pod sets of the same queue mostly share
    their placement (often none at all), so each answer is kept for the run."""
    spec, text = placement
    key = (tuple(flavors), text)
    known = ALLOWED_FLAVORS.of(ctx.inventory)
    if key not in known:
        known[key] = [name for name in flavors if _placeable(ctx, name, spec)]
    return known[key]


def _placement(spec) -> tuple:
    """The pod set's nodeSelector, affinity and tolerations, and the same as text to compare
    placements by."""
    return spec, repr((spec.node_selector, spec.affinity_terms, spec.tolerations))


def _placeable(ctx: RuleContext, flavor_name: str, spec) -> bool:
    """Would Kueue consider this flavor for the pod set's nodeSelector, affinity and taints?"""
    # the last definition of a name, as in the quota state the bounds come from
    flavor = flavors_by_name(ctx.inventory, last=True).get(flavor_name)
    if flavor is None:
        return True   # not in the run: assume it fits
    return matches_node_labels(flavor, spec) and untolerated_taint(flavor, spec) is None


def _pod_set_problem(ctx: RuleContext, queue: str, need: _Need) -> tuple[tuple, str] | None:
    """A pod set that fits in none of its flavors, even with everything else idle."""
    shortfalls = []
    for flavor in need.flavors:
        bounds = {r: max_obtainable(ctx, queue, flavor, r) for r in need.per_pod}
        if any(bound is None for bound in bounds.values()):
            return None   # unknown capacity: it may fit
        short = [r for r in need.per_pod if need.per_pod[r] * need.count > bounds[r].amount]
        if not short:
            return None
        shortfalls.append((flavor, short[0], bounds[short[0]]))
    resource = shortfalls[0][1]
    one_pod = all(need.per_pod[r] > bound.amount for _, r, bound in shortfalls)
    return need.path_of[resource], _pod_set_text(need, resource, shortfalls, one_pod)


def _pod_set_text(need: _Need, resource: str, shortfalls, one_pod: bool) -> str:
    ps, amount = need.pod_set, need.per_pod[resource]
    if one_pod:
        wants = f"a single pod of pod set {ps.name} requests {format_quantity(resource, amount)} {resource}"
    else:
        partial = ps.min_count is not None and ps.min_count < ps.count
        wants = (f"pod set {ps.name} needs {format_quantity(resource, amount * need.count)} {resource} "
                 f"({'at least ' if partial else ''}{need.count} pods x {format_quantity(resource, amount)}"
                 f"{' with partial admission' if partial else ''})")
    limits = "; ".join(f"{format_quantity(r, b.amount)} {r} in flavor {f} ({b.why})"
                       for f, r, b in shortfalls)
    return f"{wants}, but the queue can never hold more than {limits}"


def _together_problem(ctx: RuleContext, queue: str, needs: list[_Need], resources) -> list:
    """Pod sets that fit one by one but not together, even spread over every flavor."""
    flavors = sorted({f for need in needs for f in need.flavors})
    for resource in resources:
        users = [need for need in needs if resource in need.per_pod]
        total = sum(need.per_pod[resource] * need.count for need in users)
        bounds = [max_obtainable(ctx, queue, f, resource) for f in flavors]
        if len(users) < 2 or any(bound is None for bound in bounds):
            continue
        capacity = sum(bound.amount for bound in bounds)
        if total > capacity:
            biggest = max(users, key=lambda need: need.per_pod[resource] * need.count)
            names = ", ".join(need.pod_set.name for need in users)
            return [(biggest.path_of[resource],
                     f"pod sets {names} together need {format_quantity(resource, total)} {resource}, "
                     f"but the queue can never hold more than {format_quantity(resource, capacity)} "
                     f"{resource} across flavor(s) {', '.join(flavors)}")]
    return []
