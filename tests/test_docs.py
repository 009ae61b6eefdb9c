"""docs/rules.md is the generated rule catalogue: it must match the rules that ship."""

from __future__ import annotations

from conftest import REPO

from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
from kueuelint.cli.rules_cmd import render_markdown

RULES = load_rule_dirs([builtin_rules_dir()])


def test_rule_catalogue_is_in_sync():
    expected = render_markdown([rule.meta for rule in RULES.values()])
    actual = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert actual == expected, "regenerate with: kueuelint rules --all --format markdown > docs/rules.md"


def test_every_rule_is_documented():
    for rule in RULES.values():
        docs = rule.meta.docs
        assert rule.meta.summary, rule.meta.code
        assert docs.what and docs.why and docs.fix, f"{rule.meta.code} needs what/why/fix docs"


def test_readme_starts_with_the_two_setup_commands():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    block = lines[lines.index("```sh") + 1: lines.index("```")]
    assert len(block) == 2
    assert "kueuelint check fixtures/examples/" in block[0]
    assert block[1].endswith("pytest")
