"""The queue map as one self-contained HTML page: inline CSS, SVG and script, nothing fetched.

Each ClusterQueue is a card with one quota bar per flavor and resource (usage filled, the
nominal quota marked, the borrowing limit as the bar's end); hovering or clicking a card
shows its numbers in the side panel.
"""

from __future__ import annotations

import json
from html import escape

from kueuelint.report.map_common import quota_line
from kueuelint.review.setup import show

BAR_WIDTH = 220

STYLE = """
body{font:13px/1.4 system-ui,sans-serif;margin:0;display:flex;color:#1d2330;background:#f6f7f9}
main{flex:1;padding:16px;overflow:auto}aside{width:380px;padding:16px;background:#fff;border-left:1px solid #d6d9e0;
position:sticky;top:0;height:100vh;box-sizing:border-box;overflow:auto}
h1{font-size:18px;margin:0 0 12px}h2{font-size:14px;margin:0 0 8px}h3{font-size:13px;margin:0 0 6px}
.cohort{border:2px solid #7b8ab8;border-radius:8px;padding:10px;margin:0 0 14px;background:#eef1fa}
.cohort .cohort{background:#e3e8f6}.queues{display:flex;flex-wrap:wrap;gap:10px}
.cq{background:#fff;border:1px solid #b9c0cf;border-radius:6px;padding:8px;width:260px;cursor:pointer}
.cq:hover,.cq.selected{border-color:#3156c4;box-shadow:0 0 0 2px #3156c455}.cq.stopped{opacity:.6}
.row{font-size:11px;margin:4px 0}.bar rect.cap{fill:#e4e7ee}.bar rect.used{fill:#4a7bd8}
.bar rect.over{fill:#d8544a}.bar line{stroke:#1d2330;stroke-width:2}
.meta{font-size:11px;color:#5a6172}.ns{margin:6px 0}.lq{display:inline-block;background:#fff;border:1px solid #c9ced8;
border-radius:10px;padding:1px 8px;margin:2px}table{border-collapse:collapse;font-size:11px}
section.alone,section.locals{margin:0 0 14px}
td,th{border-bottom:1px solid #e4e7ee;padding:2px 4px;text-align:left}
"""

SCRIPT = """
const panel = document.getElementById('details');
function show(card) {
  document.querySelectorAll('.cq.selected').forEach(c => c.classList.remove('selected'));
  card.classList.add('selected');
  const info = JSON.parse(card.dataset.info);
  const rows = info.rows.map(r => '<tr>' + [r.flavor, r.resource, r.nominal, r.borrowingLimit, r.lendingLimit, r.usage]
    .map(v => '<td>' + v + '</td>').join('') + '</tr>').join('');
  panel.innerHTML = '<h2>ClusterQueue ' + info.name + '</h2>' +
    '<table><tr><th>flavor</th><th>resource</th><th>nominal</th><th>borrow</th><th>lend</th><th>used</th></tr>' +
    rows + '</table>' + info.extra.map(t => '<p class="meta">' + t + '</p>').join('');
}
document.querySelectorAll('.cq').forEach(card => {
  card.addEventListener('mouseenter', () => show(card));
  card.addEventListener('click', () => show(card));
});
"""


def map_html(queue_map) -> str:
    body = ["<h1>Kueue queue map</h1>"]
    body += [_cohort(cohort, queue_map) for cohort in queue_map.cohorts]
    if queue_map.queues:
        body.append('<section class="alone"><h2>ClusterQueues in no cohort</h2><div class="queues">'
                    + "".join(_queue(q, queue_map) for q in queue_map.queues) + "</div></section>")
    body.append(_local_queues(queue_map))
    body.append(_others(queue_map))
    panel = '<aside id="details"><h2>Details</h2><p class="meta">Hover over or click a ClusterQueue.</p></aside>'
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>Kueue queue map</title><style>{STYLE}</style></head><body><main>{''.join(body)}</main>"
            f"{panel}<script>{SCRIPT}</script></body></html>\n")


def _cohort(cohort, queue_map) -> str:
    parts = [f'<section class="cohort" data-cohort="{escape(cohort.name)}"><h2>Cohort {escape(cohort.name)}</h2>']
    parts += [f'<div class="row">cohort quota: {escape(quota_line(row))}</div>' for row in cohort.rows]
    parts += [_cohort(child, queue_map) for child in cohort.cohorts]
    if cohort.queues:
        parts.append('<div class="queues">' + "".join(_queue(q, queue_map) for q in cohort.queues) + "</div>")
    return "".join(parts) + "</section>"


def _queue(queue, queue_map) -> str:
    extra = [f"admission check {c} ({queue_map.admission_checks.get(c) or 'no such AdmissionCheck'})"
             for c in queue.admission_checks]
    extra += [f"flavor {f} uses Topology {t}" for f, t in queue.topologies.items()]
    if queue.pending is not None:
        extra.append(f"{queue.pending} workload(s) waiting")
    if queue.stopped:
        extra.append("stopped: admits nothing")
    # the script writes these into the page as HTML: escaped here, like every name below
    info = {"name": escape(queue.name), "rows": [_row_numbers(row) for row in queue.rows],
            "extra": [escape(text) for text in extra]}
    rows = "".join(f'<div class="row">{escape(quota_line(row))}<br>{_bar(row)}</div>' for row in queue.rows)
    meta = "".join(f'<div class="meta">{escape(text)}</div>' for text in extra)
    classes = "cq stopped" if queue.stopped else "cq"
    return (f'<div class="{classes}" data-cq="{escape(queue.name)}" data-info="{escape(json.dumps(info))}"'
            ' tabindex="0">'
            f"<h3>{escape(queue.name)}</h3>{rows}{meta}</div>")


def _row_numbers(row) -> dict:
    numbers = {"flavor": row.flavor, "resource": row.resource, "nominal": show(row.resource, row.nominal),
               "borrowingLimit": show(row.resource, row.borrowing_limit),
               "lendingLimit": show(row.resource, row.lending_limit), "usage": show(row.resource, row.usage)}
    return {key: escape(value) for key, value in numbers.items()}


def _bar(row) -> str:
    """Usage against quota: the bar ends at nominal plus the borrowing limit (or at usage,
    when that is more); the line marks the nominal quota."""
    nominal = row.nominal or 0
    used = row.usage or 0
    end = max(nominal + (row.borrowing_limit or 0), used, 1)
    scale = BAR_WIDTH / end
    used_width = round(used * scale)
    over = used > nominal + (row.borrowing_limit if row.borrowing_limit is not None else used)
    mark = round(nominal * scale)
    title = escape(f"used {show(row.resource, used)} of nominal {show(row.resource, row.nominal)}")
    return (f'<svg class="bar" width="{BAR_WIDTH}" height="12" role="img" aria-label="{title}">'
            f'<title>{title}</title><rect class="cap" width="{BAR_WIDTH}" height="12" rx="3"/>'
            f'<rect class="{"over" if over else "used"}" width="{used_width}" height="12" rx="3"/>'
            f'<line x1="{mark}" x2="{mark}" y1="0" y2="12"/></svg>')


def _local_queues(queue_map) -> str:
    if not queue_map.local_queues:
        return ""
    parts = ['<section class="locals"><h2>LocalQueues by namespace</h2>']
    for namespace, queues in queue_map.local_queues.items():
        items = "".join(f'<span class="lq" data-lq="{escape(namespace)}/{escape(name)}">{escape(name)} &rarr; '
                        f"{escape(cq)}</span>" for name, cq in queues)
        parts.append(f'<div class="ns"><b>{escape(namespace)}</b> {items}</div>')
    return "".join(parts) + "</section>"


def _others(queue_map) -> str:
    parts = []
    if queue_map.admission_checks:
        items = "".join(f"<li>{escape(n)}: {escape(c or '-')}</li>" for n, c in queue_map.admission_checks.items())
        parts.append(f"<section><h2>AdmissionChecks</h2><ul>{items}</ul></section>")
    if queue_map.topologies:
        items = "".join(f"<li>{escape(n)}: {escape(' > '.join(levels))}</li>"
                        for n, levels in queue_map.topologies.items())
        parts.append(f"<section><h2>Topologies</h2><ul>{items}</ul></section>")
    return "".join(parts)
