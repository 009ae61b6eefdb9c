from __future__ import annotations

from pathlib import Path

from conftest import CORPUS
from test_compute_support import inventory_of, load
from kueuelint.checks.api import RuleContext
from kueuelint.checks.builtin import compute_configs as anyscale_rules
from kueuelint.checks.builtin import compute_skypilot as sky_rules
from kueuelint.config import Config, from_mapping

COMPUTE_CORPUS = [CORPUS / "anyscale-templates", CORPUS / "skypilot",
                  CORPUS / "anyscale-templates/.claude/skills/template/schemas/compute-config-schema.yaml"]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "compute"


def run(func, objects, target=0, **options):
    ctx = RuleContext(inventory_of(objects), (0, 20), options)
    return list(func(objects[target], ctx))


def cel_rule(code: str):
    """A built-in CEL rule as a function like the Python rules, for ``run``."""
    from kueuelint.cel.engine import get_engine
    from kueuelint.checks.cel_rules import CelRule, activation_values
    from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs

    rule = load_rule_dirs([builtin_rules_dir()])[code]

    def check(obj, ctx):
        engine = get_engine()
        compiled = CelRule(rule, engine, {**rule.options, **ctx.options})
        values = activation_values(obj, ctx, compiled.needs)
        return compiled.evaluate(engine.activation(values), values)

    return check


def check_paths(paths, config: Config | None = None):
    from kueuelint import pipeline

    config = config or Config()
    return pipeline.check(pipeline.load_inputs([str(p) for p in paths], config), config)


def test_corpus_has_no_compute_findings():
    result = check_paths(COMPUTE_CORPUS, from_mapping({"rules": {
        code: {"assume-kueue": True} for code in ("KQ802", "KQ806")}}))
    assert [f for f in result.findings if f.code.startswith("KQ8")] == []
    assert result.objects >= 17


def test_gang_message_names_groups_and_queues():
    objects = load("""
        advanced_instance_config: {metadata: {labels: {kueue.x-k8s.io/queue-name: a}}}
        head_node: {instance_type: 8CPU-32GB}
        worker_nodes:
          - {name: x, instance_type: 4CPU-16GB, min_nodes: 1, max_nodes: 1}
          - name: y
            instance_type: 4CPU-16GB
            min_nodes: 1
            advanced_instance_config: {metadata: {labels: {kueue.x-k8s.io/queue-name: b}}}
          - name: z
            instance_type: 4CPU-16GB
            advanced_instance_config: {metadata: {labels: {kueue.x-k8s.io/queue-name: c}}}
        """)
    found = run(cel_rule("KQ801"), objects)
    assert len(found) == 1
    detail = found[0].args["detail"]
    assert "'y'" in detail and "head -> a" in detail and "z" not in detail.split("(")[0]
    assert found[0].path[:2] == ("worker_nodes", 1)


def test_gang_legacy_spelling():
    objects = load("""
        head_node_type:
          name: head
          instance_type: 8CPU-32GB
          advanced_configurations_json: {metadata: {labels: {kueue.x-k8s.io/queue-name: a}}}
        worker_node_types:
          - {name: w, instance_type: 4CPU-16GB, min_workers: 2, max_workers: 2}
        """)
    found = run(cel_rule("KQ801"), objects)
    assert [v.path for v in found] == [("worker_node_types", 0, "min_nodes")]


def test_resource_minimum_tags_and_kueue_clouds_option():
    objects = load("""
        cloud: k8s
        head_node: {instance_type: 8CPU-32GB}
        advanced_instance_config:
          TagSpecifications:
            - Tags: [{Key: as-feature-cross-group-min-count-GPU, Value: "4"}]
        """)
    assert run(anyscale_rules.no_resource_minimums, objects) == []
    found = run(anyscale_rules.no_resource_minimums, objects, **{"kueue-clouds": ["k8s"]})
    assert [v.path[-1] for v in found] == ["Key"]


def test_inline_job_config_paths_are_prefixed():
    objects = load("""
        name: job
        entrypoint: python x.py
        compute_config:
          worker_nodes:
            - {name: w, instance_type: 4CPU-16GB, min_nodes: 3, max_nodes: 1}
        """)
    found = run(anyscale_rules.max_below_min, objects)
    assert [v.path for v in found] == [("compute_config", "worker_nodes", 0, "max_nodes")]


SKY_CONFIG = """
kubernetes:
  kueue: {local_queue_name: team-a}
  provision_timeout: -1
"""


def test_timeout_judged_with_config_files_of_the_run():
    config = load("kubernetes:\n  pod_config: {}\n", "home/.sky/config.yaml")
    task = load("resources:\n  labels: {kueue.x-k8s.io/queue-name: q}\nrun: x\n", "t.yaml")
    found = run(sky_rules.provision_timeout_short, task + config)
    assert [v.path for v in found] == [("resources", "labels", "kueue.x-k8s.io/queue-name")]
    assert "default of 10 s" in found[0].args["detail"]
    relaxed = load("kubernetes:\n  provision_timeout: -1\n", "home/.sky/config.yaml")
    task = load("resources:\n  labels: {kueue.x-k8s.io/queue-name: q}\nrun: x\n", "t.yaml")
    assert run(sky_rules.provision_timeout_short, task + relaxed) == []


def test_timeout_option_changes_threshold():
    config = load("kubernetes:\n  kueue: {local_queue_name: q}\n  provision_timeout: 300\n", "c.yaml")
    assert len(run(sky_rules.provision_timeout_short, config)) == 1
    assert run(sky_rules.provision_timeout_short, config, **{"min-provision-timeout": 120}) == []


def test_context_without_timeout_inherits_global():
    config = load("""
        kubernetes:
          provision_timeout: 900
          context_configs:
            a: {quota: {queue: qa}}
            b: {quota: {queue: qb}, provision_timeout: 5}
        """, "config.yaml")
    found = run(sky_rules.provision_timeout_short, config)
    assert [v.path for v in found] == [("kubernetes", "context_configs", "b", "provision_timeout")]


def test_pod_framework_from_configmap():
    sky = load(SKY_CONFIG, "config.yaml")
    configmap = load("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config, namespace: kueue-system}
        data:
          controller_manager_config.yaml: |
            apiVersion: config.kueue.x-k8s.io/v1beta1
            kind: Configuration
            integrations:
              frameworks: [batch/job]
        """)
    found = run(sky_rules.pod_framework_enabled, sky + configmap)
    assert [v.path for v in found] == [("kubernetes", "kueue", "local_queue_name")]
    assert run(sky_rules.pod_framework_enabled, sky) == []   # no Kueue Configuration in the run


def test_gang_rule_respects_manual_pod_group_labels():
    task = load("""
        num_nodes: 2
        config:
          kubernetes:
            pod_config:
              metadata:
                labels:
                  kueue.x-k8s.io/queue-name: q
                  kueue.x-k8s.io/pod-group-name: my-group
                annotations:
                  kueue.x-k8s.io/pod-group-total-count: "2"
        run: x
        """)
    assert run(sky_rules.gang_needs_queue_option, task) == []


def test_task_placement_only_with_kueue():
    text = "config:\n  kubernetes:\n    pod_config:\n      spec:\n        nodeSelector: {a: b}\nrun: x\n"
    assert run(sky_rules.placement_in_pod_config, load(text)) == []
    queued = load(text + "resources:\n  labels: {kueue.x-k8s.io/queue-name: q}\n")
    assert len(run(sky_rules.placement_in_pod_config, queued)) == 1


def test_fixture_workloads_dry_admit():
    from helpers_admission import admit_json as admit

    snapshot = load((FIXTURES / "snapshot.yaml").read_text(), "snapshot.yaml")
    incoming = (load((FIXTURES / "compute_config.yaml").read_text(), "compute_config.yaml")
                + load((FIXTURES / "sky-task.yaml").read_text(), "sky-task.yaml"))
    _, data = admit(snapshot, incoming)
    results = {entry["workload"]: entry["result"] for entry in data["workloads"]}
    assert results["anyscale/compute_config-min"] == "admitted"
    assert results["default/finetune"] == "admitted"
    too_big = load((FIXTURES / "compute_config_too_big.yaml").read_text(), "compute_config_too_big.yaml")
    _, data = admit(snapshot, too_big)
    assert [entry["result"] for entry in data["workloads"]] != ["admitted"]


def test_inline_config_inherits_the_jobs_cloud():
    objects = load("""
        name: job
        cloud: k8s-prod
        entrypoint: python x.py
        compute_config:
          head_node: {instance_type: 8CPU-32GB}
        """)
    found = run(cel_rule("KQ803"), objects, **{"kueue-clouds": ["k8s-prod"]})
    assert len(found) == 1 and "(k8s-prod)" in found[0].args["detail"]
    assert found[0].path == ("compute_config",)   # the config has no cloud of its own
    assert run(cel_rule("KQ803"), objects, **{"kueue-clouds": ["k8s-dev"]}) == []
