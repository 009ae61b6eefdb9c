"""The terminal report of ``kueuelint review``, rendered from its JSON."""

from __future__ import annotations

from kueuelint.report.review_json import review_json


def review_text(review, every_workload: bool = False) -> str:
    data = review_json(review, every_workload)
    lines = [data["verdict"]]
    for fate in data["workloads"]:
        flags = f" [{', '.join(fate['flags'])}]" if fate["flags"] else ""
        lines.append(f"{fate['workload']}: {fate_line(fate)}{flags}")
        if fate["after"].get("message") and fate["after"]["state"] in ("pending", "inadmissible"):
            lines.append(f"  after: {fate['after']['message']}")
    if data["quotas"]:
        lines += ["", "quota and usage (before -> after):"]
        lines += [f"  {row_name(row)}: {change}" for row in data["quotas"] for change in [quota_change(row)]]
    for moved in data["placements"]:
        lines.append(f"{placement_line(moved)}")
    for note in data["notes"]:
        lines.append(f"note: {note}")
    for finding in data["findings"]:
        lines.append(f"{finding['file']}:{finding['line']}:{finding['column']}: {finding['code']} "
                     f"[{finding['severity']}] {finding['message']}")
    lines += [f"warning: {w}" for w in data["warnings"]]
    return "\n".join(lines) + "\n"


def standing_text(standing: dict) -> str:
    state = standing["state"]
    if state in ("running", "admitted", "preempting"):
        flavors = ", ".join(f"{r}={f}" for r, f in standing["flavors"].items())
        return f"{state} in {standing['clusterQueue']}" + (f" ({flavors})" if flavors else "")
    if state in ("pending", "inadmissible", "preempted"):
        return f"{state} [{standing.get('reason', '')}]"
    return state


def fate_line(fate: dict) -> str:
    return f"{standing_text(fate['before'])} -> {standing_text(fate['after'])}"


def row_name(row: dict) -> str:
    return f"{row['kind']} {row['name']} {row['flavor']}/{row['resource']}"


def quota_change(row: dict) -> str:
    parts = []
    for key in ("nominal", "subtreeQuota", "borrowingLimit", "lendingLimit", "maxCapacity", "usage"):
        old = (row["before"] or {}).get(key)
        new = (row["after"] or {}).get(key)
        if old != new:
            parts.append(f"{key} {old or '-'} -> {new or '-'}")
    return ", ".join(parts) or "unchanged"


def placement_line(moved: dict) -> str:
    what = f"{moved['kind']} {moved['name']}"
    if not moved["existsAfter"]:
        return f"{what} is removed"
    if not moved["existsBefore"]:
        return f"{what} is added" + (f" under cohort {moved['after']}" if moved["after"] else "")
    return f"{what} moves from cohort {moved['before'] or '(none)'} to {moved['after'] or '(none)'}"
