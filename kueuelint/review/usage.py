"""What a cluster snapshot's Workloads hold and wait for, read from their recorded status.

A Workload holds quota while its ``status.admission`` names a ClusterQueue, its QuotaReserved
condition (when present) is True and it has not Finished; the quota it holds is the
``resourceUsage`` Kueue recorded per pod set at admission. A change of the queue setup does
not touch these records: Kueue keeps admitted workloads running when quota shrinks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from kueuelint.accounting.quota import FR, flavor_resource
from kueuelint.review.setup import units

WORKLOAD = "kueue.x-k8s.io/Workload"


@dataclass
class Holder:
    key: str                        # namespace/name, as the dry admission names it
    cluster_queue: str
    flavors: dict[str, str]         # resource -> flavor, over all pod sets
    usage: dict[FR, int]
    source: dict                    # file, line, kind and name, as the dry admission gives them


@dataclass
class SnapshotUsage:
    holders: list[Holder] = field(default_factory=list)
    waiting: dict[tuple[str, str], int] = field(default_factory=dict)   # (namespace, LocalQueue) -> count

    def per_queue(self) -> dict[str, dict[FR, int]]:
        totals: dict[str, dict[FR, int]] = {}
        for holder in self.holders:
            add_usage(totals.setdefault(holder.cluster_queue, {}), holder.usage)
        return totals


def read_usage(objects) -> SnapshotUsage:
    found = SnapshotUsage()
    for obj in objects:
        if obj.key != WORKLOAD:
            continue
        data = obj.doc.data if isinstance(obj.doc.data, dict) else {}
        status = data.get("status") if isinstance(data.get("status"), dict) else {}
        if _finished(status) or _deactivated(data):
            continue
        holder = _holder(obj, status)
        if holder is not None:
            found.holders.append(holder)
        else:
            queue = (data.get("spec") or {}).get("queueName") if isinstance(data.get("spec"), dict) else None
            where = (obj.namespace or "default", queue if isinstance(queue, str) else "")
            found.waiting[where] = found.waiting.get(where, 0) + 1
    return found


def add_usage(total: dict[FR, int], usage: dict[FR, int], sign: int = 1) -> None:
    for fr, amount in usage.items():
        total[fr] = total.get(fr, 0) + sign * amount


def _holder(obj, status: dict) -> Holder | None:
    admission = status.get("admission")
    if not isinstance(admission, dict) or not isinstance(admission.get("clusterQueue"), str):
        return None
    reserved = _condition(status, "QuotaReserved")
    if reserved is not None and reserved.get("status") != "True":
        return None
    flavors: dict[str, str] = {}
    usage: dict[FR, int] = {}
    for assignment in admission.get("podSetAssignments") or ():
        if isinstance(assignment, dict) and isinstance(assignment.get("flavors"), dict):
            _read_assignment(assignment, flavors, usage)
    source = {"file": obj.doc.source.path, "line": obj.doc.line, "kind": obj.kind, "name": obj.name}
    return Holder(f"{obj.namespace}/{obj.name}", admission["clusterQueue"], flavors, usage, source)


def _read_assignment(assignment: dict, flavors: dict[str, str], usage: dict[FR, int]) -> None:
    recorded = assignment.get("resourceUsage") if isinstance(assignment.get("resourceUsage"), dict) else {}
    for resource, flavor in assignment["flavors"].items():
        flavors[str(resource)] = str(flavor)
        amount = _units(str(resource), recorded.get(resource))
        if amount:
            fr = flavor_resource(str(flavor), str(resource))
            usage[fr] = usage.get(fr, 0) + amount


@lru_cache(maxsize=4096)
def _cached_units(resource: str, value: str | int | float) -> int | None:
    return units(resource, value)


def _units(resource: str, value) -> int | None:
    return _cached_units(resource, value) if isinstance(value, (str, int, float)) else None


def _condition(status: dict, kind: str) -> dict | None:
    for cond in status.get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def _finished(status: dict) -> bool:
    finished = _condition(status, "Finished")
    return finished is not None and finished.get("status") == "True"


def _deactivated(data: dict) -> bool:
    spec = data.get("spec")
    return isinstance(spec, dict) and spec.get("active") is False
