"""KQ110–KQ113 through the whole pipeline: positions, which judge speaks, and the CRD wins."""

from __future__ import annotations

import textwrap

from conftest import KUEUE_CRDS
from kueuelint import pipeline
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
from kueuelint.config import Config

CRD_DIR = str(KUEUE_CRDS)
SCHEMA_CODES = {"KQ110", "KQ111", "KQ112", "KQ113"}
# Only the schema rules: these tests are about them, not about the rest of the catalogue.
RULES = load_rule_dirs([builtin_rules_dir() / "schema"])

CLUSTER_QUEUE = textwrap.dedent("""\
    apiVersion: kueue.x-k8s.io/v1beta2
    kind: ClusterQueue
    metadata:
      name: team-a
    spec:
      cohort: research
      preemption:
        borrowWithinCohort: {policy: LowerPriority}
    """)


def _findings(tmp_path, text: str, context: tuple[str, ...] = ()):
    path = tmp_path / "queues.yaml"
    path.write_text(text)
    config = Config()
    inputs = pipeline.load_inputs([str(path)], config, extra_context=context)
    result = pipeline.check(inputs, config, RULES)
    return [f for f in result.findings if f.code in SCHEMA_CODES]


def test_builtin_model_judges_without_crds(tmp_path):
    findings = _findings(tmp_path, CLUSTER_QUEUE)
    by_line = {(f.code, f.location.line, f.location.column) for f in findings}
    assert ("KQ110", 6, 3) in by_line  # the `cohort` key itself
    assert ("KQ110", 7, 3) in by_line  # the preemption rule, at the `preemption` key
    assert "did you mean 'cohortName'?" in " ".join(f.message for f in findings)


def test_crd_wins_and_names_its_version(tmp_path):
    findings = _findings(tmp_path, CLUSTER_QUEUE, context=(CRD_DIR,))
    assert {f.code for f in findings} == {"KQ111", "KQ112"}
    schema = next(f for f in findings if f.code == "KQ111")
    assert (schema.location.line, schema.location.column) == (6, 3)
    assert "[CRD clusterqueues.kueue.x-k8s.io v1beta2]" in schema.message
    rule = next(f for f in findings if f.code == "KQ112")
    assert rule.location.line == 7
    assert "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never" in rule.message


def test_crds_from_rule_options(tmp_path):
    path = tmp_path / "queues.yaml"
    path.write_text(CLUSTER_QUEUE)
    config = Config()
    for code in SCHEMA_CODES:
        config.rule_options[code] = {"crds": [CRD_DIR]}
    result = pipeline.check(pipeline.load_inputs([str(path)], config), config, RULES)
    assert {f.code for f in result.findings if f.code in SCHEMA_CODES} == {"KQ111", "KQ112"}


def test_other_kinds_without_crds_are_not_judged(tmp_path):
    job = textwrap.dedent("""\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j, namespace: default}
        spec: {bogus: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}
        """)
    assert _findings(tmp_path, job) == []


def test_run_counts_evaluated_and_skipped_transition_rules(tmp_path):
    from kueuelint.checks.runner import Checker
    from kueuelint.findings import RunStatistics

    path = tmp_path / "lq.yaml"
    path.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                    "metadata: {name: q, namespace: a}\nspec: {clusterQueue: cq}\n")
    config = Config()
    inputs = pipeline.load_inputs([str(path)], config, extra_context=(CRD_DIR,))
    result = Checker(RULES, config).run(inputs)
    assert result.stats == RunStatistics(cel_rules_evaluated=0, transition_rules_skipped=1)
