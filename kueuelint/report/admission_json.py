"""The versioned JSON contract of a dry admission: what ``admission.explain`` found, formatted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kueuelint.accounting.quantity import format_quantity

if TYPE_CHECKING:
    from kueuelint.admission.explain import Explained, Explanation
    from kueuelint.admission.assignment import Assignment
    from kueuelint.admission.run import Result

VERSION = 1


def to_json(result: Result, explained: Explained) -> dict:
    workloads = [_workload_json(found) for found in explained.workloads]
    preempted = [{"workload": target.workload.key, "reason": target.reason} for target in explained.preempted]
    data = {"version": VERSION, "cycles": result.cycles, "workloads": workloads, "preempted": preempted}
    if explained.warnings:
        data["warnings"] = explained.warnings
    return data


def _workload_json(found: Explanation) -> dict:
    wl = found.workload
    entry = {"workload": wl.key, "source": wl.source, "localQueue": wl.queue_name,
             "clusterQueue": wl.cluster_queue, "result": found.result,
             "podSets": pod_sets_json(found.shown, found.placed) if found.shown else [],
             "borrowing": bool(found.shown and found.shown.borrowing > 0),
             "preempts": [{"workload": t.workload.key, "reason": t.reason} for t in found.preempts],
             "reason": found.reason, "message": found.message}
    if found.cycle is not None:
        entry["cycle"] = found.cycle          # the scheduling cycle that decided this state
    if found.admission_checks:
        entry["admissionChecks"] = found.admission_checks
        if found.check_states is not None:
            entry["admissionCheckStates"] = found.check_states
    if found.borrowed is not None:
        entry["borrowed"] = _amounts(found.borrowed)
    if found.queue_status:
        entry["clusterQueueStatus"] = found.queue_status
    if found.hints is not None:
        entry["hints"] = {"free": _amounts(found.hints.free)}
        if found.hints.fits_with_count is not None:
            entry["hints"]["fitsWithCount"] = found.hints.fits_with_count
    return entry


def _amounts(per_flavor: dict[str, dict[str, int]]) -> dict[str, dict[str, str]]:
    return {flavor: {resource: format_quantity(resource, amount) for resource, amount in amounts.items()}
            for flavor, amounts in per_flavor.items()}


def pod_sets_json(assignment: Assignment, placed: bool = True) -> list[dict]:
    """The pod sets of an assignment; ``placed``: with their topology assignment."""
    listed = []
    for ps in assignment.pod_sets:
        entry = {"name": ps.name, "count": ps.count, "flavors": dict(sorted(ps.flavors.items())),
                 "usage": {r: format_quantity(r, v) for r, v in sorted(ps.usage.items())}}
        if isinstance(ps.topology, str):
            entry["topology"] = ps.topology
        elif ps.topology is not None and placed:
            entry["topologyAssignment"] = ps.topology.as_json()
        listed.append(entry)
    return listed
