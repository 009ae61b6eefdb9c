"""Run a rule's pass/fail fixtures: the manifests that document and test it.

Each fixture is a manifest file in ``<rule dir>/<CODE>/``: names starting with ``fail``
must produce findings, names starting with ``pass`` must not.  The expected findings are
written as comments on the lines they must point at: ``# expect: KQ201`` (several codes
comma-separated).  A first-line comment ``# fixture-config: {kueue-version: "0.20"}`` sets
configuration for that fixture only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kueuelint.checks.registry import RuleDef
from kueuelint.config import Config, ConfigError, from_mapping

EXPECT_RE = re.compile(r"#\s*expect:\s*(KQ\d{3}(?:\s*,\s*KQ\d{3})*)")
CONFIG_RE = re.compile(r"^#\s*fixture-config:\s*(.+)$", re.MULTILINE)


@dataclass
class FixtureResult:
    rule: str
    path: Path
    expected: set[tuple[str, int]]
    actual: set[tuple[str, int]]
    messages: dict[tuple[str, int], str] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.expected == self.actual

    def explain(self) -> str:
        if self.error:
            return f"{self.path}: {self.error}"
        lines = [f"{self.path}: rule {self.rule}"]
        for code, line in sorted(self.expected - self.actual, key=lambda x: (x[1], x[0])):
            lines.append(f"  missing  {code} on line {line}")
        for code, line in sorted(self.actual - self.expected, key=lambda x: (x[1], x[0])):
            lines.append(f"  extra    {code} on line {line}: {self.messages.get((code, line), '')}")
        return "\n".join(lines)


def fixture_files(rule: RuleDef) -> list[Path]:
    if rule.fixtures_dir is None:
        return []
    return sorted(p for p in rule.fixtures_dir.iterdir()
                  if p.suffix in (".yaml", ".yml", ".json") and p.name.startswith(("pass", "fail")))


def expected_findings(text: str) -> set[tuple[str, int]]:
    expected = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = EXPECT_RE.search(line)
        if match:
            expected.update((code.strip(), number) for code in match.group(1).split(","))
    return expected


def fixture_config(text: str, folder: Path) -> Config:
    match = CONFIG_RE.search(text)
    if not match:
        return Config()
    import yaml

    config = from_mapping(yaml.safe_load(match.group(1)) or {}, "fixture-config")
    config.root = folder
    return config


def run_fixture(rule: RuleDef, path: Path, rules: dict[str, RuleDef]) -> FixtureResult:
    from kueuelint.checks.registry import load_rules
    from kueuelint.checks.runner import Checker
    from kueuelint.run import open_run

    text = path.read_bytes().decode("utf-8", errors="replace")  # encoding fixtures are not UTF-8
    expected = expected_findings(text)
    try:
        config = fixture_config(text, path.parent)
    except ConfigError as exc:
        return FixtureResult(rule.meta.code, path, expected, set(), error=str(exc))
    if path.name.startswith("fail") and not any(code == rule.meta.code for code, _ in expected):
        return FixtureResult(rule.meta.code, path, expected, set(),
                             error=f"a fail fixture must expect {rule.meta.code} somewhere")
    if config.rule_dirs:
        rules = {**rules, **load_rules(config)}
    result = Checker(rules, config).run(open_run([str(path)], config))
    relevant = {code for code, _ in expected} | {rule.meta.code}
    actual = {(f.code, f.location.line) for f in result.findings if f.code in relevant}
    messages = {(f.code, f.location.line): f.message for f in result.findings}
    failures = rule_failures(rule.meta.code, result.findings, expected)
    error = f"rule {rule.meta.code} itself failed:\n" + "\n".join(failures) if failures else None
    return FixtureResult(rule.meta.code, path, expected, actual, messages, error=error)


def rule_failures(code: str, findings, expected: set[tuple[str, int]] = frozenset()) -> list[str]:
    """The rule's own compile or run errors (KQ009) in a fixture run, as lines to show: a
    broken rule must say why, not look like a rule that found nothing."""
    prefix = f"rule {code} ("
    return [f"  line {f.location.line}: {f.message}" for f in findings
            if f.code == RULE_ERROR and f.message.startswith(prefix)
            and (RULE_ERROR, f.location.line) not in expected]


RULE_ERROR = "KQ009"


def run_all(rules: dict[str, RuleDef], only: dict[str, RuleDef] | None = None) -> list[FixtureResult]:
    results = []
    for rule in (only or rules).values():
        for path in fixture_files(rule):
            results.append(run_fixture(rule, path, rules))
    return results


def missing_fixtures(rules: dict[str, RuleDef]) -> list[str]:
    """Rules without both a passing and a failing fixture (built-in input rules included)."""
    missing = []
    for code, rule in rules.items():
        names = [p.name for p in fixture_files(rule)]
        if not any(n.startswith("pass") for n in names) or not any(n.startswith("fail") for n in names):
            missing.append(code)
    return missing
