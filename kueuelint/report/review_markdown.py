"""``kueuelint review --format markdown``: a pull-request comment. A verdict line, a table of
the workloads whose fate changes, then collapsible details: quota and usage per queue and
cohort, what Kueue does about it, the rules' findings and a Mermaid map of the cohort trees
that changed."""

from __future__ import annotations

from kueuelint.report.review_json import review_json
from kueuelint.report.review_text import placement_line, quota_change, row_name, standing_text

MAX_ROWS = 200      # a PR comment has a size limit; the JSON report has every row


def review_markdown(review, every_workload: bool = False) -> str:
    data = review_json(review, every_workload)
    icon = ":warning:" if any(data["counts"][f] for f in ("stranded", "never-admissible", "preempted",
                                                            "newly-preemptible")) else ":white_check_mark:"
    lines = ["### kueuelint review", "", f"{icon} **{cell(data['verdict'])}**", ""]
    if data["workloads"]:
        lines += ["| workload | before | after | change |", "|---|---|---|---|"]
        lines += [f"| `{cell(f['workload'])}` | {cell(standing_text(f['before']))} | "
                  f"{cell(standing_text(f['after']))} | {cell(', '.join(f['flags']))} |"
                  for f in data["workloads"][:MAX_ROWS]]
        if len(data["workloads"]) > MAX_ROWS:
            lines.append(f"\n{len(data['workloads']) - MAX_ROWS} more in `--format json`.")
        lines.append("")
    lines += _details("Quota and usage per ClusterQueue and cohort (before &rarr; after)", _quota_lines(data))
    lines += _details("What Kueue does", [f"- {cell(n)}" for n in data["notes"]])
    lines += _details("Findings of `kueuelint check` on the new setup", _finding_lines(data))
    lines += _details("Map of the cohort trees that changed (after the change)", _map_lines(review))
    return "\n".join(lines).rstrip("\n") + "\n"


def cell(text: str) -> str:
    """Text safe inside a table cell and outside code: no pipe, no markup."""
    return (text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("*", "\\*").replace("_", "\\_").replace("`", "\\`").replace("\n", " "))


def _details(summary: str, body: list[str]) -> list[str]:
    if not body:
        return []
    return ["<details>", f"<summary>{summary}</summary>", ""] + body + ["", "</details>", ""]


def _quota_lines(data: dict) -> list[str]:
    lines = [f"- {cell(placement_line(p))}" for p in data["placements"]]
    if data["quotas"]:
        lines += ([""] if lines else []) + ["| queue or cohort | change |", "|---|---|"]
        lines += [f"| {cell(row_name(r))} | {cell(quota_change(r))} |" for r in data["quotas"][:MAX_ROWS]]
    over = [f"- {o['kind']} {cell(o['name'])} is over-admitted on {cell(o['flavorResource'])}"
            for o in data["overAdmitted"]]
    return lines + ([""] if lines and over else []) + over


def _finding_lines(data: dict) -> list[str]:
    return [f"- `{cell(f['file'])}:{f['line']}:{f['column']}` {f['code']} ({f['severity']}): {cell(f['message'])}"
            for f in data["findings"][:MAX_ROWS]]


def _map_lines(review) -> list[str]:
    roots = review.changed_roots()
    if not roots:
        return []
    from kueuelint.report.map_mermaid import map_mermaid
    from kueuelint.review.queue_map import build_map

    queue_map = build_map(review.setups[1], review.usage_after, review.waiting_after, roots)
    if not queue_map.cohorts and not queue_map.queues:
        return []
    return ["```mermaid", map_mermaid(queue_map).rstrip("\n"), "```"]
