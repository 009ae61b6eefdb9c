"""The versioned JSON of ``kueuelint review`` (docs/review-json-schema.json); the text and
Markdown reports are rendered from it."""

from __future__ import annotations

from kueuelint.review.setup import show

VERSION = 1
LIMIT_KEYS = ("nominal", "borrowingLimit", "lendingLimit", "usage", "maxCapacity", "subtreeQuota")
FLAG_WORDS = {"stranded": "stranded", "never-admissible": "never admissible", "preempted": "preempted",
              "newly-preemptible": "newly preemptible", "started": "started", "flavor-changed": "flavor changed"}


def review_json(review, every_workload: bool = False) -> dict:
    """``every_workload``: list the workloads whose fate stays the same too."""
    changed = review.changed()
    listed = review.fates if every_workload else changed
    return {
        "version": VERSION,
        "verdict": verdict(review),
        "counts": review.counts(),
        "workloads": [_fate_json(fate) for fate in listed],
        "unchanged": review.compared() - len(changed),
        "quotas": [_quota_json(row) for row in review.quotas],
        "placements": [_placement_json(p) for p in review.placements],
        "overAdmitted": [{"kind": k, "name": n, "flavorResource": fr} for k, n, fr in review.over_admitted],
        "notes": notes(review),
        "findings": [_finding_json(f) for f in review.findings],
        "warnings": list(review.warnings),
        "changedTrees": sorted(review.changed_roots()),
    }


def dump(data: dict) -> str:
    """The JSON text: one key per line, and each item of a list on a line of its own, so that
    a review of tens of thousands of workloads stays quick to write and easy to grep."""
    import json

    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            items = ",\n".join("    " + json.dumps(item) for item in value)
            parts.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
        else:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def verdict(review) -> str:
    counts = review.counts()
    parts = [f"{counts[flag]} {FLAG_WORDS[flag]}" for flag in FLAG_WORDS if counts[flag]]
    total = review.compared()
    if not parts:
        return f"no workload changes fate ({total} workload{'s' if total != 1 else ''} compared)"
    return f"{', '.join(parts)} (of {total} workload{'s' if total != 1 else ''} compared)"


def notes(review) -> list[str]:
    """What Kueue does in the situations this change creates (v0.19 cache and scheduler)."""
    found = []
    for kind, name, fr in review.over_admitted:
        found.append(f"{kind} {name} holds more {fr} than it may after the change: Kueue evicts nothing; "
                     "its admitted workloads keep running, and it admits no new workload needing "
                     f"{fr} until its usage drops below what it may hold.")
    if review.counts()["newly-preemptible"]:
        found.append("Newly preemptible: the workload's ClusterQueue uses more than its nominal quota inside "
                     "a cohort, so a cohort member under its own nominal quota whose reclaimWithinCohort "
                     "policy allows it may preempt the workload to take its quota back.")
    return found


def _standing_json(standing) -> dict:
    found = {"state": standing.state, "clusterQueue": standing.cluster_queue,
             "flavors": dict(sorted(standing.flavors.items())), "preemptible": standing.preemptible}
    if standing.reason:
        found["reason"] = standing.reason
    if standing.message:
        found["message"] = standing.message
    return found


def _fate_json(fate) -> dict:
    return {"workload": fate.workload, "source": fate.source, "flags": list(fate.flags),
            "before": _standing_json(fate.before), "after": _standing_json(fate.after)}


def _limits_json(resource: str, limits: dict | None) -> dict | None:
    if limits is None:
        return None
    return {key: show(resource, limits[key]) if limits[key] is not None else None
            for key in LIMIT_KEYS if key in limits}


def _quota_json(row) -> dict:
    return {"kind": row.kind, "name": row.name, "flavor": row.flavor, "resource": row.resource,
            "before": _limits_json(row.resource, row.before), "after": _limits_json(row.resource, row.after)}


def _placement_json(placement) -> dict:
    return {"kind": placement.kind, "name": placement.name, "before": placement.before,
            "after": placement.after, "existsBefore": placement.present[0], "existsAfter": placement.present[1]}


def _finding_json(finding) -> dict:
    loc = finding.location
    return {"code": finding.code, "severity": str(finding.severity), "message": finding.message,
            "file": loc.path, "line": loc.line, "column": loc.column}
