"""Are the resources a workload requests covered by the ClusterQueue behind its LocalQueue?

Kueue refuses a pod set that asks for a resource no resource group of the ClusterQueue
covers (kueue-scheduler.md §1.7): the workload stays pending with ``resource <name>
unavailable in ClusterQueue``. The derived pod sets already hold the requests the way Kueue
counts them (init containers, sidecars, overhead, limits standing in for requests, LimitRange
defaults, the RayJob submitter, the Ray autoscaler, excluded prefixes and transformations), so
these rules only compare names (KQ312, on KServe and ephemeral-storage, is written in CEL).
Where a workload is queued is resolved once per object by kueuelint.kueue.flavor_candidates,
which the gang and placement rules share.
"""

from __future__ import annotations

from typing import NamedTuple

from kueuelint.accounting.quantity import format_quantity
from kueuelint.checks.api import RuleContext, Violation, rule, run_table
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import ObjectFact
from kueuelint.kueue.flavor_candidates import Target, group_resources, queued_workloads, resource_groups

# Kueue >= 0.16 ignores a zero request for a resource nobody covers (kueue#8079).
ZERO_REQUESTS_IGNORED_FROM = (0, 16)


# --- shared helpers -----------------------------------------------------------------------------

def covered_resources(cluster_queue: KObject) -> list[str]:
    return [name for group in resource_groups(cluster_queue) for name in group_resources(group)]


def resources_config(inventory):
    from kueuelint.derive.podsets import resources_config as shared

    return shared(inventory)


def per_pod_text(pod_set, resource: str) -> str:
    """``10Gi per pod (4 pods; a default from LimitRange x)``."""
    notes = [f"{pod_set.count} pods"] if pod_set.count != 1 else []
    notes += [note for note in (origin_note(pod_set, resource),) if note]
    amount = format_quantity(resource, pod_set.requests.get(resource, 0))
    return f"{amount} per pod" + (f" ({'; '.join(notes)})" if notes else "")


def origin_note(pod_set, resource: str) -> str:
    """Where an amount the manifest does not show came from."""
    origin = pod_set.request_origins.get(resource, "")
    kind, _, name = origin.partition(":")
    return {"limit-range": f"a default from LimitRange {name}",
            "runtime-class": f"pod overhead of RuntimeClass {name}",
            "default": f"added by {name}, which Kueue counts"}.get(kind, "")


def request_location(workload, pod_set, resource: str) -> tuple:
    """The line to change: the request itself, or the queue label when the manifest does not
    show the request (a LimitRange default)."""
    origin = pod_set.request_origins.get(resource, "")
    if origin.startswith("limit-range:") and workload.queue_name_path:
        return workload.queue_name_path
    return pod_set.request_paths.get(resource) or workload.queue_name_path or pod_set.template_path


# --- which requests are uncovered -----------------------------------------------------------

class Uncovered(NamedTuple):
    workload: object
    pod_set: object
    resource: str
    target: Target


def uncovered_requests(obj: KObject, ctx: RuleContext) -> list[Uncovered]:
    """Every (pod set, resource) Kueue would refuse, once per object and inventory."""
    return UNCOVERED.of(obj, ctx)


def _uncovered_requests(obj: KObject, ctx: RuleContext) -> list[Uncovered]:
    found: list[Uncovered] = []
    config = resources_config(ctx.inventory)
    if not config.quota_check_ignores_undeclared:
        for workload, target in queued_workloads(obj, ctx):
            found += _uncovered_in(workload, target, ctx)
    return found


UNCOVERED: ObjectFact[list[Uncovered]] = ObjectFact("uncovered-requests", _uncovered_requests)


def _uncovered_in(workload, target: Target, ctx: RuleContext) -> list[Uncovered]:
    covered = covered_resources(target.cluster_queue)
    zero_ok = ctx.kueue_version >= ZERO_REQUESTS_IGNORED_FROM
    no_config = ctx.inventory.kueue_configuration() is None
    found = []
    for pod_set in workload.pod_sets:
        for resource, amount in sorted(pod_set.requests.items()):
            if resource in covered or (amount <= 0 and zero_ok):
                continue
            if no_config and _looks_transformed(resource, covered):
                continue
            found.append(Uncovered(workload, pod_set, resource, target))
    return found


def _looks_transformed(resource: str, covered: list[str]) -> bool:
    """With no Kueue Configuration in the run, a resource the queue covers under a derived name
    (HAMi's ``nvidia.com/gpucores`` -> ``nvidia.com/total-gpucores``) is most likely rewritten by
    ``resources.transformations`` in the cluster's Configuration: do not guess an error."""
    domain, _, local = resource.rpartition("/")
    return bool(domain) and any(
        name != resource and name.rpartition("/")[0] == domain and name.endswith(local)
        for name in covered)


# --- KQ310: a workload requests something its ClusterQueue does not cover ----------------------

@rule("KQ310")
def resource_not_covered(obj: KObject, ctx: RuleContext):
    seen = set()
    for item in uncovered_requests(obj, ctx):
        path = request_location(item.workload, item.pod_set, item.resource)
        if (item.resource, path) in seen:
            continue   # LWS groups and per-pod copies repeat the same template
        seen.add((item.resource, path))
        yield Violation(path=path, args={
            "resource": item.resource, "target": item.target.describe(),
            "pod_set": item.pod_set.name,
            "amount": per_pod_text(item.pod_set, item.resource),
            "covered": _covered_text(item.target.cluster_queue)})


def _covered_text(cluster_queue: KObject) -> str:
    covered = covered_resources(cluster_queue)
    return f"covers only {', '.join(covered)}" if covered else "covers no resources at all"


# --- KQ311: the ClusterQueue side ----------------------------------------------------------------

@rule("KQ311")
def cluster_queue_misses_requests(obj: KObject, ctx: RuleContext):
    if ctx.inventory.kueue("ClusterQueue", obj.name) is not obj:
        return   # a second definition of the name: workloads are queued to the first one
    wanted = uncovered_by_queue.of(ctx).get(obj.name, {})
    path = ("spec", "resourceGroups") if "resourceGroups" in obj.spec else ("spec",)
    for resource, users in sorted(wanted.items()):
        names = sorted(users)
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        yield Violation(path=path, args={"resource": resource, "count": len(names),
                                         "workloads": shown, "covered": _covered_text(obj)})


def _merge_users(parts: list[dict[str, dict[str, set[str]]]]) -> dict[str, dict[str, set[str]]]:
    merged: dict[str, dict[str, set[str]]] = {}
    for part in parts:
        for queue, wanted in part.items():
            for resource, users in wanted.items():
                merged.setdefault(queue, {}).setdefault(resource, set()).update(users)
    return merged


@run_table("kueuelint.uncovered-by-cq", codes=("KQ311",), merge=_merge_users)
def uncovered_by_queue(objects: list[KObject], ctx: RuleContext) -> dict[str, dict[str, set[str]]]:
    """ClusterQueue name -> resource -> the objects among ``objects`` that request it uncovered."""
    table: dict[str, dict[str, set[str]]] = {}
    for other in objects:
        if other.info is None or other.info.role != "workload":
            continue
        for item in uncovered_requests(other, ctx):
            users = table.setdefault(item.target.cluster_queue.name, {})
            users.setdefault(item.resource, set()).add(other.display())
    return table
