"""The candidate flavors of a queued pod set (kueuelint.kueue.flavor_candidates): resolved once
per object and once per ClusterQueue however many placement and gang rules ask, and the same
answers the rules gave when each resolved them on its own (their fixtures hold those)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kueuelint import pipeline
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
from kueuelint.config import Config
from kueuelint.kueue import flavor_candidates

RULES = load_rule_dirs([builtin_rules_dir()])
FIXTURES = Path(builtin_rules_dir()) / "placement"
ASKING = ("KQ320", "KQ701", "KQ702", "KQ704")


def run(paths, codes=ASKING):
    cfg = Config()
    rules = {code: rule for code, rule in RULES.items() if code in codes}
    result = pipeline.check(pipeline.load_inputs([str(p) for p in paths], cfg), cfg, rules)
    return sorted((f.code, f.location.line, f.message) for f in result.findings if f.code in codes)


@pytest.fixture
def counted(monkeypatch):
    """How often flavors and pod templates are read while the rules run."""
    calls = {"flavor": 0, "placement": 0}

    def counting(name, real):
        def wrapper(*args):
            calls[name] += 1
            return real(*args)
        return wrapper

    monkeypatch.setattr(flavor_candidates, "flavor_nodes", counting("flavor", flavor_candidates.flavor_nodes))
    monkeypatch.setattr(flavor_candidates, "pod_placement", counting("placement", flavor_candidates.pod_placement))
    return calls


def test_each_flavor_and_pod_template_is_read_once_for_all_rules(counted):
    fixture = FIXTURES / "KQ704" / "fail-no-toleration-for-gpu-taint.yaml"
    found = run([fixture])
    assert [code for code, *_ in found] == ["KQ704", "KQ704"]
    # one flavor, read for the run's table of flavors by name and again for KQ320's (where the
    # last definition of a name counts, as in the quota state); two Jobs of one pod set each
    assert counted == {"flavor": 2, "placement": 2}


def test_the_rules_agree_when_run_alone_or_together():
    fixtures = sorted(FIXTURES.glob("KQ70[124]/*.yaml"))
    assert len(fixtures) >= 6
    for fixture in fixtures:
        together = run([fixture])
        alone = sorted(f for code in ASKING for f in run([fixture], (code,)))
        assert together == alone, fixture.name
