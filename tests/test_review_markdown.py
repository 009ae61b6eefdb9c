"""``kueuelint review --format markdown``: rendered with a CommonMark parser (markdown-it-py) to
check its structure, and its Mermaid map parsed by Mermaid itself (the npm package's browser
build, in headless Chromium: tests/helpers_chromium.py)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from helpers_chromium import Browser, mermaid_parser
from kueuelint.cli import main

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "review"
CASES = ("lower-nominal", "move-cohort", "remove-flavor", "comment-only", "reclaim")


def markdown(case: str) -> str:
    folder = FIXTURES / case
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["review", str(folder / "before"), str(folder / "after"), "--snapshot", str(folder / "snapshot.yaml"),
              "--format", "markdown"])
    return out.getvalue()


def tokens(text: str):
    return MarkdownIt("commonmark").enable("table").parse(text)


def table_rows(found) -> list[list[str]]:
    """The cells of the first table, header included, as rendered text."""
    rows, row, inside = [], None, False
    for token in found:
        if token.type == "table_open":
            inside = True
        elif token.type == "table_close":
            break
        elif inside and token.type == "tr_open":
            row = []
        elif inside and token.type == "inline" and row is not None:
            row.append("".join(child.content for child in token.children or []))
        elif inside and token.type == "tr_close":
            rows.append(row)
    return rows


def test_verdict_then_a_table_of_the_changed_fates():
    found = tokens(markdown("remove-flavor"))
    assert found[0].type == "heading_open" and found[0].tag == "h3"
    verdict = next(t for t in found if t.type == "inline" and "compared" in t.content)
    assert any(c.type == "strong_open" for c in verdict.children)
    rows = table_rows(found)
    assert rows[0] == ["workload", "before", "after", "change"]
    assert {row[0]: row[3] for row in rows[1:]} == {
        "ml/p2": "flavor-changed", "ml/p3": "stranded", "ml/p4-spot-only": "never-admissible"}


def test_details_are_collapsible_blocks():
    text = markdown("lower-nominal")
    blocks = [t.content for t in tokens(text) if t.type == "html_block"]
    opened = [b for b in blocks if b.startswith("<details>")]
    assert len(opened) == sum(1 for b in blocks if b.strip() == "</details>") >= 3
    assert all("<summary>" in b for b in opened)
    summaries = " ".join(opened)
    assert "Quota and usage" in summaries and "What Kueue does" in summaries and "Map of the cohort" in summaries


def test_no_fate_change_has_no_table_and_no_map():
    found = tokens(markdown("comment-only"))
    assert not table_rows(found)
    assert not [t for t in found if t.type == "fence"]
    assert any(t.type == "inline" and "no workload changes fate" in t.content for t in found)


def test_table_cells_survive_pipes_and_markup():
    from kueuelint.report.review_markdown import cell

    rendered = tokens(f"| a | b |\n|---|---|\n| {cell('x|y <b>*z*</b>_')} | ok |\n")
    rows = table_rows(rendered)
    assert rows[1] == ["x|y <b>*z*</b>_", "ok"]


@pytest.fixture(scope="module")
def mermaid(tmp_path_factory):
    browser = Browser()
    try:
        yield mermaid_parser(browser, tmp_path_factory.mktemp("mermaid"))
    finally:
        browser.close()


@pytest.mark.parametrize("case", [c for c in CASES if c != "comment-only"])
def test_the_embedded_map_is_valid_mermaid(case, mermaid):
    fences = [t for t in tokens(markdown(case)) if t.type == "fence"]
    assert [t.info for t in fences] == ["mermaid"]
    assert mermaid(fences[0].content) is None


def test_mermaid_check_rejects_broken_syntax(mermaid):
    # the check itself must be able to fail
    assert mermaid('flowchart LR\n  a["unclosed] --> b\n') is not None


def test_the_map_shows_only_the_trees_that_changed():
    fence = next(t for t in tokens(markdown("move-cohort")) if t.type == "fence").content
    assert "cohort_other" in fence and "cohort_shared" in fence and "cq_alpha" in fence
    lowered = next(t for t in tokens(markdown("remove-flavor")) if t.type == "fence").content
    assert "cq_train" in lowered and "Cohort" not in lowered
