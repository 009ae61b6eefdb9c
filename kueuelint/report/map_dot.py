"""The queue map as Graphviz DOT: cohorts are nested clusters, LocalQueues point at their
ClusterQueue, dashed edges lead to admission checks and topologies."""

from __future__ import annotations

from kueuelint.report.map_common import Ids, queue_lines, quota_line


def map_dot(queue_map) -> str:
    ids = Ids()
    lines = ["digraph kueue {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    for cohort in queue_map.cohorts:
        lines += _cohort(cohort, ids, "  ")
    lines += [f"  {_queue(queue, ids)}" for queue in queue_map.queues]
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


def _queue(queue, ids: Ids) -> str:
    return f"{ids('cq', queue.name)} [label={quote(chr(10).join(queue_lines(queue)))}];"


def _cohort(cohort, ids: Ids, indent: str) -> list[str]:
    lines = [f"{indent}subgraph cluster_{ids('cohort', cohort.name)} {{",
             f"{indent}  label={quote('Cohort ' + cohort.name)}; style=rounded;"]
    if cohort.rows:
        text = "\n".join(["quota of the cohort"] + [quota_line(row) for row in cohort.rows])
        lines.append(f"{indent}  {ids('cohortquota', cohort.name)} [shape=note, label={quote(text)}];")
    for child in cohort.cohorts:
        lines += _cohort(child, ids, indent + "  ")
    lines += [f"{indent}  {_queue(queue, ids)}" for queue in cohort.queues]
    lines.append(f"{indent}}}")
    return lines


def _checks_and_topologies(queue_map, ids: Ids) -> list[str]:
    lines = []
    for name, controller in queue_map.admission_checks.items():
        text = f"AdmissionCheck {name}" + (f"\n{controller}" if controller else "")
        lines.append(f"  {ids('check', name)} [shape=hexagon, label={quote(text)}];")
    for name, levels in queue_map.topologies.items():
        lines.append(f"  {ids('topology', name)} [shape=folder, label={quote(chr(10).join(['Topology ' + name] + levels))}];")
    for queue in queue_map.all_queues():
        lines += [f"  {ids('cq', queue.name)} -> {ids('check', check)} [style=dashed];"
                  for check in queue.admission_checks]
        lines += [f"  {ids('cq', queue.name)} -> {ids('topology', topology)} [style=dashed, label={quote(flavor)}];"
                  for flavor, topology in queue.topologies.items()]
    return lines
