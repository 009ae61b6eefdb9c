"""Human-readable output of a dry admission, and the ``--show-quota`` table."""

from __future__ import annotations

from kueuelint.accounting.quantity import format_quantity
from kueuelint.accounting.quota import QuotaNode
from kueuelint.admission.model import PREEMPTION_REASONS
from kueuelint.admission.run import Result


def render(data: dict, result: Result, show_quota: bool = False) -> str:
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
    if show_quota:
        lines += [""] + quota_table(result)
    return "\n".join(lines) + "\n"


def _workload_lines(entry: dict) -> list[str]:
    src = entry["source"]
    where = f"{src.get('kind', '')} {src.get('name', '')}, {src.get('file', '')}:{src.get('line', '')}"
    result, cq = entry["result"], entry.get("clusterQueue")
    head = {"admitted": f"admitted to ClusterQueue {cq}",
            "preempting": f"will be admitted to ClusterQueue {cq} once its preemptions complete",
            "pending": f"pending in ClusterQueue {cq} [{entry['reason']}]",
            "inadmissible": f"inadmissible [{entry['reason']}]"}[result]
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
    if result != "admitted":
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


def quota_table(result: Result) -> list[str]:
    tree = result.state.tree
    rows = [("QUEUE/COHORT", "FLAVOR", "RESOURCE", "NOMINAL", "BORROW-LIMIT", "LEND-LIMIT", "USED",
             "BORROWED", "FREE")]
    for name in sorted(tree.queues):
        node = tree.queues[name]
        for fr in sorted(set(node.quotas) | set(node.usage)):
            rows.append(_queue_row(tree, node, fr))
    for name in sorted(tree.cohorts):
        node = tree.cohorts[name]
        for fr in sorted(set(node.subtree) | set(node.usage)):
            rows.append(_cohort_row(node, fr))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def _queue_row(tree, node: QuotaNode, fr) -> tuple:
    flavor, resource = fr
    quota = node.quotas.get(fr)
    fmt = lambda v: "-" if v is None else format_quantity(resource, v)  # noqa: E731
    return (f"cq/{node.name}", flavor, resource, fmt(quota.nominal if quota else 0),
            fmt(quota.borrowing_limit if quota else None), fmt(quota.lending_limit if quota else None),
            fmt(node.usage.get(fr, 0)), fmt(tree.borrowed(node.name, fr)), fmt(tree.available(node.name, fr)))


def _cohort_row(node: QuotaNode, fr) -> tuple:
    flavor, resource = fr
    subtree, usage = node.subtree.get(fr, 0), node.usage.get(fr, 0)
    fmt = lambda v: format_quantity(resource, v)  # noqa: E731
    return (f"cohort/{node.name}", flavor, resource, fmt(subtree), "-", "-", fmt(usage),
            fmt(max(0, usage - subtree)), fmt(max(0, subtree - usage)))
