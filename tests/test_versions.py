"""kueue-version changes what is reported: each version-dependent rule names its boundary in its
docs, and its fixtures check both sides of it."""

from __future__ import annotations

import re

import pytest

from kueuelint.checks.fixtures import CONFIG_RE, fixture_files
from kueuelint.pipeline import load_rules
from kueuelint.config import Config, parse_kueue_version

# rule -> the first Kueue release that behaves the new way (from Kueue's CHANGELOG and gates)
BOUNDARIES = {
    "KQ101": (0, 15),   # v1beta2 served
    "KQ102": (0, 20),   # v1beta1 no longer served (and nothing to move to before 0.15)
    "KQ110": (0, 11),   # the MXJob framework removed from the Configuration
    "KQ201": (0, 15),   # the queue-name annotation is no longer read
    "KQ209": (0, 18),   # ElasticJobsViaWorkloadSlices on by default
    "KQ210": (0, 19),   # AdmissionGatedBy on by default
    "KQ310": (0, 16),   # zero requests ignored
    "KQ601": (0, 15),   # pod-based frameworks no longer need "pod" listed
    "KQ602": (0, 19),   # managedJobsNamespaceSelector respected for every kind
    "KQ620": (0, 18),   # more pod sets per Workload
    "KQ622": (0, 11),   # MXJob integration removed
    "KQ633": (0, 18),   # elastic RayClusters
    "KQ650": (0, 19),   # TASMultiLayerTopology on by default
    "KQ651": (0, 19),
    "KQ906": (0, 19),   # waitForPodsReady always on
}


@pytest.fixture(scope="module")
def rules():
    return load_rules(Config())


def _fixture_version(path) -> tuple[int, int]:
    match = CONFIG_RE.search(path.read_text(encoding="utf-8", errors="replace"))
    found = re.search(r"kueue-version:\s*\"?([0-9.]+|latest)", match.group(1)) if match else None
    return parse_kueue_version(found.group(1)) if found else Config().kueue_version


@pytest.mark.parametrize("code", sorted(BOUNDARIES))
def test_version_dependent_rule_names_its_boundary(rules, code):
    major, minor = BOUNDARIES[code]
    docs = rules[code].meta.docs
    text = " ".join((rules[code].meta.summary, docs.what, docs.why, docs.fix))
    assert f"{major}.{minor}" in text, f"{code}'s docs do not name Kueue {major}.{minor}"


@pytest.mark.parametrize("code", sorted(BOUNDARIES))
def test_version_dependent_rule_has_fixtures_on_both_sides(rules, code):
    versions = {_fixture_version(path) for path in fixture_files(rules[code])}
    assert any(v < BOUNDARIES[code] for v in versions), f"{code}: no fixture before the boundary"
    assert any(v >= BOUNDARIES[code] for v in versions), f"{code}: no fixture from the boundary on"


def test_kueue_version_changes_the_findings(cli, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: a\n"
                   "  annotations:\n    kueue.x-k8s.io/queue-name: q\n")
    assert cli("check", "--kueue-version", "0.14", str(job)).returncode == 0
    assert cli("check", "--kueue-version", "0.15", str(job)).returncode == 1
