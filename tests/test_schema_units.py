"""Unit tests of the CRD judge's Kubernetes semantics and of the built-in judge's messages."""

from __future__ import annotations

import copy

import pytest

from kueuelint.schema import builtin, crd, structural
from kueuelint.schema.crd import CrdIndex
from kueuelint.schema.issues import CEL_RULE, CEL_UNSUPPORTED, did_you_mean

ENGINES = ("cel-expr-python", "cel-python")


def make_crd(spec_schema: dict, *, group="example.com", kind="Gadget", versions=("v1",)):
    schema = {"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"}, "spec": spec_schema}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{kind.lower()}s.{group}"},
            "spec": {"group": group, "names": {"kind": kind, "plural": f"{kind.lower()}s"},
                     "scope": "Namespaced",
                     "versions": [{"name": v, "served": True, "storage": i == 0,
                                   "schema": {"openAPIV3Schema": copy.deepcopy(schema)}}
                                  for i, v in enumerate(versions)]}}


def judge(spec_schema: dict, spec, *, old=crd.MISSING, engine=None):
    index = CrdIndex()
    index.add(make_crd(spec_schema))
    obj = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
           "spec": spec}
    old_obj = crd.MISSING if old is crd.MISSING else {**obj, "spec": old}
    issues, runner = crd.validate(index.get("example.com", "Gadget", "v1"), obj, old_obj,
                                  engine=engine)
    return issues, runner


@pytest.fixture(params=ENGINES)
def engine(request):
    from kueuelint.cel.engine import available_engines

    if request.param not in available_engines():
        pytest.skip(f"{request.param} not installed")
    return request.param


def test_defaults_are_applied_to_a_copy_top_down_and_nulls_pruned():
    schema = {"type": "object", "properties": {
        "preemption": {"type": "object", "default": {}, "properties": {
            "policy": {"type": "string", "default": "Never"}}},
        "weight": {"type": "integer", "default": 1}}}
    value = {"weight": None}
    defaulted = structural.apply_defaults(schema, value)
    assert defaulted == {"preemption": {"policy": "Never"}, "weight": 1}
    assert value == {"weight": None}


def test_re2_leading_flags_after_anchor_are_moved_first():
    assert structural.python_pattern("^(?i)[a-z]+$") == "(?i)^[a-z]+$"
    assert structural.python_pattern("^[a-z]+$") == "^[a-z]+$"


@pytest.mark.parametrize("value,ok", [(3, True), ("3Gi", True), (1.5, False), ([1], False)])
def test_int_or_string(value, ok):
    schema = {"type": "object", "properties": {"q": {
        "x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}}}
    issues, _ = judge(schema, {"q": value})
    assert (issues == []) == ok


def test_unknown_fields_strict_unless_preserved_and_did_you_mean():
    schema = {"type": "object", "properties": {
        "replicas": {"type": "integer"},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "inner": {"type": "object", "x-kubernetes-embedded-resource": True,
                  "x-kubernetes-preserve-unknown-fields": True}}}
    issues, _ = judge(schema, {"replicaz": 1, "free": {"x": 1},
                               "inner": {"apiVersion": "v1", "kind": "Pod", "metadata": {}}})
    assert [(i.path, i.message) for i in issues] == [
        (("spec", "replicaz"), "spec.replicaz: unknown field 'replicaz'; did you mean "
                               "'replicas'?")]


def test_nullable():
    schema = {"type": "object", "properties": {"a": {"type": "string", "nullable": True},
                                               "b": {"type": "string"}}}
    issues, _ = judge(schema, {"a": None, "b": None})
    assert issues == []  # b's null is pruned like the API server does


def test_list_type_set_and_map_reject_duplicates():
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name", "protocol"],
                  "items": {"type": "object", "properties": {
                      "name": {"type": "string"}, "protocol": {"type": "string"}}}}}}
    issues, _ = judge(schema, {"tags": ["a", "b", "a"],
                               "ports": [{"name": "h", "protocol": "TCP"},
                                         {"name": "h", "protocol": "UDP"},
                                         {"name": "h", "protocol": "TCP"}]})
    assert sorted(i.path for i in issues) == [("spec", "ports", 2), ("spec", "tags", 2)]


def test_metadata_name_checked_on_crd_path():
    index = CrdIndex()
    index.add(make_crd({"type": "object"}))
    obj = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "Bad_Name"}}
    issues, _ = crd.validate(index.get("example.com", "Gadget", "v1"), obj)
    assert [i.path for i in issues] == [("metadata", "name")]


def _rule(rule, **extra):
    return {"rule": rule, **extra}


def test_message_expression_field_path_and_reason(engine):
    schema = {"type": "object", "properties": {"min": {"type": "integer"},
                                               "max": {"type": "integer"}},
              "x-kubernetes-validations": [_rule(
                  "self.min <= self.max", messageExpression="'min ' + string(self.min) + ' > max'",
                  fieldPath=".min", reason="FieldValueForbidden")]}
    issues, _ = judge(schema, {"min": 5, "max": 1}, engine=engine)
    assert [(i.code, i.path, i.message) for i in issues] == [
        (CEL_RULE, ("spec", "min"), "spec.min: Forbidden: min 5 > max")]


def test_rules_bind_self_per_array_element_and_map_value(engine):
    item = {"type": "object", "properties": {"port": {"type": "integer"}},
            "x-kubernetes-validations": [_rule("self.port > 1024", message="unprivileged")]}
    schema = {"type": "object", "properties": {
        "list": {"type": "array", "items": item},
        "map": {"type": "object", "additionalProperties": item}}}
    issues, _ = judge(schema, {"list": [{"port": 8080}, {"port": 22}],
                               "map": {"ok": {"port": 9000}, "bad": {"port": 80}}}, engine=engine)
    assert sorted(i.path for i in issues) == [("spec", "list", 1), ("spec", "map", "bad")]


def test_evaluation_error_is_a_rejection(engine):
    schema = {"type": "object", "properties": {"a": {"type": "object"}},
              "x-kubernetes-validations": [_rule("self.a.size() > 0", message="need a")]}
    issues, _ = judge(schema, {}, engine=engine)
    assert len(issues) == 1 and "need a (evaluation error:" in issues[0].message


def test_defaults_are_visible_to_rules(engine):
    schema = {"type": "object", "properties": {"mode": {"type": "string", "default": "Auto"}},
              "x-kubernetes-validations": [_rule("self.mode == 'Auto'")]}
    issues, _ = judge(schema, {}, engine=engine)
    assert issues == []


def test_transition_rules_skipped_without_old_and_checked_with_it(engine):
    schema = {"type": "object", "properties": {"name": {"type": "string",
              "x-kubernetes-validations": [_rule("self == oldSelf", message="immutable")]}}}
    issues, runner = judge(schema, {"name": "a"}, engine=engine)
    assert issues == [] and runner.skipped_transition == 1
    issues, _ = judge(schema, {"name": "b"}, old={"name": "a"}, engine=engine)
    assert [i.message for i in issues] == ["spec.name: Invalid value: immutable"]


def test_unsupported_rule_fails_loudly(engine):
    schema = {"type": "object", "additionalProperties": {"type": "integer"},
              "x-kubernetes-validations": [_rule("self.all(k, v, v > 0)")]}
    issues, _ = judge(schema, {"a": 1}, engine=engine)
    assert [i.code for i in issues] == [CEL_UNSUPPORTED]
    assert "cannot be evaluated offline" in issues[0].message


def test_first_crd_for_a_version_wins_and_contents_share_state():
    index = CrdIndex()
    first = make_crd({"type": "object"})
    index.add(first, "a.yaml")
    index.add(make_crd({"type": "string"}), "b.yaml")
    assert index.get("example.com", "Gadget", "v1").source == "a.yaml"
    again = CrdIndex()
    again.add(copy.deepcopy(first), "c.yaml")
    assert again.get("example.com", "Gadget", "v1")._state is \
        index.get("example.com", "Gadget", "v1")._state


def test_did_you_mean_knows_version_renames():
    assert did_you_mean("cohort", ["cohortName", "queueingStrategy"]) == "cohortName"
    assert did_you_mean("ResourceGroups", ["resourceGroups"]) == "resourceGroups"
    assert did_you_mean("zzz", ["resourceGroups"]) is None


def test_builtin_reports_v1beta1_field_in_v1beta2_with_rename():
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
          "metadata": {"name": "a"}, "spec": {"cohort": "x"}}
    issues = builtin.validate("kueue.x-k8s.io", "v1beta2", "ClusterQueue", cq)
    assert [(i.path, i.message) for i in issues] == [
        (("spec", "cohort"), "spec.cohort: unknown field 'cohort'; did you mean 'cohortName'?")]
    cq["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    assert builtin.validate("kueue.x-k8s.io", "v1beta1", "ClusterQueue", cq) == []


def test_builtin_has_no_model_for_other_kinds():
    assert builtin.validate("batch", "v1", "Job", {}) is None
    assert builtin.validate("kueue.x-k8s.io", "v1alpha1", "Cohort", {}) is None


def test_builtin_nested_unknown_field_lists_siblings():
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w"},
          "spec": {"podSets": [{"name": "main", "template": {}, "topologyRequest": {
              "requierd": "zone"}}]}}
    issues = builtin.validate("kueue.x-k8s.io", "v1beta2", "Workload", wl)
    assert [i.message for i in issues] == [
        "spec.podSets[0].topologyRequest.requierd: unknown field 'requierd'; "
        "did you mean 'required'?"]


@pytest.mark.parametrize("value,ok", [("Widget", True), ("widget-2", True), ("9lives", False)])
def test_re2_patterns_with_inline_flags(value, ok):
    schema = {"type": "object", "properties": {"kind": {
        "type": "string", "pattern": "^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$"}}}
    issues, _ = judge(schema, {"kind": value})
    assert (issues == []) == ok


def test_uncompilable_pattern_is_unsupported_not_a_crash():
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}
    issues, _ = judge(schema, {"a": "x"})
    assert [i.code for i in issues] == [CEL_UNSUPPORTED]


def test_embedded_resource_needs_api_version_and_kind():
    schema = {"type": "object", "properties": {"inner": {
        "type": "object", "x-kubernetes-embedded-resource": True,
        "x-kubernetes-preserve-unknown-fields": True}}}
    issues, _ = judge(schema, {"inner": {"metadata": {}}})
    assert sorted(i.message for i in issues) == [
        "spec.inner: required field 'apiVersion' is missing",
        "spec.inner: required field 'kind' is missing"]
