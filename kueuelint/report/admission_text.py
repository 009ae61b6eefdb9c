"""Human-readable output of a dry admission (formatted from its JSON contract), and the
``--show-quota`` table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kueuelint.accounting.quantity import format_quantity
from kueuelint.admission.model import ADMITTED, INADMISSIBLE, PENDING, PREEMPTING, PREEMPTION_REASONS

if TYPE_CHECKING:
    from kueuelint.admission.explain import QuotaRow


def render(data: dict, quota: list[QuotaRow] | None = None) -> str:
    """``quota``: the rows of the quota table, shown after the workloads when given."""
    lines: list[str] = []
    for entry in data["workloads"]:
        lines += _workload_lines(entry)
    if data["preempted"]:
        lines.append(f"preempted: {', '.join(p['workload'] + ' (' + p['reason'] + ')' for p in data['preempted'])}")
    for warning in data.get("warnings", ()):
        lines.append(f"warning: {warning}")
    counts = {}
    for entry in data["workloads"]:
        counts[entry["result"]] = counts.get(entry["result"], 0) + 1
    summary = ", ".join(f"{n} {r}" for r, n in sorted(counts.items())) or "no workloads"
    lines.append(f"{summary} after {data['cycles']} scheduling cycle(s)")
    if quota is not None:
        lines += [""] + quota_table(quota)
    return "\n".join(lines) + "\n"


def _workload_lines(entry: dict) -> list[str]:
    src = entry["source"]
    where = f"{src.get('kind', '')} {src.get('name', '')}, {src.get('file', '')}:{src.get('line', '')}"
    result, cq = entry["result"], entry.get("clusterQueue")
    head = {ADMITTED: f"admitted to ClusterQueue {cq}",
            PREEMPTING: f"will be admitted to ClusterQueue {cq} once its preemptions complete",
            PENDING: f"pending in ClusterQueue {cq} [{entry['reason']}]",
            INADMISSIBLE: f"inadmissible [{entry['reason']}]"}[result]
    lines = [f"{entry['workload']} ({where}): {head}"]
    for ps in entry["podSets"]:
        parts = [f"{r}={ps['flavors'][r]} ({ps['usage'][r]})" for r in ps["flavors"]]
        lines.append(f"  pod set {ps['name']} x{ps['count']}: {', '.join(parts)}")
        lines += _topology_lines(ps)
    if entry.get("borrowing"):
        borrowed = entry.get("borrowed") or {}
        detail = "; ".join(f"{f}: " + ", ".join(f"{r} {q}" for r, q in res.items()) for f, res in borrowed.items())
        lines.append("  borrows from the cohort" + (f" (queue above nominal: {detail})" if detail else ""))
    for victim in entry["preempts"]:
        lines.append(f"  preempts {victim['workload']}: {victim['reason']} - {_gloss(victim['reason'])}")
    if entry.get("admissionChecks"):
        lines += _check_lines(entry)
    if result != ADMITTED:
        lines.append(f"  {entry['message']}")
    if entry.get("clusterQueueStatus"):
        lines.append(f"  ClusterQueue status: {entry['clusterQueueStatus']}")
    lines += _hint_lines(entry.get("hints"), src.get("kind") == "Job")
    return lines


def _gloss(reason: str) -> str:
    words = PREEMPTION_REASONS.get(reason)
    return words.gloss if words else ""


def _check_lines(entry: dict) -> list[str]:
    """Checks decided on the snapshot's nodes (check-capacity) say how they stand; the others
    are waited for."""
    decided = {state["name"]: state for state in entry.get("admissionCheckStates", ())}
    waiting = [name for name in entry["admissionChecks"] if name not in decided]
    lines = [f"  AdmissionCheck {name}: {state['state']} - {state['message']}" for name, state in decided.items()]
    if waiting:
        lines.append(f"  quota reserved; waiting for AdmissionCheck {', '.join(waiting)}")
    return lines


def _topology_lines(pod_set: dict) -> list[str]:
    """Where a TAS pod set's pods go (pods per domain), or why that was not checked."""
    if "topology" in pod_set:
        return [f"    {pod_set['topology']}"]
    placed = pod_set.get("topologyAssignment")
    if not placed:
        return []
    domains = ", ".join(f"{'/'.join(d['values'])} x{d['count']}" for d in placed["domains"])
    return [f"    on {'/'.join(placed['levels'])}: {domains}"]


def _hint_lines(hints: dict | None, is_job: bool) -> list[str]:
    if not hints:
        return []
    lines = []
    free = "; ".join(f"{f}: " + ", ".join(f"{r} {q}" for r, q in res.items()) for f, res in hints["free"].items())
    if free:
        lines.append(f"  free now: {free}")
    if "fitsWithCount" in hints:
        how = " (allow partial admission with kueue.x-k8s.io/job-min-parallelism)" if is_job else ""
        lines.append(f"  would fit now with {hints['fitsWithCount']} pod(s){how}")
    return lines


def quota_table(rows: list[QuotaRow]) -> list[str]:
    header = ("QUEUE/COHORT", "FLAVOR", "RESOURCE", "NOMINAL", "BORROW-LIMIT", "LEND-LIMIT", "USED",
              "BORROWED", "FREE")
    cells = [header] + [_cells(row) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells]


def _cells(row: QuotaRow) -> tuple:
    fmt = lambda v: "-" if v is None else format_quantity(row.resource, v)  # noqa: E731
    return (row.node, row.flavor, row.resource, fmt(row.nominal), fmt(row.borrowing_limit),
            fmt(row.lending_limit), fmt(row.used), fmt(row.borrowed), fmt(row.free))
