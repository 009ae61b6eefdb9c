"""Build the simulator's State from an Inventory: flavors, ClusterQueues, cohorts and quotas."""

from __future__ import annotations

from kueuelint.accounting.quantity import safe_parse, to_kueue_units
from kueuelint.accounting.quota import FR, QuotaTree, ResourceQuota, flavor_resource
from kueuelint.admission.model import ClusterQueue, as_list, Flavor, Fungibility, Preemption, ResourceGroup
from kueuelint.admission.state import State

# v1beta1 aliases of the v1beta2 fungibility values.
_FUNGIBILITY_ALIASES = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}


def units(resource: str, value, warnings: list[str] | None = None, where: str = "") -> int | None:
    """A quota value in Kueue units; None when absent or unreadable (noted in ``warnings``)."""
    if value is None:
        return None
    quantity, error = safe_parse(value)
    if quantity is None:
        if warnings is not None:
            warnings.append(f"{where}: {resource}: {error}; treated as 0")
        return 0
    return to_kueue_units(resource, quantity)


def parse_flavor(obj) -> Flavor:
    spec = obj.spec
    labels = spec.get("nodeLabels") if isinstance(spec.get("nodeLabels"), dict) else {}
    taints = spec.get("nodeTaints") if isinstance(spec.get("nodeTaints"), list) else []
    tolerations = spec.get("tolerations") if isinstance(spec.get("tolerations"), list) else []
    return Flavor(obj.name, dict(labels), list(taints), list(tolerations))


def parse_quotas(resource_groups, warnings: list[str], where: str):
    """Resource groups and per flavor/resource limits from a ClusterQueue or Cohort spec."""
    groups: list[ResourceGroup] = []
    quotas: dict[FR, ResourceQuota] = {}
    for group in resource_groups if isinstance(resource_groups, list) else ():
        if not isinstance(group, dict):
            continue
        covered = tuple(str(r) for r in as_list(group.get("coveredResources")))
        names = []
        for flavor in as_list(group.get("flavors")):
            if not isinstance(flavor, dict) or not flavor.get("name"):
                continue
            names.append(str(flavor["name"]))
            for res in as_list(flavor.get("resources")):
                if isinstance(res, dict) and res.get("name"):
                    quotas[flavor_resource(names[-1], str(res["name"]))] = _resource_quota(res, warnings, where)
        groups.append(ResourceGroup(covered, tuple(names)))
    return groups, quotas


def _resource_quota(res: dict, warnings: list[str], where: str) -> ResourceQuota:
    name = str(res["name"])
    return ResourceQuota(units(name, res.get("nominalQuota"), warnings, where) or 0,
                         units(name, res.get("borrowingLimit"), warnings, where),
                         units(name, res.get("lendingLimit"), warnings, where))


def parse_preemption(spec: dict) -> Preemption:
    raw = spec.get("preemption") if isinstance(spec.get("preemption"), dict) else {}
    borrow = raw.get("borrowWithinCohort") if isinstance(raw.get("borrowWithinCohort"), dict) else {}
    threshold = borrow.get("maxPriorityThreshold")
    return Preemption(str(raw.get("withinClusterQueue") or "Never"),
                      str(raw.get("reclaimWithinCohort") or "Never"),
                      str(borrow.get("policy") or "Never"),
                      threshold if isinstance(threshold, int) else None)


def parse_fungibility(spec: dict) -> Fungibility:
    raw = spec.get("flavorFungibility") if isinstance(spec.get("flavorFungibility"), dict) else {}
    borrow = str(raw.get("whenCanBorrow") or "MayStopSearch")
    preempt = str(raw.get("whenCanPreempt") or "TryNextFlavor")
    return Fungibility(_FUNGIBILITY_ALIASES.get(borrow, borrow), _FUNGIBILITY_ALIASES.get(preempt, preempt),
                       str(raw.get("preference") or "BorrowingOverPreemption"))


def admission_check_names(spec: dict) -> list[str]:
    names = [str(n) for n in as_list(spec.get("admissionChecks")) if isinstance(n, str)]
    return names + list(admission_check_flavors(spec))


def admission_check_flavors(spec: dict) -> dict[str, tuple[str, ...]]:
    """admissionChecksStrategy's checks, each with the flavors it is limited to (empty: all)."""
    strategy = spec.get("admissionChecksStrategy")
    checks = as_list(strategy.get("admissionChecks")) if isinstance(strategy, dict) else []
    return {str(c["name"]): tuple(str(f) for f in as_list(c.get("onFlavors")))
            for c in checks if isinstance(c, dict) and c.get("name")}


def parse_cluster_queue(obj, warnings: list[str]) -> tuple[ClusterQueue, dict[FR, ResourceQuota]]:
    spec = obj.spec
    groups, quotas = parse_quotas(spec.get("resourceGroups"), warnings, f"ClusterQueue {obj.name}")
    cohort = spec.get("cohortName") or spec.get("cohort")
    cohort = cohort if isinstance(cohort, str) else None
    selector = spec.get("namespaceSelector")
    cq = ClusterQueue(obj.name, cohort or None, groups, parse_preemption(spec),
                      parse_fungibility(spec), str(spec.get("queueingStrategy") or "BestEffortFIFO"),
                      selector if isinstance(selector, dict) else None, admission_check_names(spec),
                      admission_check_flavors(spec))
    return cq, quotas


def inactive_reason(obj, cq: ClusterQueue, flavors: dict, checks: dict) -> str | None:
    """Why Kueue would mark the ClusterQueue inactive (§6.2), as its Active=False message."""
    details = []
    stop = obj.spec.get("stopPolicy")
    if stop and stop != "None":
        details.append(f"is stopped (stopPolicy {stop})")
    missing = sorted({f for g in cq.groups for f in g.flavors if f not in flavors})
    if missing:
        details.append(f"references missing ResourceFlavor(s): {', '.join(missing)}")
    absent = [c for c in cq.admission_checks if c not in checks]
    if absent:
        details.append(f"references missing AdmissionCheck(s): {', '.join(absent)}")
    inactive = [c for c in cq.admission_checks if c in checks and not checks[c]]
    if inactive:
        details.append(f"references inactive AdmissionCheck(s): {', '.join(inactive)}")
    return f"Can't admit new workloads: {', '.join(details)}." if details else None


def _admission_checks(inventory) -> dict[str, bool]:
    """AdmissionCheck name -> active (an object without status counts as active)."""
    found = {}
    for obj in inventory.kueue_of_kind("AdmissionCheck"):
        conditions = as_list(obj.get("status", "conditions"))
        active = [c for c in conditions if isinstance(c, dict) and c.get("type") == "Active"]
        found[obj.name] = not active or active[0].get("status") == "True"
    return found


def build_state(inventory, ignore_undeclared: bool = False, fair_sharing: bool = False):
    """The quota State of an inventory, plus warnings about unreadable values."""
    warnings: list[str] = []
    flavors = {obj.name: parse_flavor(obj) for obj in inventory.kueue_of_kind("ResourceFlavor")}
    checks = _admission_checks(inventory)
    tree = QuotaTree()
    for obj in inventory.kueue_of_kind("Cohort"):
        _, quotas = parse_quotas(obj.spec.get("resourceGroups"), warnings, f"Cohort {obj.name}")
        weight = obj.get("spec", "fairSharing", "weight", default=1)
        parent = obj.spec.get("parentName")
        tree.add_cohort(obj.name, parent if isinstance(parent, str) else None, quotas, _weight(weight))
    queues = {}
    for obj in inventory.kueue_of_kind("ClusterQueue"):
        if obj.name in queues or not obj.name:
            continue    # a duplicate (the first definition wins, as in the inventory) or nameless
        cq, quotas = parse_cluster_queue(obj, warnings)
        cq.inactive = inactive_reason(obj, cq, flavors, checks)
        queues[cq.name] = cq
        weight = obj.get("spec", "fairSharing", "weight", default=1)
        tree.add_cluster_queue(cq.name, cq.cohort, quotas, _weight(weight))
    tree.finalize()
    for cq in queues.values():
        if cq.cohort and tree.in_cycle(cq.cohort) and cq.inactive is None:
            cq.inactive = "Can't admit new workloads: the cohort has a cycle."
    state = State(tree, queues, flavors, ignore_undeclared=ignore_undeclared, fair_sharing=fair_sharing)
    return state, warnings


def _weight(value) -> float:
    quantity, _ = safe_parse(value)
    return float(quantity) if quantity is not None else 1.0
