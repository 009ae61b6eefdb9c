"""Kueue object structure, cross-object integrity and Configuration rules (KQ401–KQ431,
KQ501–KQ512, KQ901–KQ906): what the fixtures cannot show — one finding per mistake across the
schema rules, single-file runs, positions inside a ConfigMap's embedded YAML, the corpus."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import CORPUS

from kueuelint import pipeline
from kueuelint.checks.builtin.kueue_config import duration_seconds
from kueuelint.kueue.label_syntax import label_key_problem, selector_problems
from kueuelint.config import Config, from_mapping

MINE = ("KQ4", "KQ5", "KQ9")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def run(paths, config: Config | None = None, context=()):
    config = config or Config()
    inputs = pipeline.load_inputs([str(p) for p in paths], config,
                                  extra_context=tuple(str(c) for c in context))
    return pipeline.check(inputs, config).findings


def codes(findings) -> list[tuple[str, int]]:
    return sorted((f.code, f.location.line) for f in findings)


MISINDENTED = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cluster-queue
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: "default-flavor"
    resources:
    - name: "cpu"
      nominalQuota: 9
    - name: "memory"
      nominalQuota: 36Gi
"""


def test_misindented_resources_is_one_finding(tmp_path):
    found = run([write(tmp_path, "cq.yaml", MISINDENTED)])
    assert codes(found) == [("KQ408", 11)]
    assert "default-flavor" in found[0].message


def test_v1beta1_values_replace_the_schema_enum_finding(tmp_path):
    path = write(tmp_path, "cq.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: team-a}
        spec:
          namespaceSelector: {}
          cohort: research
          flavorFungibility:
            whenCanBorrow: Borrow
            whenCanPreempt: Sometimes
        """)
    # cohort: KQ110's did-you-mean; Borrow: KQ407; an unrelated bad value stays with KQ110.
    assert codes(run([path])) == [("KQ110", 6), ("KQ110", 9), ("KQ407", 8)]


def test_schema_still_reports_when_the_better_rule_is_not_selected(tmp_path):
    path = write(tmp_path, "cq.yaml", MISINDENTED)
    config = from_mapping({"select": ["KQ1"]}, "test")
    assert codes(run([path], config)) == [("KQ110", 10), ("KQ110", 11)]


def test_missing_targets_only_for_kinds_the_run_holds(tmp_path):
    path = write(tmp_path, "lq.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cq}
        spec:
          namespaceSelector: {}
          resourceGroups:
          - coveredResources: [cpu]
            flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 1}]}]
          admissionChecksStrategy: {admissionChecks: [{name: prov}]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: tas}
        spec: {nodeLabels: {pool: a}, topologyName: default}
        """)
    # The run holds a ResourceFlavor, so a missing one counts; no AdmissionCheck or Topology.
    assert codes(f for f in run([path]) if f.code.startswith(MINE)) == [("KQ502", 8)]
    strict = from_mapping({"require-complete": True}, "test")
    found = codes(f for f in run([path], strict) if f.code.startswith("KQ5"))
    assert found == [("KQ502", 8), ("KQ503", 9), ("KQ507", 14)]


def test_context_files_resolve_references_but_are_not_reported(tmp_path):
    setup = write(tmp_path, "setup.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cluster-queue}
        spec: {}
        """)
    queue = write(tmp_path, "lq.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {namespace: team-a, name: user-queue}
        spec: {clusterQueue: cluster-queeu}
        """)
    found = [f for f in run([queue], context=[setup]) if f.code.startswith(MINE)]
    assert codes(found) == [("KQ501", 4)]
    assert "did you mean 'cluster-queue'" in found[0].message


def test_same_named_objects_resolve_within_the_file(tmp_path):
    other = write(tmp_path, "a.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cluster-queue}
        spec: {namespaceSelector: {matchLabels: {team: ml}}}
        """)
    here = write(tmp_path, "b.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cluster-queue}
        spec: {namespaceSelector: {}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {namespace: team-a, name: user-queue}
        spec: {clusterQueue: cluster-queue}
        ---
        apiVersion: v1
        kind: Namespace
        metadata: {name: team-a}
        """)
    assert [f for f in run([other, here]) if f.code == "KQ510"] == []


@pytest.mark.parametrize("key", ["{x: 1}", "[a]", "7"])
def test_a_selector_key_that_is_no_string_is_reported_once_and_stops_nothing(tmp_path, key):
    """KQ411 says Kueue rejects the ClusterQueue; KQ510 used to fail on it (unhashable key)."""
    setup = write(tmp_path, "queues.yaml", f"""
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {{name: cluster-queue}}
        spec:
          namespaceSelector:
            matchExpressions: [{{key: {key}, operator: In, values: [a]}}]
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {{namespace: team-a, name: user-queue}}
        spec: {{clusterQueue: cluster-queue}}
        """)
    found = [f for f in run([setup]) if f.code.startswith(("KQ0", "KQ4", "KQ5"))]
    assert [f.code for f in found] == ["KQ411"]


@pytest.mark.parametrize("field", ["key", "effect"])
def test_a_taint_key_or_effect_that_is_no_string_is_left_to_the_schema(tmp_path, field):
    """KQ421 compares (key, effect) pairs; a mapping there used to make it fail (unhashable)."""
    taint = {"key": "spot", "effect": "NoSchedule", field: "{x: [1]}"}
    text = ", ".join(f"{name}: {value}" for name, value in taint.items())
    flavor = write(tmp_path, "flavor.yaml", f"""
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {{name: spot}}
        spec:
          nodeTaints: [{{{text}}}, {{{text}}}, {{key: a, effect: NoSchedule}}, {{key: a, effect: NoSchedule}}]
        """)
    found = [f.code for f in run([flavor]) if f.code in ("KQ009", "KQ110", "KQ421")]
    assert found.count("KQ009") == 0 and found.count("KQ421") == 1 and "KQ110" in found


def test_a_node_affinity_key_that_is_no_string_stops_no_placement_rule(tmp_path):
    """KQ320, KQ701 and KQ702 match pod templates against flavors; a mapping as the key of a
    node affinity expression used to make all three fail (KQ009)."""
    setup = write(tmp_path, "setup.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: a100}
        spec: {nodeLabels: {pool: a100}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cluster-queue}
        spec:
          namespaceSelector: {}
          resourceGroups:
          - coveredResources: [cpu]
            flavors: [{name: a100, resources: [{name: cpu, nominalQuota: 4}]}]
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {namespace: team-a, name: user-queue}
        spec: {clusterQueue: cluster-queue}
        """)
    job = write(tmp_path, "job.yaml", """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: train, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
        spec:
          template:
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                    - matchExpressions: [{key: {pool: x}, operator: In, values: [a100]}]
              containers: [{name: c, image: x, resources: {requests: {cpu: "8"}}}]
              restartPolicy: Never
        """)
    found = [f.code for f in run([setup, job])]
    assert "KQ009" not in found and "KQ320" in found    # 8 cpu cannot fit 4: still judged


def test_a_local_queue_naming_its_cluster_queue_with_a_mapping_stops_no_rule(tmp_path):
    """KQ610 and the topology rules gather ClusterQueue names in a set; a mapping there used to
    make them fail (KQ009). The schema reports it (KQ110)."""
    setup = write(tmp_path, "setup.yaml", """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {namespace: team-a, name: user-queue}
        spec: {clusterQueue: {name: cluster-queue}}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
        spec:
          replicas: 2
          selector: {matchLabels: {app: web}}
          template:
            metadata:
              labels: {app: web}
              annotations: {kueue.x-k8s.io/podset-required-topology: rack}
            spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
        """)
    found = [f.code for f in run([setup])]
    assert "KQ009" not in found and "KQ110" in found


CONFIGMAP = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration

    managedJobsNamespaceSelector: {}
    integrations:
      frameworks:
      - batch/job
      - batch/job
"""


def test_configmap_findings_point_inside_the_embedded_yaml(tmp_path):
    found = [f for f in run([write(tmp_path, "cm.yaml", CONFIGMAP)])
             if f.code.startswith("KQ9") and f.code != "KQ906"]   # KQ906: a note on the version
    assert [(f.code, f.location.line, f.location.column) for f in found] == [
        ("KQ902", 11, 5), ("KQ903", 15, 9)]
    assert found[0].message.startswith("ConfigMap kueue-system/kueue-manager-config: ")


def test_folded_configmap_text_points_at_the_key(tmp_path):
    path = write(tmp_path, "cm.yaml", """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config, namespace: kueue-system}
        data:
          controller_manager_config.yaml: "apiVersion: config.kueue.x-k8s.io/v1beta2\\nkind: Configuration\\nmanagedJobsNamespaceSelector: {}\\n"
        """)
    found = [f for f in run([path]) if f.code.startswith("KQ9") and f.code != "KQ906"]
    assert codes(found) == [("KQ902", 5)]
    assert "managedJobsNamespaceSelector: " in found[0].message


@pytest.mark.parametrize("text, seconds", [
    ("0", 0.0), ("5m", 300.0), ("1h30m", 5400.0), ("-1s", -1.0), ("1.5s", 1.5),
    ("5 minutes", None), ("10", None), ("", None), (5, None)])
def test_go_durations(text, seconds):
    assert duration_seconds(text) == seconds


def test_label_syntax():
    assert label_key_problem("cloud.google.com/gke-tpu-topology") is None
    assert label_key_problem("nvidia.com/gpu ") is not None
    assert label_key_problem("Example.com/x") is not None
    assert label_key_problem("a" * 64) is not None
    assert selector_problems({"matchExpressions": [{"key": "k", "operator": "In"}]}, ()) == [
        (("matchExpressions", 0, "operator"), "operator In needs at least one value in 'values'")]


def test_corpus_findings_are_the_known_true_ones():
    config = from_mapping({"select": list(MINE)}, "test")
    inputs = pipeline.load_inputs([str(CORPUS)], config)
    found = {(Path(f.location.path).name, f.code, f.severity.name.lower())
             for f in pipeline.check(inputs, config).findings}
    assert found == {
        # kueue#7259: onFlavors names a flavor the queue does not have (the queue has none).
        ("minimal-cq.yaml", "KQ504", "error"),
        # ...and its second check exists nowhere among the corpus's AdmissionChecks: a warning, since
        # the corpus is not declared complete (the check may be defined elsewhere).
        ("minimal-cq.yaml", "KQ503", "warning"),
        # a ProvisioningRequestConfig behind a controllerName no Kueue controller answers to.
        ("sample-admission-check.yaml", "KQ505", "warning"),
        # cohort preemption policies on a ClusterQueue without a cohort.
        ("single-clusterqueue-setup.yaml", "KQ412", "warning"),
    }


# Junk found by a sweep that writes every junk value at every field of every rule fixture: each
# made a rule fail (KQ009) instead of leaving the mistake to the schema check.
JUNK_IN_FIXTURES = [
    ("references/KQ505/pass-parameters.yaml", 1, ("spec", "controllerName"), {"x": 1}),
    ("references/KQ505/fail-parameters.yaml", 3, ("spec", "controllerName"), ["a"]),
    ("compute/KQ808/fail.yaml", 1, ("integrations", "frameworks", 0), {"x": 1}),
    ("config/KQ904/fail-resources.yaml", 0, ("resources", "transformations", 0, "input"), ["a"]),
    ("integrations/KQ652/fail-level-missing.yaml", 0, ("spec", "levels", 0, "nodeLabel"), {"x": 1}),
    ("integrations/KQ652/fail-level-missing.yaml", 1, ("spec", "topologyName"), {"x": 1}),
    ("compute/KQ801/fail-group-override.yaml", 0,
     ("advanced_instance_config", "metadata", "labels", "kueue.x-k8s.io/queue-name"), {"x": 1}),
    ("queue/KQ203/fail-cronjob-label-on-cronjob-metadata.yaml", 0, ("spec", "jobTemplate"), ["a"]),
    ("queue/KQ203/fail-cronjob-label-on-cronjob-metadata.yaml", 0, ("spec", "jobTemplate", "metadata"), 7),
    ("input/KQ001/pass-valid.yaml", 0, ("metadata",), ["a"]),
    ("integrations/KQ652/fail-level-missing.yaml", 4, ("metadata",), None),
    ("placement/KQ701/fail-kserve-instance-type-selector.yaml", 3, ("spec",), 7),
    ("resources/KQ320/fail-partial-admission-minimum.yaml", 3, ("spec",), ["a"]),
    ("integrations/KQ641/fail-sync-completions.yaml", 0, ("spec",), 7),
    ("schema/KQ113/pass-supported-rules.yaml", 0,
     ("spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "extra"), 7),
    ("schema/KQ113/pass-supported-rules.yaml", 0,
     ("spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "type"), {"x": 1}),
    ("schema/KQ113/pass-supported-rules.yaml", 0, ("metadata",), ["a"]),
    ("schema/KQ111/fail-custom-crd.yaml", 0,
     ("spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "kind", "type"), None),
]


@pytest.mark.parametrize("fixture, index, path, junk", JUNK_IN_FIXTURES,
                         ids=[f"{case[0]}:{case[1]}:{'.'.join(map(str, case[2]))}" for case in JUNK_IN_FIXTURES])
def test_junk_in_a_field_fails_no_rule(tmp_path, fixture, index, path, junk):
    import yaml
    rules = Path(__file__).resolve().parent.parent / "rules"
    docs = list(yaml.safe_load_all((rules / fixture).read_text(encoding="utf-8")))
    node = docs[index]
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = junk
    target = tmp_path / Path(fixture).name
    target.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    found = run([target])
    assert [f.message for f in found if f.code == "KQ009"] == []
