"""`kueuelint export vap`: the policies are valid admissionregistration.k8s.io/v1 objects, and
evaluated offline they decide every fixture the way the linter does."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from conftest import CORPUS, KUEUE_CRDS, REPO
from test_rule_options import ALLOWED_LABEL_RULE as TEAM_RULE
from kueuelint import pipeline
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs
from kueuelint.config import Config, from_mapping
from kueuelint.cel import text as celtext
from kueuelint.export import kinds, offline
from kueuelint.export.vap import SEPARATOR, ExportSettings, export_rule, export_rules

OPENAPI = REPO / "tests" / "data" / "openapi" / "admissionregistration.k8s.io__v1_openapi.json"
SCHEMA_PREFIX = "io.k8s.api.admissionregistration.v1."
RULES = load_rule_dirs([builtin_rules_dir()])
EXPORTED, REFUSED = export_rules(RULES, Config(), ExportSettings())
EXPORTABLE = {item.rule.meta.code: item for item in EXPORTED}
# A warning rule in CEL over the pod templates of `workloads` (the CEL form KQ701 had before it
# came to need the ResourceFlavors of the run): what export does with pod templates and warnings.
TEMPLATE_RULES = REPO / "tests" / "data" / "export-rules"
TEMPLATE = export_rule(load_rule_dirs([TEMPLATE_RULES])["KQ960"], Config(), ExportSettings())


# --- the objects are what the API server accepts ----------------------------------------------------

def strict(node):
    """The OpenAPI schemas with unknown fields refused, so a misspelt field fails validation."""
    if isinstance(node, dict):
        node = {key: strict(value) for key, value in node.items()}
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [strict(item) for item in node]
    return node


@pytest.fixture(scope="module")
def validator():
    import jsonschema

    document = json.loads(OPENAPI.read_text(encoding="utf-8"))
    schemas = strict(document["components"]["schemas"])

    def validate(obj: dict) -> list[str]:
        name = SCHEMA_PREFIX + obj["kind"]
        schema = {"$ref": f"#/components/schemas/{name}", "components": {"schemas": schemas}}
        checker = jsonschema.Draft202012Validator(schema)
        return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in checker.iter_errors(obj)]

    return validate


def test_export_is_valid_against_the_openapi_schema_and_kueuelint(cli, tmp_path, validator):
    out = tmp_path / "policies.yaml"
    (tmp_path / ".kueuelint.yaml").write_text(f"rule-dirs: [{TEMPLATE_RULES}]\n")
    proc = cli("export", "vap", "--config", str(tmp_path / ".kueuelint.yaml"), "--select", "KQ960,KQ702",
               "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    documents = list(yaml.safe_load_all(out.read_text()))
    assert [d["kind"] for d in documents] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    assert documents[0]["metadata"]["name"] == "kueuelint-kq960-template-placement"
    for document in documents:
        if document["kind"] != "ConfigMap":
            assert validator(document) == []
    assert "KQ702 not exported: it matches selector values" in proc.stderr
    checked = cli("check", str(out))
    assert checked.returncode == 0, checked.stdout
    assert "All checks passed" in checked.stdout


def test_every_exported_object_is_valid(validator):
    assert {"KQ201", "KQ204"} <= set(EXPORTABLE)
    for item in EXPORTED + [TEMPLATE]:
        for obj in item.objects:
            if obj["kind"] != "ConfigMap":
                assert validator(obj) == [], item.rule.meta.code


def test_a_misspelt_field_is_caught_by_the_schema_check(validator):
    policy = copy.deepcopy(TEMPLATE.policy)
    policy["spec"]["validations"][0]["fieldPath"] = "spec"   # VAP v1 validations have no fieldPath
    assert any("fieldPath" in problem for problem in validator(policy))


def test_severity_sets_the_actions_and_failure_policy():
    kq201, kq701 = EXPORTABLE["KQ201"], TEMPLATE
    assert kq201.objects[1]["spec"]["validationActions"] == ["Deny"]
    assert kq201.policy["spec"]["failurePolicy"] == "Fail"
    assert kq701.objects[1]["spec"]["validationActions"] == ["Warn"]
    assert kq701.policy["spec"]["failurePolicy"] == "Ignore"
    audit = export_rule(RULES["KQ201"], Config(), ExportSettings(audit=True))
    assert audit.objects[1]["spec"]["validationActions"] == ["Audit"]
    template_rule = TEMPLATE.rule
    deny = export_rule(template_rule, Config(), ExportSettings(actions={"warning": ["Deny"]}))
    assert deny.objects[1]["spec"]["validationActions"] == ["Deny"]
    escalated = export_rule(template_rule, from_mapping({"severity": {"KQ960": "error"}}), ExportSettings())
    assert escalated.objects[1]["spec"]["validationActions"] == ["Deny"]


def test_a_rule_with_findings_of_two_severities_gets_a_policy_for_each():
    item = EXPORTABLE["KQ204"]
    names = [p["metadata"]["name"] for p in item.policies]
    assert names == ["kueuelint-kq204-queue-name-invalid", "kueuelint-kq204-queue-name-invalid-warning"]
    assert [b["spec"]["validationActions"] for b in item.objects if b["kind"].endswith("Binding")] == \
        [["Deny"], ["Warn"]]
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "namespace": "n", "labels": {"kueue.x-k8s.io/queue-name": ""}}}
    assert [offline.evaluate(p, job).denied for p in item.policies] == [False, True]
    job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "Team_A"
    assert [offline.evaluate(p, job).denied for p in item.policies] == [True, False]


def test_kinds_without_reachable_pod_templates_are_left_out_with_the_reason():
    left_out = TEMPLATE.left_out
    assert "serving.kserve.io/InferenceService" in left_out and "ray.io/RayJob" in left_out
    rules = [r["resources"][0] for r in TEMPLATE.policy["spec"]["matchConstraints"]["resourceRules"]]
    assert "jobs" in rules and "jobsets" in rules and "inferenceservices" not in rules
    # KQ201 and KQ204 read only the object, so their policies match the kinds whose pods
    # Kueue or an operator builds, too
    assert EXPORTABLE["KQ204"].left_out == {}


def test_rules_that_need_other_objects_are_refused_with_the_reason(tmp_path):
    rule = tmp_path / "KQ951-uses-queue.yaml"
    rule.write_text("code: KQ951\nname: uses-queue\nkinds: [batch/Job]\nmessage: m\n"
                    "cel: {validations: [{expression: \"clusterQueue == null || size(workloads) > 0\"}]}\n")
    derived = tmp_path / "KQ952-uses-requests.yaml"
    derived.write_text("code: KQ952\nname: uses-requests\nkinds: [batch/Job]\nmessage: m\n"
                       "cel: {validations: [{expression: \"workloads.all(w, w.podSets.all(p, "
                       "!('cpu' in p.requests)))\"}]}\n")
    typed = tmp_path / "KQ953-map-test.yaml"
    typed.write_text("code: KQ953\nname: map-test\nkinds: [batch/Job]\nmessage: m\n"
                     "cel: {validations: [{expression: \"type(object.spec) != map || has(object.spec.x)\"}]}\n")
    rules = load_rule_dirs([tmp_path])
    _, refused = export_rules(rules, Config(), ExportSettings())
    assert refused["KQ953"].startswith("compares type(object...) with map")
    assert refused["KQ951"] == "reads clusterQueue: objects other than the one admitted"
    assert refused["KQ952"].startswith("reads what kueuelint derives for workloads (requests)")
    assert REFUSED["KQ703"].startswith("written in Python")


def test_placement_rules_that_need_the_requests_say_why_they_are_not_exported():
    for code in ("KQ702", "KQ704"):
        assert "CEL over one object cannot work out" in REFUSED[code], code
        assert "deny jobs Kueue admits" in REFUSED[code], code


def test_cli_usage_errors_exit_2(cli):
    assert cli("export", "vap", "--select", "KQ79").returncode == 2
    bad = cli("export", "vap", "--action", "warning=Block")
    assert bad.returncode == 2 and "--action 'warning=Block'" in bad.stderr
    assert cli("export", "vap", "--action", "KQ201=Deny,Warn").returncode == 2
    assert cli("export", "webhook").returncode == 2


def test_nothing_exportable_exits_1_and_says_why(cli):
    proc = cli("export", "vap", "--select", "KQ702")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "KQ702 not exported: it matches selector values" in proc.stderr


def test_list_names_every_selected_rule(cli):
    listing = cli("export", "vap", "--list", "--select", "KQ2,KQ7").stdout.splitlines()
    assert any(line.startswith("KQ201  exported") for line in listing)
    assert any(line.startswith("KQ701  exported") for line in listing)
    assert any(line.startswith("KQ702  not exported") for line in listing)
    assert len(listing) == sum(1 for code in RULES if code.startswith(("KQ2", "KQ7")))


# --- the same verdicts as the linter ----------------------------------------------------------------

def api_server_view(obj) -> dict:
    """The object as validating admission sees it: namespace and generated name filled in."""
    data = copy.deepcopy(obj.data)
    metadata = data.setdefault("metadata", {})
    if obj.namespace and not metadata.get("namespace"):
        metadata["namespace"] = obj.namespace
    if not metadata.get("name"):
        metadata["name"] = obj.name
    return data


def linter_and_policy(item, paths: list[Path], rules=RULES):
    """(object, linter messages, policy messages) for every object the policy matches; the
    policy is exported again with the facts of this run when it takes some."""
    config = Config(select=(item.rule.meta.code,))
    inputs = pipeline.load_inputs([str(p) for p in paths], config)
    if item.rule.vap:
        item = export_rule(item.rule, Config(), ExportSettings(), [scope.inventory for scope in inputs.scopes])
    result = pipeline.check(inputs, config, rules)
    found: dict[tuple, set[str]] = {}
    for finding in result.findings:
        if finding.code == item.rule.meta.code:
            ref = finding.obj
            key = (finding.location.path, ref.kind, ref.namespace, ref.name)
            found.setdefault(key, set()).add(finding.message)
    params = next((o for o in item.objects if o["kind"] == "ConfigMap"), None)
    for entry in inputs.files:
        for obj in entry.objects:
            decisions = [offline.evaluate(policy, api_server_view(obj), params) for policy in item.policies]
            if any(decision.matched for decision in decisions):
                ref = obj.ref()
                key = (obj.path, ref.kind, ref.namespace, ref.name)
                yield obj, found.get(key, set()), set().union(*map(_messages, decisions))


def _messages(decision) -> set[str]:
    """The policy's messages, one per violation, without the path VAP puts at the end."""
    return {part.rpartition(" (at ")[0] or part
            for message in decision.messages for part in message.split(SEPARATOR)}


@pytest.mark.parametrize("code", sorted(EXPORTABLE))
def test_policy_decides_every_fixture_like_the_linter(code):
    item = EXPORTABLE[code]
    fixtures = sorted(item.rule.fixtures_dir.glob("*.yaml"))
    compared = denied = 0
    for obj, linted, policy in linter_and_policy(item, fixtures):
        assert policy == linted, obj.display()
        compared += 1
        denied += bool(policy)
    assert compared >= 2 and denied >= 1   # a test that always passes proves nothing


def _pod_spec(selected: bool) -> dict:
    spec = {"containers": [{"name": "c", "image": "i"}]}
    return {**spec, "nodeSelector": {"pool": "gpu"}} if selected else spec


def test_the_pod_template_policy_decides_like_the_linter(tmp_path):
    rules = {**RULES, **load_rule_dirs([TEMPLATE_RULES])}
    meta = {"namespace": "ns", "labels": {"kueue.x-k8s.io/queue-name": "q"}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": _pod_spec(True)}}}
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "spec": {"replicatedJobs": [
        {"name": name, "template": {"spec": {"template": {"spec": _pod_spec(name == "w")}}}}
        for name in ("l", "w")]}}
    isvc = {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "spec": {"predictor": _pod_spec(True)}}
    documents = [{**job, "metadata": {"name": "on", **meta}},
                 {**job, "metadata": {"name": "off", **meta}, "spec": {"template": {"spec": _pod_spec(False)}}},
                 {**jobset, "metadata": {"name": "set", **meta}}, {**isvc, "metadata": {"name": "isvc", **meta}}]
    path = tmp_path / "workloads.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    decided = {}
    for obj, linted, policy in linter_and_policy(TEMPLATE, [path], rules):
        assert policy == linted, obj.display()
        decided[obj.name] = policy
    assert set(decided) == {"on", "off", "set"}   # the InferenceService is left out of the match
    assert decided["off"] == set() and len(decided["on"]) == 1
    assert [message.split(" sets ")[0] for message in decided["set"]] == ["JobSet ns/set: pod set w"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")
@pytest.mark.parametrize("code", sorted(EXPORTABLE))
def test_policy_decides_the_corpus_like_the_linter(code):
    item = EXPORTABLE[code]
    paths = sorted(CORPUS.rglob("*.yaml"))
    compared = 0
    for obj, linted, policy in linter_and_policy(item, paths):
        assert policy == linted, f"{obj.display()} in {obj.path}"
        compared += 1
    assert compared >= 50


# --- the pod templates CEL reaches are the ones kueuelint derives --------------------------------------

def _fixture_objects():
    paths = [p for p in sorted(builtin_rules_dir().rglob("*.yaml")) if p.parent.name.startswith("KQ")]
    inputs = pipeline.load_inputs([str(p) for p in paths], Config())
    return [obj for entry in inputs.files for obj in entry.objects]


def well_formed(data: dict) -> bool:
    """Metadata the API server accepts (fixtures of KQ202 and others break it on purpose)."""
    metadata = data.get("metadata")
    return isinstance(metadata, dict) and all(
        isinstance(metadata.get(key, {}), dict) and
        all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.get(key, {}).items())
        for key in ("labels", "annotations"))


def derived_view(obj) -> list:
    from kueuelint.derive import workloads_of
    from kueuelint.index.inventory import Inventory

    seen = []
    workloads = workloads_of(obj, Inventory([obj]))
    if any(workload.problems for workload in workloads):
        return None   # malformed: other rules report it, and the API server refuses it
    for workload in workloads:
        pod_sets = sorted((ps.name, json.dumps(ps.template.get("spec"), sort_keys=True, default=str))
                          for ps in workload.pod_sets if isinstance(ps.template.get("spec"), dict))
        entry = (workload.queue_name or "", pod_sets)
        if entry not in seen:   # LeaderWorkerSet groups are copies of one workload
            seen.append(entry)
    return seen


def policy_view(obj) -> list:
    expression = kinds.workloads_expression(obj.key)
    values = offline._activation_values(api_server_view(obj), None)
    engine = offline._default_engine()
    found = offline._run(engine, expression, values)
    return [(w["queueName"], sorted((ps["name"], json.dumps(ps["spec"], sort_keys=True, default=str))
                                    for ps in w["podSets"])) for w in found]


def test_pod_set_table_matches_the_derived_workloads_on_every_fixture():
    checked = set()
    for obj in _fixture_objects():
        if kinds.workloads_expression(obj.key) is None or not isinstance(obj.data.get("spec"), dict):
            continue
        expected = derived_view(obj) if well_formed(obj.data) else None
        if expected is None:
            continue
        assert policy_view(obj) == expected, f"{obj.display()} in {obj.path}"
        checked.add(obj.key)
    assert {"batch/Job", "jobset.x-k8s.io/JobSet", "kubeflow.org/PyTorchJob",
            "leaderworkerset.x-k8s.io/LeaderWorkerSet", "apps/Deployment"} <= checked


def test_resource_plurals_match_kueue_crds():
    names = [yaml.safe_load(p.read_text())["spec"] for p in KUEUE_CRDS.glob("kueue.x-k8s.io_*.yaml")]
    assert len(names) >= 8
    for spec in names:
        assert kinds.plural(spec["names"]["kind"]) == spec["names"]["plural"]


# --- options become a ConfigMap the policy reads -----------------------------------------------------

JOBS = [("a", {"team": "ml"}), ("b", {"team": "web"}), ("c", {}), ("d", {"team": "ml", "x": "1", "y": "2"})]


@pytest.mark.parametrize("options", [{}, {"teams": ["ml", "web"], "strict": True, "limit": 5}])
def test_options_reach_the_policy_through_the_configmap(tmp_path, options):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "KQ950-allowed-team.yaml").write_text(TEAM_RULE)
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text("\n---\n".join(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job",
                                                   "metadata": {"name": n, "namespace": "ns", "labels": labels}})
                                   for n, labels in JOBS))
    config = from_mapping({"select": ["KQ950"], "options": {"KQ950": options} if options else {}})
    rules = {**RULES, **load_rule_dirs([tmp_path / "rules"])}
    item = export_rule(rules["KQ950"], config, ExportSettings(params_namespace="policies"))
    configmap = item.objects[2]
    assert configmap["metadata"]["namespace"] == "policies"
    assert item.objects[1]["spec"]["paramRef"] == {"name": "kueuelint-kq950-allowed-team",
                                                   "namespace": "policies", "parameterNotFoundAction": "Deny"}
    assert all(isinstance(value, str) for value in configmap["data"].values())
    result = pipeline.check(pipeline.load_inputs([str(jobs)], config), config, rules)
    linted = {f.obj.name: f.message for f in result.findings}
    for name, labels in JOBS:
        data = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "ns",
                                                                      "labels": labels}}
        decision = offline.evaluate(item.policy, data, configmap)
        assert _messages(decision) == ({linted[name]} if name in linted else set()), name
    assert set(linted) == ({"c"} if options else {"b", "d"})


def test_an_option_without_a_configmap_form_is_refused(tmp_path):
    rule = TEAM_RULE.replace("limit: {type: integer}", "limit: {type: object}").replace("limit: 2", "limit: {}")
    (tmp_path / "KQ950-allowed-team.yaml").write_text(rule)
    _, refused = export_rules(load_rule_dirs([tmp_path]), Config(), ExportSettings())
    assert refused["KQ950"].startswith("option limit (object, {}) has no ConfigMap form")


# --- rewriting CEL text -----------------------------------------------------------------------------------

def test_binds_expand_and_renames_leave_strings_and_fields_alone():
    source = "cel.bind(x, object.spec, cel.bind(y, x.workloads, 'workloads x' + y + x.y))"
    assert celtext.expand_binds(source) == \
        "[object.spec].map(x, [x.workloads].map(y, 'workloads x' + y + x.y)[0])[0]"
    renamed = celtext.rename("workloads.map(w, w.workloads) + ['workloads']", {"workloads": "variables.workloads"})
    assert renamed == "variables.workloads.map(w, w.workloads) + ['workloads']"
    with pytest.raises(celtext.CelTextError):
        celtext.expand_binds("cel.bind(x, 1)")


def test_expanded_binds_mean_the_same():
    from kueuelint.cel.engine import get_engine

    engine = get_engine()
    source = "cel.bind(a, [3, 1, 2], cel.bind(b, a.filter(v, v > 1), size(b) * 10 + b[0]))"
    values = engine.activation({})
    assert engine.compile(source, []).evaluate(values) == 23
    assert engine.compile(celtext.expand_binds(source), []).evaluate(values) == 23


# --- KQ701: the queues' flavors as parameters ---------------------------------------------------------

KQ701_FIXTURES = RULES["KQ701"].fixtures_dir
CONFIGMAP_KEY = r"^[-._a-zA-Z0-9]+$"


def exported_with_run(code: str, paths: list[Path]):
    run = pipeline.load_inputs([str(p) for p in paths], Config())
    return export_rule(RULES[code], Config(), ExportSettings(), [scope.inventory for scope in run.scopes])


def test_kq701_takes_each_queues_flavor_label_keys_as_params():
    item = exported_with_run("KQ701", [KQ701_FIXTURES / "fail-jobset-selector-on-pool-key.yaml"])
    policy, binding, configmap = item.objects
    assert policy["spec"]["paramKind"] == {"apiVersion": "v1", "kind": "ConfigMap"}
    assert binding["spec"]["paramRef"]["parameterNotFoundAction"] == "Allow"   # no facts: no verdict
    assert configmap["data"] == {"ml_research.clusterQueue": "research-cq",
                                 "ml_research.nodeLabelKeys": "cloud.google.com/gke-accelerator"}
    import re
    assert all(re.match(CONFIGMAP_KEY, key) for key in configmap["data"])
    assert item.note == ""


def _job(name: str, namespace: str | None, selector: dict, requests: dict) -> dict:
    metadata = {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "q"}}
    if namespace:
        metadata["namespace"] = namespace
    container = {"name": "c", "image": "i", "resources": {"requests": requests}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata,
            "spec": {"template": {"spec": {"nodeSelector": selector, "containers": [container]}}}}


def _queues(namespace: str | None, flavors: list[str]) -> list[dict]:
    """A LocalQueue q and ClusterQueue cq with a CPU group on flavor plain (no labels) and a GPU
    group on flavor gpu (pool=gpu); ``flavors`` are the ResourceFlavors that exist."""
    kueue = "kueue.x-k8s.io/v1beta2"
    groups = [{"coveredResources": ["cpu"], "flavors": [{"name": "plain", "resources": [
                  {"name": "cpu", "nominalQuota": 8}]}]},
              {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "gpu", "resources": [
                  {"name": "nvidia.com/gpu", "nominalQuota": 8}]}]}]
    labels = {"plain": {}, "gpu": {"pool": "gpu"}}
    found = [{"apiVersion": kueue, "kind": "ResourceFlavor", "metadata": {"name": name},
              "spec": {"nodeLabels": labels[name]}} for name in flavors]
    lq_meta = {"name": "q", **({"namespace": namespace} if namespace else {})}
    return found + [{"apiVersion": kueue, "kind": "ClusterQueue", "metadata": {"name": "cq"},
                     "spec": {"namespaceSelector": {}, "resourceGroups": groups}},
                    {"apiVersion": kueue, "kind": "LocalQueue", "metadata": lq_meta, "spec": {"clusterQueue": "cq"}}]


def test_kq701_policy_says_less_where_the_flavors_depend_on_the_requests(tmp_path):
    """The linter looks only at the groups a pod set requests from; the policy, which cannot
    work out requests, at every flavor of the ClusterQueue: it may stay silent where the linter
    warns, never the other way round."""
    path = tmp_path / "run.yaml"
    jobs = [_job("cpu-only", "ns", {"pool": "gpu"}, {"cpu": "1"}),       # key only the GPU group defines
            _job("gpu", "ns", {"pool": "gpu"}, {"nvidia.com/gpu": "1"}),
            _job("elsewhere", "ns", {"zone": "a"}, {"cpu": "1"})]        # a key no flavor defines
    path.write_text(yaml.safe_dump_all(_queues("ns", ["plain", "gpu"]) + jobs))
    decided = {obj.name: (linted, policy) for obj, linted, policy
               in linter_and_policy(EXPORTABLE["KQ701"], [path])}
    assert set(decided) == {"cpu-only", "gpu", "elsewhere"}
    assert decided["cpu-only"][0] and not decided["cpu-only"][1]
    assert decided["gpu"] == (set(), set())
    assert decided["elsewhere"][0] == decided["elsewhere"][1] and len(decided["elsewhere"][1]) == 1
    assert all(policy <= linted for linted, policy in decided.values())


def test_queues_the_run_cannot_tell_about_get_no_params(tmp_path):
    from kueuelint.export.facts import facts_data
    from kueuelint.index.inventory import Inventory

    def facts(documents: list[dict]) -> dict:
        path = tmp_path / "run.yaml"
        path.write_text(yaml.safe_dump_all(documents))
        run = pipeline.load_inputs([str(path)], Config())
        return facts_data(["flavor-node-label-keys"], [run.inventory])

    assert facts(_queues("ns", ["plain", "gpu"])) == {"ns_q.clusterQueue": "cq", "ns_q.nodeLabelKeys": "pool"}
    assert facts(_queues("ns", ["plain"])) == {}      # flavor gpu unknown
    assert facts(_queues(None, ["plain", "gpu"])) == {}   # the queue's namespace is not known
    run = pipeline.load_inputs([], Config())
    assert facts_data(["flavor-node-label-keys"], [run.inventory, Inventory()]) == {}
    one = tmp_path / "one.yaml"
    other = tmp_path / "other.yaml"
    one.write_text(yaml.safe_dump_all(_queues("ns", ["plain", "gpu"])))
    flat = _queues("ns", ["plain", "gpu"])
    flat[1]["spec"]["nodeLabels"] = {"pool": "gpu", "zone": "a"}
    other.write_text(yaml.safe_dump_all(flat))
    scopes = [pipeline.load_inputs([str(p)], Config()).inventory for p in (one, other)]
    assert facts_data(["flavor-node-label-keys"], scopes) == {}   # two clusters disagree on ns/q
    assert facts_data(["flavor-node-label-keys"], scopes[:1]) != {}


def test_a_params_configmap_without_data_judges_nothing():
    item = exported_with_run("KQ701", [KQ701_FIXTURES / "fail-tolerations-and-affinity.yaml"])
    run = pipeline.load_inputs([str(KQ701_FIXTURES / "fail-tolerations-and-affinity.yaml")], Config())
    job = next(obj for obj in run.objects if obj.kind == "Job")
    configmap = item.objects[2]
    assert offline.evaluate(item.policy, api_server_view(job), configmap).denied
    empty = {key: value for key, value in configmap.items() if key != "data"}
    assert not offline.evaluate(item.policy, api_server_view(job), empty).denied


def test_export_kq7_with_the_queues_as_context_writes_valid_policies(cli, tmp_path, validator):
    out = tmp_path / "policies.yaml"
    fixture = KQ701_FIXTURES / "fail-jobset-selector-on-pool-key.yaml"
    proc = cli("export", "vap", "--select", "KQ7", "--context", str(fixture), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    documents = list(yaml.safe_load_all(out.read_text()))
    assert [d["kind"] for d in documents] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                                              "ConfigMap"]
    assert all(validator(d) == [] for d in documents[:2])
    assert documents[2]["data"]["ml_research.clusterQueue"] == "research-cq"
    for code in ("KQ702", "KQ703", "KQ704"):
        assert f"{code} not exported" in proc.stderr
    checked = cli("check", str(out))
    assert checked.returncode == 0 and "All checks passed" in checked.stdout, checked.stdout
    bare = cli("export", "vap", "--select", "KQ701", "-o", str(out))
    assert bare.returncode == 0
    assert "KQ701: the inputs hold no LocalQueue" in bare.stderr
    assert list(yaml.safe_load_all(out.read_text()))[2]["data"] == {}
    assert cli("export", "vap", "--select", "KQ701", "--context", str(tmp_path / "missing")).returncode == 2


@pytest.mark.parametrize("vap, problem", [
    ("vap: {violations: '[]', reason: x}", "vap: unknown key 'reason'"),
    ("vap: {facts: [flavor-node-label-keys]}", "vap needs either 'violations'"),
    ("vap: {violations: '[]', not-exportable: x}", "vap needs either 'violations'"),
    ("vap: {violations: '[]', facts: flavor-node-label-keys}", "'facts' a list of names"),
])
def test_a_malformed_vap_form_is_a_rule_file_error(tmp_path, vap, problem):
    from kueuelint.checks.registry import RuleFileError

    (tmp_path / "KQ954-python-rule.yaml").write_text(
        f"code: KQ954\nname: python-rule\nkinds: [batch/Job]\nmessage: m\npython: mod:func\n{vap}\n")
    with pytest.raises(RuleFileError, match=problem):
        load_rule_dirs([tmp_path])


def test_an_unknown_fact_is_not_exported(tmp_path):
    (tmp_path / "KQ955-python-rule.yaml").write_text(
        "code: KQ955\nname: python-rule\nkinds: [batch/Job]\nmessage: m\npython: mod:func\n"
        "vap: {facts: [flavor-labels], violations: \"facts.map(k, k)\"}\n")
    _, refused = export_rules(load_rule_dirs([tmp_path]), Config(), ExportSettings())
    assert refused["KQ955"].startswith("reads facts but names unknown 'flavor-labels'")
