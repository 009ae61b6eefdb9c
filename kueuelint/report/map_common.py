"""What every picture of the queue map says the same way: node ids and quota lines."""

from __future__ import annotations

import re

from kueuelint.review.setup import show


class Ids:
    """Stable node ids made of letters, digits and underscores, one per (kind, name)."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], str] = {}
        self._taken: set[str] = set()

    def __call__(self, kind: str, name: str) -> str:
        key = (kind, name)
        if key not in self._ids:
            base = f"{kind}_{re.sub(r'[^A-Za-z0-9_]', '_', name)}"
            candidate, number = base, 1
            while candidate in self._taken:
                number += 1
                candidate = f"{base}_{number}"
            self._taken.add(candidate)
            self._ids[key] = candidate
        return self._ids[key]


def quota_line(row) -> str:
    """``flavor cpu: 10 (borrow 0, lend 2), used 6``: only the limits that are set."""
    nominal = show(row.resource, row.nominal) if row.nominal is not None else "no quota"
    parts = [f"{row.flavor} {row.resource}: {nominal}"]
    limits = [f"{word} {show(row.resource, value)}" for word, value in
              (("borrow", row.borrowing_limit), ("lend", row.lending_limit)) if value is not None]
    text = parts[0] + (f" ({', '.join(limits)})" if limits else "")
    if row.usage is not None:
        text += f", used {show(row.resource, row.usage)}"
    return text


def queue_lines(queue) -> list[str]:
    lines = [f"ClusterQueue {queue.name}" + (" (stopped)" if queue.stopped else "")]
    lines += [quota_line(row) for row in queue.rows]
    if queue.pending is not None:
        lines.append(f"{queue.pending} waiting")
    return lines


def cohort_lines(cohort, indent: str, shapes) -> list[str]:
    """A cohort with everything below it, nested by indentation; ``shapes`` (a renderer's)
    says how the cohort opens and closes, and how its quota and its queues look."""
    lines = [indent + line for line in shapes.opening(cohort)]
    if cohort.rows:
        quota = ["quota of the cohort"] + [quota_line(row) for row in cohort.rows]
        lines.append(f"{indent}  {shapes.cohort_quota(cohort, quota)}")
    for child in cohort.cohorts:
        lines += cohort_lines(child, indent + "  ", shapes)
    lines += [f"{indent}  {shapes.queue(queue)}" for queue in cohort.queues]
    lines.append(indent + shapes.closing)
    return lines
