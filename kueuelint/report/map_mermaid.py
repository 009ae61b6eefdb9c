"""The queue map as a Mermaid flowchart (renders in GitHub and GitLab Markdown)."""

from __future__ import annotations

from kueuelint.report.map_common import Ids, queue_lines, quota_line


def map_mermaid(queue_map) -> str:
    ids = Ids()
    lines = ["flowchart LR"]
    for cohort in queue_map.cohorts:
        lines += _cohort(cohort, ids, "  ")
    for queue in queue_map.queues:
        lines.append(f"  {_queue_node(queue, ids)}")
    drawn = {q.name for q in queue_map.all_queues()}
    lines += _local_queues(queue_map, ids, drawn)
    lines += _checks_and_topologies(queue_map, ids)
    return "\n".join(lines) + "\n"


def label(lines: list[str]) -> str:
    """A quoted Mermaid label; quotes and markup-like characters become entity codes."""
    escaped = [line.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
               for line in lines]
    return '"' + "<br/>".join(escaped) + '"'


def _queue_node(queue, ids: Ids) -> str:
    return f"{ids('cq', queue.name)}[{label(queue_lines(queue))}]"


def _cohort(cohort, ids: Ids, indent: str) -> list[str]:
    lines = [f"{indent}subgraph {ids('cohort', cohort.name)}[{label(['Cohort ' + cohort.name])}]"]
    if cohort.rows:
        quota = ["quota of the cohort"] + [quota_line(row) for row in cohort.rows]
        lines.append(f"{indent}  {ids('cohortquota', cohort.name)}[{label(quota)}]")
    for child in cohort.cohorts:
        lines += _cohort(child, ids, indent + "  ")
    lines += [f"{indent}  {_queue_node(queue, ids)}" for queue in cohort.queues]
    lines.append(f"{indent}end")
    return lines


def _local_queues(queue_map, ids: Ids, drawn: set[str]) -> list[str]:
    lines, edges = [], []
    for namespace, queues in queue_map.local_queues.items():
        lines.append(f"  subgraph {ids('ns', namespace)}[{label(['namespace ' + namespace])}]")
        for name, cq in queues:
            node = ids("lq", f"{namespace}/{name}")
            lines.append(f"    {node}([{label(['LocalQueue ' + name])}])")
            if cq in drawn:
                edges.append(f"  {node} --> {ids('cq', cq)}")
            else:
                edges.append(f"  {node} --> {ids('missing', cq)}[{label(['missing ClusterQueue ' + cq])}]")
        lines.append("  end")
    return lines + edges


def _checks_and_topologies(queue_map, ids: Ids) -> list[str]:
    lines = []
    for queue in queue_map.all_queues():
        for check in queue.admission_checks:
            controller = queue_map.admission_checks.get(check)
            text = [f"AdmissionCheck {check}"] + ([controller] if controller else [])
            lines.append(f"  {ids('cq', queue.name)} -.-> {ids('check', check)}{{{{{label(text)}}}}}")
        for flavor, topology in queue.topologies.items():
            levels = queue_map.topologies.get(topology, [])
            text = [f"Topology {topology}"] + levels
            lines.append(f"  {ids('cq', queue.name)} -. {label([flavor])} .-> {ids('topology', topology)}[/{label(text)}/]")
    return lines
