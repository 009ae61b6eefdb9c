"""The Kueue semantics layer: one complete KindSpec per job kind, kind groups of known kinds, and
a rule loader that expands groups and refuses names it does not know."""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest
from conftest import CORPUS

from kueuelint.checks.registry import RuleFileError, load_rule_file
from kueuelint.config import Config
from kueuelint.derive.podsets import derive_workloads, deriver_of
from kueuelint.kueue import groups
from kueuelint.kueue.kinds import COMPUTE_CONFIG_DERIVER, JOB_SPECS, KINDS, SPECS, KindSpec, frameworks
from kueuelint.run import open_run

ROOT = Path(__file__).resolve().parent.parent
DERIVE = ROOT / "kueuelint" / "derive"


# --- every KindSpec is complete -----------------------------------------------------------------

def test_a_kind_spec_without_a_field_cannot_be_made():
    values = SPECS["batch/Job"]._asdict()
    assert not KindSpec._field_defaults
    for field in KindSpec._fields:
        partial = {name: value for name, value in values.items() if name != field}
        with pytest.raises(TypeError):
            KindSpec(**partial)
    assert KindSpec(**values) == SPECS["batch/Job"]


@pytest.mark.parametrize("spec", JOB_SPECS, ids=lambda spec: spec.key)
def test_every_job_kind_spec_says_how_kueue_manages_it(spec: KindSpec):
    assert isinstance(spec.framework, str) and spec.framework, "its integrations.frameworks name"
    assert SPECS.get(spec.managed_as, spec).framework == spec.framework, "managed through its kind's integration"
    assert callable(deriver_of(spec.deriver))
    assert spec.versions and all(isinstance(v, str) and v for v in spec.versions)
    assert spec.pod_templates and spec.label_homes
    assert all(home[-1] == "labels" for home in spec.label_homes)
    assert spec.suspend_path is None or spec.suspend_path[-1] == "suspend"
    assert spec.suspendable or spec.suspend_path is None, "a suspend field makes a kind suspendable"
    assert KINDS[spec.key].role == "workload"


def test_the_configuration_model_accepts_every_framework_a_kind_uses_and_nothing_else():
    from kueuelint.models.config import ConfigurationV1Beta1 as Configuration

    def frameworks_problem(names: list[str]) -> str:
        data = {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
                "integrations": {"frameworks": names}}
        try:
            Configuration.model_validate(data)
        except ValueError as exc:
            return str(exc)
        return ""

    assert frameworks_problem(list(frameworks())) == ""
    assert "batch/jobs" in frameworks_problem(["batch/jobs"])


def test_facts_read_from_kueue_source():
    """A few facts from pkg/controller/jobs (v0.19.2) that rules rely on."""
    assert SPECS["ray.io/RayService"].suspend_path == ("spec", "rayClusterConfig", "suspend")
    assert SPECS["kubeflow.org/MPIJob"].suspend_path == ("spec", "runPolicy", "suspend")
    assert SPECS["batch/CronJob"].framework == "batch/job"
    # ImplicitlyEnabledFrameworkNames: ["pod"] in their integrations' callbacks
    assert {spec.key for spec in JOB_SPECS if spec.pod_integration} == {
        "apps/Deployment", "apps/StatefulSet", "leaderworkerset.x-k8s.io/LeaderWorkerSet"}
    # the pod webhook makes their Workloads; LeaderWorkerSet's reconciler writes its own
    assert {spec.key for spec in JOB_SPECS if spec.workloads_from_pods} == {
        "Pod", "apps/Deployment", "apps/StatefulSet"}
    # the kinds whose webhooks accept the elastic-job annotation (ElasticJobsViaWorkloadSlices)
    assert {spec.key for spec in JOB_SPECS if spec.elastic} == {
        "batch/Job", "ray.io/RayCluster", "ray.io/RayJob", "ray.io/RayService"}
    assert SPECS["jobset.x-k8s.io/JobSet"].pod_set_list == ("spec", "replicatedJobs")
    assert [s.key for s in JOB_SPECS if s.partial_admission] == ["batch/Job", "batch/CronJob"]
    assert {s.key for s in JOB_SPECS if not s.suspendable} == {
        "apps/Deployment", "apps/StatefulSet", "kubeflow.org/Notebook",
        "leaderworkerset.x-k8s.io/LeaderWorkerSet", "serving.kserve.io/InferenceService"}


# --- derivable kinds and KindSpecs match ---------------------------------------------------------

def _derivers_in_derive() -> set[str]:
    """``module:function`` of every deriver defined in kueuelint/derive (a ``_derive_*`` function
    taking a _Derivation, or the compute-config entry)."""
    found = {COMPUTE_CONFIG_DERIVER}
    for path in DERIVE.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("_derive_") \
                    and node.args.args and ast.unparse(node.args.args[0].annotation or ast.Constant("")) == "_Derivation":
                found.add(f"{path.stem}:{node.name}")
    return found


def test_every_deriver_in_derive_belongs_to_a_kind_spec_and_back():
    named = {spec.deriver for spec in SPECS.values()}
    assert _derivers_in_derive() - named == set(), "a deriver no KindSpec names: add the kind's spec"
    assert named - _derivers_in_derive() == set(), "a KindSpec names a deriver derive/ lacks"


def test_every_workload_kind_has_a_spec_and_back():
    workload_kinds = {key for key, info in KINDS.items() if info.role == "workload"}
    assert workload_kinds ^ {key for key in SPECS if key != "kueue.x-k8s.io/Workload"} == set()


def _objects_of(paths):
    for path in paths:
        run = open_run([str(path)], Config())
        for obj in run.objects:
            if obj.key in SPECS:
                yield obj, run.inventory


def _kinds_off_their_template_paths(objects) -> tuple[set[str], list]:
    """(kinds seen with pod sets, pod sets whose template is not where the kind's spec says)."""
    seen, stray = set(), []
    for obj, inventory in objects:
        patterns = SPECS[obj.key].pod_templates
        for workload in derive_workloads(obj, inventory):
            for pod_set in workload.pod_sets:
                dotted = ".".join(str(part) for part in pod_set.template_path)
                seen.add(obj.key)
                if not any(fnmatch.fnmatchcase(dotted, pattern) for pattern in patterns):
                    stray.append((obj.key, dotted, patterns))
    return seen, stray


def test_derived_pod_templates_sit_where_the_spec_says():
    paths = sorted({*ROOT.glob("rules/**/KQ*/**/*.yaml"), *ROOT.glob("fixtures/examples/**/*.yaml")})
    seen, stray = _kinds_off_their_template_paths(_objects_of(paths))
    assert stray == []
    assert len(seen) >= 10, "the fixtures exercise too few kinds for this check to mean anything"


def test_corpus_pod_templates_sit_where_the_spec_says():
    """The corpus of public manifests (tests/data/corpus) holds kinds the fixtures lack."""
    seen, stray = _kinds_off_their_template_paths(_objects_of([CORPUS]))
    assert stray == []
    assert len(seen) >= 15


# --- kind groups ---------------------------------------------------------------------------------

def test_every_group_names_known_kinds():
    assert groups.unknown_members(groups.GROUPS) == {}
    assert all(members for members in groups.GROUPS.values())


def test_a_group_naming_an_unknown_kind_is_found():
    bad = {"typo": ("batch/Job", "batch/Jobs")}
    assert groups.unknown_members(bad) == {"typo": ["batch/Jobs"]}


def test_groups_expand_in_table_order_and_mix_with_kinds():
    assert groups.expand(["workloads"]) == tuple(spec.key for spec in JOB_SPECS)
    assert len(groups.expand(["workloads"])) == 22
    mixed = groups.expand(["Pod", "ray-clusters", "ray.io/RayJob", "kueue.x-k8s.io/*", "*"])
    assert mixed == ("Pod", "ray.io/RayJob", "ray.io/RayCluster", "ray.io/RayService", "kueue.x-k8s.io/*", "*")
    assert groups.expand(["kubeflow.org/MXJob"]) == ("kubeflow.org/MXJob",)   # retired: rules may name it
    assert "batch/CronJob" not in groups.GROUPS["integration-kinds"]
    assert "batch/CronJob" in groups.GROUPS["workloads"]


@pytest.mark.parametrize("name", ["workload", "batch/Jobs", "Jobs", "example.com/*"])
def test_an_unknown_name_does_not_expand(name):
    with pytest.raises(groups.UnknownKind, match=re.escape(repr(name))):
        groups.expand(["Pod", name])


# --- rule files name groups ----------------------------------------------------------------------

RULE = "code: KQ990\nname: grouped\nseverity: warning\nsummary: s\nkinds: {kinds}\nmessage: m\n" \
       "implementation: cel\ncel:\n  validations:\n    - expression: 'true'\n"


def test_a_rule_file_naming_a_group_applies_to_its_kinds(tmp_path):
    path = tmp_path / "KQ990-grouped.yaml"
    path.write_text(RULE.format(kinds="[non-suspendable-workloads, LimitRange]"))
    rule = load_rule_file(path)
    assert rule.meta.kinds[-1] == "LimitRange"
    assert rule.applies_to("kubeflow.org/Notebook") and rule.applies_to("LimitRange")
    assert not rule.applies_to("batch/Job")


@pytest.mark.parametrize("kinds", ["[workload]", "[batch/Job, apps/Deployments]"])
def test_a_rule_file_naming_an_unknown_kind_or_group_fails_to_load(tmp_path, kinds):
    path = tmp_path / "KQ990-grouped.yaml"
    path.write_text(RULE.format(kinds=kinds))
    with pytest.raises(RuleFileError, match=f"{path}: kinds: unknown kind or kind group"):
        load_rule_file(path)


# --- groups that rule files name carry a meaning, not a list ------------------------------------

def _group(name: str) -> set[str]:
    return set(groups.GROUPS[name])


def _rule_kinds(code: str) -> tuple[str, ...]:
    path = next((ROOT / "rules").glob(f"*/{code}-*.yaml"))
    return load_rule_file(path).meta.kinds


@pytest.mark.parametrize("code, group", [("KQ620", "pod-set-count-varies"), ("KQ621", "named-pod-set-kinds"),
                                         ("KQ650", "tas-annotated-kinds"), ("KQ651", "tas-annotated-kinds"),
                                         ("KQ652", "tas-annotated-kinds"), ("KQ211", "suspended-by-kueue")])
def test_rules_on_a_kind_property_name_its_group(code, group):
    assert _rule_kinds(code) == groups.GROUPS[group]


def test_the_kinds_kueue_suspends_at_creation_are_those_its_webhooks_suspend():
    # Kueue v0.19.2: webhooks calling jobframework.ApplyDefaultForSuspend (job, jobset, mpijob,
    # raycluster, rayjob, rayservice, sparkapplication), kinds on jobframework.BaseWebhook (the five
    # Kubeflow training jobs, AppWrapper), TrainJob's own webhook; a CronJob through its Jobs.
    assert _group("suspended-by-kueue") == {
        "batch/Job", "batch/CronJob", "jobset.x-k8s.io/JobSet", "kubeflow.org/MPIJob",
        "ray.io/RayCluster", "ray.io/RayJob", "ray.io/RayService", "sparkoperator.k8s.io/SparkApplication",
        "kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/XGBoostJob", "kubeflow.org/PaddleJob",
        "kubeflow.org/JAXJob", "workload.codeflare.dev/AppWrapper", "trainer.kubeflow.org/TrainJob"}
    # The rest have no suspend field Kueue sets: their pods are gated, or they cannot be suspended.
    rest = {spec.key for spec in JOB_SPECS} - _group("suspended-by-kueue")
    assert rest == {"Pod", "apps/Deployment", "apps/StatefulSet", "kubeflow.org/Notebook",
                    "leaderworkerset.x-k8s.io/LeaderWorkerSet", "serving.kserve.io/InferenceService",
                    "tekton.dev/PipelineRun"}
    assert SPECS["sparkoperator.k8s.io/SparkApplication"].suspend_path == ("spec", "suspend")


def test_kinds_outside_the_varying_pod_set_group_have_a_fixed_count_of_templates():
    # A kind Kueue manages as itself whose templates sit at fixed paths makes one pod set per path.
    fixed = [spec for spec in JOB_SPECS if spec.key not in _group("pod-set-count-varies")
             and spec.managed_as == spec.key]
    assert fixed and all("*" not in path for spec in fixed for path in spec.pod_templates)
    assert all(spec.pod_set_list is None for spec in fixed)


def test_kinds_whose_pod_sets_the_user_names_also_choose_how_many():
    named = _group("named-pod-set-kinds")
    assert named <= _group("pod-set-count-varies")
    assert _group("ray-clusters") <= named
    assert {"batch/Job", "apps/Deployment", "workload.codeflare.dev/AppWrapper"}.isdisjoint(named)
    assert all(SPECS[key].framework and SPECS[key].managed_as == key for key in named)


def test_tas_annotations_are_read_only_where_the_user_writes_the_kinds_own_templates():
    from kueuelint.checks.builtin.tas import SKIPPED
    tas_kinds = _group("tas-annotated-kinds")
    assert tas_kinds.isdisjoint(SKIPPED)
    assert all(not SPECS[key].pods_queue_alone for key in tas_kinds)
    assert {"batch/Job", "Pod", "leaderworkerset.x-k8s.io/LeaderWorkerSet"} <= tas_kinds
    # Every job kind left out is synthesized by kueuelint or has its pods queued one by one.
    left_out = {spec.key for spec in JOB_SPECS} - tas_kinds
    assert left_out and all(not SPECS[key].user_templates or SPECS[key].pods_queue_alone for key in left_out)
