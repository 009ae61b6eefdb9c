"""A queue setup as plain records: what ``map`` draws and ``review`` compares.

Amounts are kept both as Kueue units (integers, for arithmetic) and as the text written in
the manifest (for display), so a picture shows ``nominalQuota: 100Gi`` the way it was written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.accounting.quantity import format_quantity, safe_parse, to_kueue_units
from kueuelint.accounting.quota import FR, QuotaTree, ResourceQuota, flavor_resource

LIMITS = ("nominalQuota", "borrowingLimit", "lendingLimit")


@dataclass
class FlavorQuota:
    """One flavor of a resource group: per resource, the limits in Kueue units (None: unset)."""
    flavor: str
    limits: dict[str, dict[str, int | None]] = field(default_factory=dict)


@dataclass
class Group:
    covered: tuple[str, ...]
    flavors: list[FlavorQuota]


@dataclass
class QuotaOwner:
    """A ClusterQueue or a Cohort: both may hold quota in resource groups."""
    name: str
    parent: str | None
    groups: list[Group]
    admission_checks: list[str] = field(default_factory=list)
    stopped: bool = False

    def quotas(self) -> dict[FR, ResourceQuota]:
        found = {}
        for group in self.groups:
            for flavor in group.flavors:
                for resource, limits in flavor.limits.items():
                    found[flavor_resource(flavor.flavor, resource)] = ResourceQuota(
                        limits["nominalQuota"] or 0, limits["borrowingLimit"], limits["lendingLimit"])
        return found

    def flavor_names(self) -> list[str]:
        return [f.flavor for g in self.groups for f in g.flavors]


@dataclass
class QueueSetup:
    cluster_queues: dict[str, QuotaOwner] = field(default_factory=dict)
    cohorts: dict[str, QuotaOwner] = field(default_factory=dict)     # Cohort objects and implied cohorts
    local_queues: dict[tuple[str, str], str] = field(default_factory=dict)   # (namespace, name) -> ClusterQueue
    flavors: dict[str, str | None] = field(default_factory=dict)     # name -> topologyName
    admission_checks: dict[str, str] = field(default_factory=dict)   # name -> controllerName
    topologies: dict[str, list[str]] = field(default_factory=dict)   # name -> level labels

    def tree(self) -> QuotaTree:
        tree = QuotaTree()
        for cohort in self.cohorts.values():
            tree.add_cohort(cohort.name, cohort.parent, cohort.quotas())
        for cq in self.cluster_queues.values():
            tree.add_cluster_queue(cq.name, cq.parent, cq.quotas())
        tree.finalize()
        return tree

    def root_of(self, cohort: str | None) -> str | None:
        seen = set()
        while cohort and cohort not in seen:
            seen.add(cohort)
            parent = self.cohorts[cohort].parent if cohort in self.cohorts else None
            if not parent:
                return cohort
            cohort = parent
        return cohort


def read_setup(objects) -> QueueSetup:
    """The queue setup of ``objects`` (the first object of a name wins, as in the inventory)."""
    setup = QueueSetup()
    readers = {"ClusterQueue": _read_cluster_queue, "Cohort": _read_cohort, "LocalQueue": _read_local_queue,
               "ResourceFlavor": _read_flavor, "AdmissionCheck": _read_check, "Topology": _read_topology}
    for obj in objects:
        reader = readers.get(obj.kind) if obj.group == "kueue.x-k8s.io" else None
        if reader is not None and obj.name:
            reader(setup, obj)
    for cq in list(setup.cluster_queues.values()) + list(setup.cohorts.values()):
        if cq.parent and cq.parent not in setup.cohorts:
            setup.cohorts[cq.parent] = QuotaOwner(cq.parent, None, [])    # named only by its members
    return setup


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _read_cluster_queue(setup: QueueSetup, obj) -> None:
    spec = obj.spec
    checks = [c for c in _list(spec.get("admissionChecks")) if isinstance(c, str)]
    strategy = spec.get("admissionChecksStrategy")
    if isinstance(strategy, dict):
        checks += [c["name"] for c in _list(strategy.get("admissionChecks")) if isinstance(c, dict) and c.get("name")]
    owner = QuotaOwner(obj.name, _text(spec.get("cohortName")) or _text(spec.get("cohort")),
                       read_groups(spec.get("resourceGroups")), checks,
                       stopped=spec.get("stopPolicy") not in (None, "None"))
    setup.cluster_queues.setdefault(obj.name, owner)


def _read_cohort(setup: QueueSetup, obj) -> None:
    spec = obj.spec
    owner = QuotaOwner(obj.name, _text(spec.get("parentName")) or _text(spec.get("parent")),
                       read_groups(spec.get("resourceGroups")))
    setup.cohorts.setdefault(obj.name, owner)


def _read_local_queue(setup: QueueSetup, obj) -> None:
    cq = _text(obj.spec.get("clusterQueue"))
    if cq:
        setup.local_queues.setdefault((obj.namespace or "default", obj.name), cq)


def _read_flavor(setup: QueueSetup, obj) -> None:
    setup.flavors.setdefault(obj.name, _text(obj.spec.get("topologyName")))


def _read_check(setup: QueueSetup, obj) -> None:
    setup.admission_checks.setdefault(obj.name, _text(obj.spec.get("controllerName")) or "")


def _read_topology(setup: QueueSetup, obj) -> None:
    levels = [lv.get("nodeLabel") for lv in _list(obj.spec.get("levels")) if isinstance(lv, dict)]
    setup.topologies.setdefault(obj.name, [str(level) for level in levels if level])


def read_groups(groups) -> list[Group]:
    found = []
    for group in _list(groups):
        if not isinstance(group, dict):
            continue
        covered = tuple(str(r) for r in _list(group.get("coveredResources")))
        flavors = [FlavorQuota(str(f["name"]), _resource_limits(f.get("resources")))
                   for f in _list(group.get("flavors")) if isinstance(f, dict) and f.get("name")]
        found.append(Group(covered, flavors))
    return found


def _resource_limits(resources) -> dict[str, dict[str, int | None]]:
    found = {}
    for res in _list(resources):
        if isinstance(res, dict) and res.get("name"):
            name = str(res["name"])
            found[name] = {limit: units(name, res.get(limit)) for limit in LIMITS}
    return found


def units(resource: str, value) -> int | None:
    """Kueue units of a quantity; None when unset or unreadable (the check rules report those)."""
    if value is None:
        return None
    quantity, _ = safe_parse(value)
    return None if quantity is None else to_kueue_units(resource, quantity)


def show(resource: str, amount: int | None) -> str:
    return "-" if amount is None else format_quantity(resource, amount)


def _list(value) -> list:
    return value if isinstance(value, list) else []
