"""``kueuelint map``: Mermaid checked by Mermaid's own parser, DOT by Graphviz, and the HTML page
opened in headless Chromium (tests/helpers_chromium.py): every ClusterQueue of the fixture is
drawn, the numbers show on click, and the page asks the network for nothing."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers_chromium import Browser, mermaid_parser, unavailable
from kueuelint.cli import main

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "review" / "map"
QUEUES = {"vision", "nlp.team", "serving", "batch", "sandbox"}


def draw(fmt: str, *extra: str, snapshot: bool = True) -> str:
    argv = ["map", str(FIXTURE / "queues.yaml"), "--format", fmt, *extra]
    if snapshot:
        argv += ["--snapshot", str(FIXTURE / "snapshot.yaml")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


def test_mermaid_nests_hierarchical_cohorts_and_links_local_queues():
    text = draw("mermaid")
    lines = [line.strip() for line in text.splitlines()]
    org = lines.index('subgraph cohort_org["Cohort org"]')
    research = lines.index('subgraph cohort_research["Cohort research"]')
    assert org < research
    assert "lq_research_train --> cq_vision" in lines
    assert any(line.startswith("cq_nlp_team -.-> check_budget_approval") for line in lines)
    assert any(line.startswith('cq_vision -. "gpu-a100" .-> topology_datacenter') for line in lines)
    assert "cpu-std cpu: 32 (borrow 8), used 36" in text and "2 waiting" in text


def test_without_a_snapshot_there_is_no_usage():
    text = draw("mermaid", snapshot=False)
    assert "used" not in text and "waiting" not in text
    assert "cpu-std cpu: 32 (borrow 8)" in text


def test_dot_is_read_by_graphviz_with_every_queue():
    if shutil.which("dot") is None:
        unavailable("Graphviz is not installed (apt-get install graphviz)")
    svg = subprocess.run(["dot", "-Tsvg"], input=draw("dot"), capture_output=True, text=True, check=True).stdout
    titles = {line.strip()[7:-8] for line in svg.splitlines() if line.strip().startswith("<title>")}
    assert {f"cq_{name.replace('.', '_')}" for name in QUEUES} <= titles
    assert "cluster_cohort_research" in titles


def test_nothing_to_draw_is_an_error(tmp_path, cli):
    (tmp_path / "job.yaml").write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n")
    done = cli("map", str(tmp_path / "job.yaml"), "--format", "mermaid")
    assert done.returncode == 2 and "no ClusterQueue" in done.stderr


def test_format_is_required_and_checked(cli):
    assert cli("map", str(FIXTURE)).returncode == 2
    assert cli("map", str(FIXTURE), "--format", "svg").returncode == 2


def test_missing_path_is_an_error(tmp_path, cli):
    done = cli("map", str(FIXTURE), str(tmp_path / "nope.yaml"), "--format", "dot")
    assert done.returncode == 2 and "nope.yaml" in done.stderr


@pytest.fixture(scope="module")
def browser():
    opened = Browser()
    try:
        yield opened
    finally:
        opened.close()


def test_mermaid_map_parses_with_mermaid(browser, tmp_path):
    parse = mermaid_parser(browser, tmp_path)
    assert parse(draw("mermaid")) is None
    assert parse(draw("mermaid", snapshot=False)) is None


def test_html_map_in_chromium(browser, tmp_path):
    page = tmp_path / "map.html"
    assert main(["map", str(FIXTURE), "--snapshot", str(FIXTURE / "snapshot.yaml"), "--format", "html",
                 "-o", str(page)]) == 0
    browser.open(page.as_uri())
    cards = browser.evaluate("Array.from(document.querySelectorAll('.cq')).map(card => ({name: card.dataset.cq, "
                             "width: card.getBoundingClientRect().width, "
                             "bars: card.querySelectorAll('svg.bar').length}))")
    assert {card["name"] for card in cards} == QUEUES
    assert all(card["width"] > 100 and card["bars"] >= 1 for card in cards)
    nested = browser.evaluate("!!document.querySelector('[data-cohort=org] [data-cohort=research] [data-cq=vision]')")
    assert nested
    browser.evaluate("document.querySelector('[data-cq=\"vision\"]').click(); true")
    panel = browser.evaluate("document.getElementById('details').innerText")
    assert "ClusterQueue vision" in panel and "128Gi" in panel and "36" in panel
    screenshot = Path(os.environ.get("KUEUELINT_SCREENSHOT_DIR") or tmp_path) / "map.png"
    browser.screenshot(screenshot)
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 10_000
    assert browser.requests() == [page.as_uri()]


def test_the_request_watch_sees_a_fetch(browser, tmp_path):
    # the no-network assertion above means something only if a request would be seen
    page = tmp_path / "fetching.html"
    page.write_text('<!doctype html><img src="http://192.0.2.1/pixel.png">')
    browser.open(page.as_uri(), timeout=30)
    assert "http://192.0.2.1/pixel.png" in browser.requests()


def test_html_map_is_one_file_that_links_nothing():
    html = draw("html")
    assert "src=" not in html and "href=" not in html and "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html


def test_names_cannot_inject_markup(browser, tmp_path):
    hostile = 'x"><img src=leak onerror=alert(1)>'
    (tmp_path / "queues.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
        f"metadata: {{name: '{hostile}'}}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu]\n"
        f"    flavors: [{{name: '<i>f</i>', resources: [{{name: cpu, nominalQuota: 1}}]}}]\n")
    page = tmp_path / "map.html"
    assert main(["map", str(tmp_path / "queues.yaml"), "--format", "html", "-o", str(page)]) == 0
    browser.open(page.as_uri())
    browser.evaluate("document.querySelector('.cq').click(); true")
    assert browser.evaluate("document.querySelectorAll('img, i').length") == 0
    assert browser.dialogs == []
    assert browser.evaluate("document.querySelector('.cq').dataset.cq") == hostile
    assert hostile in browser.evaluate("document.getElementById('details').innerText")
    assert browser.requests() == [page.as_uri()]
