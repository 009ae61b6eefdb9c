"""Every rule's pass/fail fixtures, run through the real pipeline."""

from __future__ import annotations

import pytest

from kueuelint.checks.fixtures import fixture_files, missing_fixtures, run_fixture
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
from kueuelint.checks.runner import ensure_python_rules_loaded

RULES = load_rule_dirs([builtin_rules_dir()])
CASES = [(rule, path) for rule in RULES.values() for path in fixture_files(rule)]


@pytest.mark.parametrize("rule,path", CASES, ids=[f"{r.meta.code}/{p.name}" for r, p in CASES])
def test_fixture(rule, path):
    result = run_fixture(rule, path, RULES)
    assert result.ok, result.explain()


def test_every_rule_has_a_passing_and_a_failing_fixture():
    assert missing_fixtures(RULES) == []


def test_every_python_rule_resolves_to_a_function():
    ensure_python_rules_loaded(RULES)


def test_fail_fixtures_really_fail():
    # guards the runner itself: a fail fixture must produce its rule's finding
    for rule, path in CASES:
        if path.name.startswith("fail"):
            result = run_fixture(rule, path, RULES)
            assert any(code == rule.meta.code for code, _ in result.actual), path
