"""CEL rules as ValidatingAdmissionPolicies: the same policy in pre-commit, CI and the API server.

A rule can be enforced by the API server when it reads only the object being admitted: ``object``,
``params`` (its options), ``kueueVersion`` (a constant here), and ``workloads`` for the kinds
whose pod templates CEL reaches (``kinds.POD_SETS``).  Rules reading the LocalQueue, ClusterQueue
or Kueue Configuration, Python rules, and rules over derived requests are listed with the reason.
A Python rule that reads other objects may give a CEL form of itself (``vap:`` in its rule file)
over ``facts``: what the run knows of those objects (``kueuelint.export.facts``), written into
the params ConfigMap and read back as its ``data``.

Mapping, and why:

* ``matchConstraints`` lists the rule's kinds with every served version (``matchPolicy``
  stays Equivalent), for CREATE and UPDATE.
* Options become ``paramKind: v1 ConfigMap``: every cluster has ConfigMaps, so no CRD must be
  installed first.  ConfigMap data holds strings only, so each option is written as text and
  turned back into its schema type by the variable ``params``: booleans ``true``/``false``,
  numbers in decimal, lists of strings one per line.
* ``variables`` carry what the rule calls ``workloads``, ``params`` and ``kueueVersion``; a
  ``violations`` rule gets one more, ``message``: every violation rendered with the rule's
  message template and joined with `` | `` (VAP messages are one line), empty when none.
* VAP validations have no fieldPath, so the path kueuelint would point at ends the message.
* ``validationActions`` follow the severity (error: Deny, warning: Warn, info: Audit), unless
  overridden.  A policy that cannot deny fails open (``failurePolicy: Ignore``): an evaluation
  error must not turn a warning into a refusal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kueuelint.checks.registry import RuleDef, effective_options, options_schema
from kueuelint.config import Config
from kueuelint.cel import text as celtext
from kueuelint.export import kinds
from kueuelint.findings import Severity

API_VERSION = "admissionregistration.k8s.io/v1"
MANAGED_BY = {"app.kubernetes.io/managed-by": "kueuelint"}
ACTIONS = ("Deny", "Warn", "Audit")
DEFAULT_ACTIONS = {Severity.ERROR: ["Deny"], Severity.WARNING: ["Warn"], Severity.INFO: ["Audit"]}
RULE_INPUTS = {"object", "workloads", "params", "kueueVersion", "facts", "request"}
OTHER_OBJECTS = ("localQueue", "clusterQueue", "kueueConfig")
# what kueuelint derives for a workload that CEL in the API server cannot work out
DERIVED_FIELDS = ("requests", "count", "minCount", "priorityClass", "queueNamePath")
SEPARATOR = " | "
MAX_NESTING = 4
_DERIVED = re.compile(r"\.\s*(" + "|".join(DERIVED_FIELDS) + r")\b")
# In the API server an object (and its typed fields) has an object type, never `map`
_SEVERITY_LITERAL = re.compile(r"'severity'\s*:\s*'(\w+)'")
_OBJECT_IS_MAP = re.compile(r"type\(\s*object(\s*\.\s*(metadata|spec|status))?\s*\)\s*[!=]=\s*map\b")


class NotExportable(Exception):
    """Why a rule cannot run in the API server."""


@dataclass
class Exported:
    rule: RuleDef
    kinds: list[str]
    objects: list[dict]                      # policy, binding and (with options) params
    left_out: dict[str, str] = field(default_factory=dict)   # kind -> why it is not matched
    note: str = ""                           # what the user should know about this export

    @property
    def policy(self) -> dict:
        return self.objects[0]

    @property
    def policies(self) -> list[dict]:
        return [obj for obj in self.objects if obj["kind"] == "ValidatingAdmissionPolicy"]


@dataclass
class ExportSettings:
    audit: bool = False
    actions: dict[str, list[str]] = field(default_factory=dict)   # code or severity -> actions
    params_namespace: str = "kube-system"


def export_rules(rules: dict[str, RuleDef], config: Config, settings: ExportSettings,
                 inventories: list | None = None) -> tuple[list[Exported], dict[str, str]]:
    """The selected rules as policies, and the selected rules that cannot be, with the reason.
    ``inventories`` (one per scope of the run) give the facts rules about other objects need."""
    exported, refused = [], {}
    for code, rule in rules.items():
        if not config.is_selected(code):
            continue
        try:
            exported.append(export_rule(rule, config, settings, inventories))
        except (NotExportable, celtext.CelTextError) as exc:
            refused[code] = str(exc)
    return exported, refused


def export_rule(rule: RuleDef, config: Config, settings: ExportSettings,
                inventories: list | None = None) -> Exported:
    sources = _sources(rule)
    inputs = _inputs(sources)
    matched, left_out = _matched_kinds(rule, "workloads" in inputs)
    params = _params(rule, config) if "params" in inputs else None
    note = ""
    if "facts" in inputs:
        facts = _facts(rule, inventories or [])
        params = {**(params or {}), **facts}
        if not facts:
            note = ("the inputs hold no LocalQueue whose ClusterQueue and ResourceFlavors are all "
                    "there, so the policy judges nothing: give the paths that hold them")
    name = policy_name(rule)
    severities = finding_severities(rule, config)
    objects = []
    for severity in severities:
        own_name = name if severity == severities[0] else f"{name}-{severity}"
        only = str(severity) if len(severities) > 1 else None
        spec = _policy_spec(rule, config, matched, inputs, params, only)
        actions = validation_actions(rule, settings, severity)
        spec = {"failurePolicy": "Fail" if "Deny" in actions else "Ignore", **spec}
        objects += _policy_and_binding(rule, own_name, spec, actions, name if params is not None else None,
                                       settings, missing_params="Deny" if "params" in inputs else "Allow")
    if params is not None:
        objects.append({"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": name, "namespace": settings.params_namespace,
                                     "labels": dict(MANAGED_BY)},
                        "data": params})
    return Exported(rule, matched, objects, left_out, note)


def finding_severities(rule: RuleDef, config: Config) -> list[Severity]:
    """The rule's severity first, then any other one its violations set: a binding has one set of
    validationActions, so each severity gets a policy of its own.  A severity set for the code
    in the configuration applies to every finding."""
    if rule.meta.code in config.severity:
        return [config.severity[rule.meta.code]]
    found = [rule.meta.severity]
    for literal in _SEVERITY_LITERAL.findall(program(rule).get("violations") or ""):
        severity = Severity.parse(literal)
        if severity not in found:
            found.append(severity)
    return found


def _policy_spec(rule: RuleDef, config: Config, matched: list[str], inputs: set[str], params,
                 only: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if params is not None:
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    spec["matchConstraints"] = {"resourceRules": [_resource_rule(key) for key in matched]}
    variables = _variables(rule, matched, inputs, params, config, only)
    if variables:
        spec["variables"] = variables
    spec["validations"] = _validations(rule)
    return spec


def _policy_and_binding(rule: RuleDef, name: str, spec: dict, actions: list[str], params_name: str | None,
                        settings: ExportSettings, missing_params: str) -> list[dict]:
    metadata = {"name": name, "labels": dict(MANAGED_BY), "annotations": {"kueuelint.io/rule": rule.meta.code}}
    binding_spec: dict[str, Any] = {"policyName": name, "validationActions": actions}
    if params_name is not None:
        binding_spec["paramRef"] = {"name": params_name, "namespace": settings.params_namespace,
                                    "parameterNotFoundAction": missing_params}
    return [{"apiVersion": API_VERSION, "kind": "ValidatingAdmissionPolicy", "metadata": metadata, "spec": spec},
            {"apiVersion": API_VERSION, "kind": "ValidatingAdmissionPolicyBinding",
             "metadata": {"name": name, "labels": dict(MANAGED_BY)}, "spec": binding_spec}]


def policy_name(rule: RuleDef) -> str:
    return f"kueuelint-{rule.meta.code.lower()}-{rule.meta.name}"


def validation_actions(rule: RuleDef, settings: ExportSettings, severity: Severity) -> list[str]:
    if settings.audit:
        return ["Audit"]
    for key in (rule.meta.code, str(severity)):
        if key in settings.actions:
            return list(settings.actions[key])
    return list(DEFAULT_ACTIONS[severity])


# --- what the rule reads ---------------------------------------------------------------------------

def program(rule: RuleDef) -> dict:
    """The CEL the policy is made of: a CEL rule's own, or a Python rule's ``vap:`` form."""
    return (rule.cel if rule.implementation == "cel" else rule.vap) or {}


def _sources(rule: RuleDef) -> list[str]:
    if rule.implementation == "python" and rule.vap is not None and "not-exportable" in rule.vap:
        raise NotExportable(" ".join(rule.vap["not-exportable"].split()))
    if rule.implementation == "python" and rule.vap is None:
        raise NotExportable(f"written in Python ({rule.python}): the API server runs only CEL over "
                            "the object it admits, and a Python rule may need other objects "
                            "(queues, flavors, the Kueue configuration)")
    if rule.implementation not in ("cel", "python"):
        raise NotExportable("reports what reading the files found, not a property of an object")
    spec = program(rule)
    found = [spec.get("match") or "", spec.get("violations") or ""]
    for validation in spec.get("validations") or ():
        found += [validation.get("expression", ""), validation.get("messageExpression", "")]
    return [source for source in found if source]


def _facts(rule: RuleDef, inventories: list) -> dict[str, str]:
    from kueuelint.export.facts import FACTS, facts_data

    if rule.vap is None:
        raise NotExportable("reads facts, which only the vap: form of a Python rule is given")
    names = list(rule.vap.get("facts") or ())
    unknown = sorted(set(names) - set(FACTS))
    if unknown or not names:
        raise NotExportable(f"reads facts but names {'unknown ' + repr(unknown[0]) if unknown else 'none'} "
                            f"in vap.facts (known: {', '.join(sorted(FACTS))})")
    return facts_data(names, inventories)


def _inputs(sources: list[str]) -> set[str]:
    used = set()
    for source in sources:
        used |= celtext.free_identifiers(source) & (RULE_INPUTS | set(OTHER_OBJECTS))
    if any(_OBJECT_IS_MAP.search(piece) for source in sources for piece in _code(source)):
        raise NotExportable("compares type(object...) with map, which is never true for the typed "
                            "objects of the API server; test fields with has() instead")
    other = sorted(used & set(OTHER_OBJECTS))
    if other:
        raise NotExportable(f"reads {', '.join(other)}: objects other than the one admitted")
    if "workloads" in used:
        derived = sorted({m for source in sources for m in _derived_fields(source)})
        if derived:
            raise NotExportable(f"reads what kueuelint derives for workloads ({', '.join(derived)}), "
                                "which CEL in the API server cannot work out")
    return used


def _code(source: str) -> list[str]:
    return [source[start:end] for start, end, is_code in celtext.code_spans(source) if is_code]


def _derived_fields(source: str) -> set[str]:
    return {match.group(1) for start, end, is_code in celtext.code_spans(source) if is_code
            for match in _DERIVED.finditer(source, start, end)}


def _matched_kinds(rule: RuleDef, needs_workloads: bool) -> tuple[list[str], dict[str, str]]:
    matched, left_out = [], {}
    for pattern in rule.meta.kinds:
        if pattern == "*" or pattern.endswith("/*"):
            raise NotExportable(f"applies to kinds by pattern ({pattern}); list the kinds to export it")
        if kinds.resource_of(pattern) is None:
            left_out[pattern] = "not a Kubernetes API object" if pattern in kinds.COMPUTE_CONFIG_KINDS \
                else "a kind kueuelint has no API resource for"
        elif needs_workloads and kinds.workloads_expression(pattern) is None:
            left_out[pattern] = kinds.UNREACHABLE.get(pattern, "its pod templates are not mapped")
        else:
            matched.append(pattern)
    if not matched:
        reasons = "; ".join(f"{kind}: {why}" for kind, why in left_out.items())
        raise NotExportable(f"none of its kinds can be matched in the API server ({reasons})")
    return matched, left_out


def _resource_rule(kind_key: str) -> dict:
    resource = kinds.resource_of(kind_key)
    return {"apiGroups": [resource.group], "apiVersions": list(resource.versions),
            "resources": [resource.plural], "operations": ["CREATE", "UPDATE"]}


# --- options as a ConfigMap ----------------------------------------------------------------------

def _params(rule: RuleDef, config: Config) -> dict[str, str]:
    values = effective_options(rule, config.rule_options)
    properties = options_schema(rule)["properties"]
    return {name: _param_text(name, schema, values.get(name)) for name, schema in properties.items()}


def _param_text(name: str, schema: dict, value: Any) -> str:
    kind = schema.get("type")
    if kind == "boolean" and isinstance(value, bool):
        return "true" if value else "false"
    if kind in ("integer", "number") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "array" and (schema.get("items") or {}).get("type") == "string" and isinstance(value, list):
        if any(not isinstance(item, str) or "\n" in item for item in value):
            raise NotExportable(f"option {name}: list items must be strings without line breaks")
        return "\n".join(value)
    raise NotExportable(f"option {name} ({kind or 'untyped'}, {value!r}) has no ConfigMap form; "
                        "give it a boolean, number, string or list-of-strings schema")


def params_expression(rule: RuleDef) -> str:
    """The rule's options, typed again from the ConfigMap's strings."""
    entries = []
    for name, schema in options_schema(rule)["properties"].items():
        text = f"params.data[{celtext.literal(name)}]"
        kind = schema.get("type")
        value = {"boolean": f"{text} == 'true'", "integer": f"int({text})", "number": f"double({text})",
                 "array": f"({text} == '' ? [] : {text}.split('\\n'))"}.get(kind, text)
        entries.append(f"{celtext.literal(name)}: dyn({value})")
    return "{" + ", ".join(entries) + "}"


# --- variables and validations ---------------------------------------------------------------------

_RENAMED = {name: f"variables.{name}" for name in ("workloads", "params", "kueueVersion", "facts")}
# A ConfigMap written with no entries comes back without ``data``.
FACTS_EXPRESSION = "has(params.data) ? params.data : {}"


def _in_cluster(source: str) -> str:
    return celtext.rename(celtext.expand_binds(source), _RENAMED)


def _variables(rule: RuleDef, matched: list[str], inputs: set[str], params, config: Config,
               only: str | None) -> list[dict]:
    variables = []
    if params is not None:
        variables.append({"name": "params", "expression": params_expression(rule)})
    if "kueueVersion" in inputs:
        major, minor = config.kueue_version
        variables.append({"name": "kueueVersion", "expression": f"{{'major': {major}, 'minor': {minor}}}"})
    if "workloads" in inputs:
        variables.append({"name": "kindKey", "expression": KIND_KEY})
        variables.append({"name": "workloads", "expression": _workloads_by_kind(matched)})
    if "facts" in inputs:
        variables.append({"name": "facts", "expression": FACTS_EXPRESSION})
    spec = program(rule)
    if spec.get("violations"):
        found = _in_cluster(spec["violations"])
        if spec.get("match"):
            found = f"!({_in_cluster(spec['match'])}) ? [] : ({found})"
        variables.append({"name": "violations", "expression": found})
        variables.append({"name": "message", "expression": _rendered(rule, "variables.violations", only)})
    return variables


def _workloads_by_kind(matched: list[str]) -> str:
    """A balanced tree of conditionals on ``variables.kindKey``: a chain of one per kind would
    nest too deeply for CEL's recursion limits."""
    if len(matched) == 1:
        return f"(variables.kindKey == {celtext.literal(matched[0])} ? " \
               f"{kinds.workloads_expression(matched[0])} : [])"
    half = len(matched) // 2
    left = ", ".join(celtext.literal(key) for key in matched[:half])
    return f"(variables.kindKey in [{left}] ? {_workloads_by_kind(matched[:half])} : " \
           f"{_workloads_by_kind(matched[half:])})"


KIND_KEY = "(request.kind.group == '' ? '' : request.kind.group + '/') + request.kind.kind"


def _validations(rule: RuleDef) -> list[dict]:
    spec = program(rule)
    found = []
    match = _in_cluster(spec["match"]) if spec.get("match") else None
    for validation in spec.get("validations") or ():
        expression = _in_cluster(validation["expression"])
        if match:
            expression = f"!({match}) || ({expression})"
        found.append({"expression": expression, **_validation_message(rule, validation)})
    if spec.get("violations"):
        found.append({"expression": "variables.message == ''", "messageExpression": "variables.message",
                      "message": rule.meta.summary or rule.meta.name})
    return found


def _validation_message(rule: RuleDef, validation: dict) -> dict:
    suffix = f" (at {validation['fieldPath']})" if validation.get("fieldPath") else ""
    if validation.get("messageExpression"):
        return {"messageExpression": f"({_in_cluster(validation['messageExpression'])}) + "
                                     f"{celtext.literal(suffix)}",
                "message": rule.meta.summary or rule.meta.name}
    if validation.get("message"):
        return {"message": validation["message"] + suffix}
    expression = celtext.template_expression(rule.message, _object_placeholder)
    if expression is None:
        return {"message": rule.message + suffix}
    return {"messageExpression": f"{expression} + {celtext.literal(suffix)}",
            "message": rule.meta.summary or rule.meta.name}


def object_display() -> str:
    """``Kind namespace/name`` (or ``Kind name`` for cluster-scoped objects), as findings say."""
    name = "(has(object.metadata.name) ? object.metadata.name : object.metadata.generateName)"
    namespace = ("(has(object.metadata.namespace) && object.metadata.namespace != '' ? "
                 "object.metadata.namespace + '/' : '')")
    return f"[object.kind, ' ', {namespace}, {name}].join('')"


_OBJECT_PLACEHOLDERS = {
    "object": object_display(), "kind": "object.kind", "name": "object.metadata.name",
    "namespace": "(has(object.metadata.namespace) ? object.metadata.namespace : '')",
    "apiVersion": "object.apiVersion",
}


def _object_placeholder(name: str) -> str:
    if name not in _OBJECT_PLACEHOLDERS:
        raise NotExportable(f"its message uses {{{name}}}, which only a violation's args can fill")
    return _OBJECT_PLACEHOLDERS[name]


def _rendered(rule: RuleDef, violations: str, only: str | None) -> str:
    """Every violation of a (possibly nested) list as one line of text, '' when there is none;
    with ``only``, just the violations of that severity."""

    def render(item: str) -> str:
        def placeholder(name: str) -> str:
            return _OBJECT_PLACEHOLDERS.get(name) or f"string({item}.args[{celtext.literal(name)}])"

        templated = celtext.template_expression(rule.message, placeholder) or celtext.literal(rule.message)
        where = f"(has({item}.path) && string({item}.path) != '' ? ' (at ' + string({item}.path) + ')' : '')"
        text = (f"(type({item}) == string ? {item} : "
                f"(has({item}.message) ? string({item}.message) : {templated}) + {where})")
        if only is None:
            return text
        default = celtext.literal(str(rule.meta.severity))
        severity = f"(type({item}) != string && has({item}.severity) ? string({item}.severity) : {default})"
        return f"({severity} == {celtext.literal(only)} ? {text} : '')"

    def level(items: str, depth: int) -> str:
        var = f"v{depth}"
        inner = level(var, depth + 1) if depth < MAX_NESTING else "'(nested too deeply)'"
        return (f"{items}.map({var}, type({var}) == list ? {inner} : {render(var)})"
                f".filter(s, s != '').join({celtext.literal(SEPARATOR)})")

    return level(violations, 1)
