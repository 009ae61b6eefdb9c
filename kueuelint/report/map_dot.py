"""The queue map as Graphviz DOT: cohorts are nested clusters, LocalQueues point at their
ClusterQueue, dashed edges lead to admission checks and topologies."""

from __future__ import annotations

from kueuelint.report.map_common import Ids, cohort_lines, queue_lines


def map_dot(queue_map) -> str:
    ids = Ids()
    lines = ["digraph kueue {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    shapes = _Shapes(ids)
    for cohort in queue_map.cohorts:
        lines += cohort_lines(cohort, "  ", shapes)
    lines += [f"  {shapes.queue(queue)}" for queue in queue_map.queues]
    drawn = {q.name for q in queue_map.all_queues()}
    for namespace, queues in queue_map.local_queues.items():
        lines.append(f"  subgraph cluster_{ids('ns', namespace)} {{")
        lines.append(f"    label={quote('namespace ' + namespace)}; style=dotted;")
        lines += [f"    {ids('lq', namespace + '/' + name)} [shape=ellipse, label={quote('LocalQueue ' + name)}];"
                  for name, _ in queues]
        lines.append("  }")
        for name, cq in queues:
            target = ids("cq", cq) if cq in drawn else ids("missing", cq)
            if cq not in drawn:
                lines.append(f"  {target} [style=dashed, label={quote('missing ClusterQueue ' + cq)}];")
            lines.append(f"  {ids('lq', namespace + '/' + name)} -> {target};")
    lines += _checks_and_topologies(queue_map, ids)
    lines.append("}")
    return "\n".join(lines) + "\n"


def quote(text: str) -> str:
    """A DOT string; a line break becomes a left-justified one."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\l") + ("\\l" if "\n" in text else "") + '"'


class _Shapes:
    closing = "}"

    def __init__(self, ids: Ids) -> None:
        self.ids = ids

    def opening(self, cohort) -> list[str]:
        return [f"subgraph cluster_{self.ids('cohort', cohort.name)} {{",
                f"  label={quote('Cohort ' + cohort.name)}; style=rounded;"]

    def cohort_quota(self, cohort, lines: list[str]) -> str:
        return f"{self.ids('cohortquota', cohort.name)} [shape=note, label={quote(chr(10).join(lines))}];"

    def queue(self, queue) -> str:
        return f"{self.ids('cq', queue.name)} [label={quote(chr(10).join(queue_lines(queue)))}];"


def _checks_and_topologies(queue_map, ids: Ids) -> list[str]:
    lines = []
    for name, controller in queue_map.admission_checks.items():
        text = f"AdmissionCheck {name}" + (f"\n{controller}" if controller else "")
        lines.append(f"  {ids('check', name)} [shape=hexagon, label={quote(text)}];")
    for name, levels in queue_map.topologies.items():
        text = "\n".join(["Topology " + name] + levels)
        lines.append(f"  {ids('topology', name)} [shape=folder, label={quote(text)}];")
    for queue in queue_map.all_queues():
        lines += [f"  {ids('cq', queue.name)} -> {ids('check', check)} [style=dashed];"
                  for check in queue.admission_checks]
        lines += [f"  {ids('cq', queue.name)} -> {ids('topology', topology)} [style=dashed, label={quote(flavor)}];"
                  for flavor, topology in queue.topologies.items()]
    return lines
