"""The queue map as a Mermaid flowchart (renders in GitHub and GitLab Markdown)."""

from __future__ import annotations

from kueuelint.report.map_common import Ids, cohort_lines, queue_lines


def map_mermaid(queue_map) -> str:
    ids = Ids()
    lines = ["flowchart LR"]
    shapes = _Shapes(ids)
    for cohort in queue_map.cohorts:
        lines += cohort_lines(cohort, "  ", shapes)
    lines += [f"  {shapes.queue(queue)}" for queue in queue_map.queues]
    drawn = {q.name for q in queue_map.all_queues()}
    lines += _local_queues(queue_map, ids, drawn)
    lines += _checks_and_topologies(queue_map, ids)
    return "\n".join(lines) + "\n"


def label(lines: list[str]) -> str:
    """A quoted Mermaid label; quotes and markup-like characters become entity codes."""
    escaped = [line.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
               for line in lines]
    return '"' + "<br/>".join(escaped) + '"'


class _Shapes:
    closing = "end"

    def __init__(self, ids: Ids) -> None:
        self.ids = ids

    def opening(self, cohort) -> list[str]:
        return [f"subgraph {self.ids('cohort', cohort.name)}[{label(['Cohort ' + cohort.name])}]"]

    def cohort_quota(self, cohort, lines: list[str]) -> str:
        return f"{self.ids('cohortquota', cohort.name)}[{label(lines)}]"

    def queue(self, queue) -> str:
        return f"{self.ids('cq', queue.name)}[{label(queue_lines(queue))}]"


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
            target = f"{ids('topology', topology)}[/{label(text)}/]"
            lines.append(f"  {ids('cq', queue.name)} -. {label([flavor])} .-> {target}")
    return lines
