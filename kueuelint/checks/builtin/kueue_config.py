"""KQ901–KQ906: the Kueue Configuration (a ``Configuration`` file or the manager ConfigMap).

Kueue decodes its configuration strictly and validates it at start-up (pkg/config), so every
finding here is a controller that does not start. The schema rule KQ110 validates the fields of
a ``Configuration`` file and of the copy embedded in the ``kueue-manager-config`` ConfigMap;
KQ901 only reports embedded text that is not a readable Configuration at all. The other rules
read either form through ``view``, which maps the embedded YAML back onto the lines of the
ConfigMap's literal block, so their findings point inside the embedded text.
"""

from __future__ import annotations

import ipaddress
import re

import yaml

from kueuelint.index.selectors import NAME_LABEL, matches
from kueuelint.findings import Severity
from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.config_view import CONFIG_KEY, ConfigView, object_at, view
from kueuelint.identify.kinds import KUEUE_CONFIG_GROUP
from kueuelint.identify.objects import KObject
from kueuelint.kueue.label_syntax import selector_problems

DEFAULT_KUEUE_NAMESPACE = "kueue-system"
POD_FRAMEWORKS = ("pod", "deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")
_BUILT_IN_KINDS = {"Job.v1.batch", "Pod.v1.", "Deployment.v1.apps", "StatefulSet.v1.apps"}
_EXTERNAL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*\.v[0-9][a-z0-9]*\.[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
_DURATION_RE = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_DNS1035_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def duration_seconds(value) -> float | None:
    """Seconds in a Go duration ("1h30m", "-5s", "0"); None when it is not one."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    parts = _DURATION_RE.findall(body)
    if not parts or "".join(n + u for n, u in parts) != body:
        return None
    return sign * sum(float(n) * _DURATION_UNITS[u] for n, u in parts)


# --- KQ901: the ConfigMap's embedded text is not a readable Configuration ---------------------

@rule("KQ901")
def embedded_configuration_unreadable(obj: KObject, ctx: RuleContext):
    config = view(obj)
    if config is None or config.owner.kind != "ConfigMap":
        return
    for line, column, message in config.problems:
        yield _at_line(config, line, column, message)
    if config.problems:
        return
    api_version, kind = config.data.get("apiVersion"), config.data.get("kind")
    group, _, version = str(api_version or "").rpartition("/")
    if group == KUEUE_CONFIG_GROUP and version in ("v1beta1", "v1beta2") and kind == "Configuration":
        return  # readable: the schema rule KQ110 validates the fields
    field = "kind" if group == KUEUE_CONFIG_GROUP and version in ("v1beta1", "v1beta2") \
        else "apiVersion"
    shown = kind if field == "kind" else api_version
    yield config.violation((field,) if field in config.data else (), (
        f"the embedded {CONFIG_KEY} has {field} {shown!r}; Kueue only reads apiVersion: "
        f"{KUEUE_CONFIG_GROUP}/v1beta2 (or v1beta1) with kind: Configuration and will not start"),
        at_value=True)


def _at_line(config: ConfigView, line: int, column: int, message: str) -> Violation:
    if config.offset is None:
        return config.violation((), message)
    first, indent = config.offset
    mark = yaml.Mark("", 0, first + line, indent + column, None, None)
    spot = object_at(config.owner, {}, yaml.ScalarNode("tag:yaml.org,2002:str", "", mark, mark), first)
    return Violation(message=f"{config.owner.display()}: {message}", path=(), obj=spot)


# --- KQ902: managedJobsNamespaceSelector -----------------------------------------------------

@rule("KQ902")
def managed_jobs_namespace_selector(obj: KObject, ctx: RuleContext):
    config = view(obj)
    selector = config.data.get("managedJobsNamespaceSelector") if config else None
    if not isinstance(selector, dict):
        return  # absent: Kueue's default excludes kube-system and its own namespace
    path = ("managedJobsNamespaceSelector",)
    problems = selector_problems(selector, path)
    for where, problem in problems:
        yield config.violation(where, f"managedJobsNamespaceSelector is invalid: {problem}",
                               at_value=True)
    if problems:
        return
    own = config.data.get("namespace") or DEFAULT_KUEUE_NAMESPACE
    hit = [ns for ns in ("kube-system", own) if matches(selector, {NAME_LABEL: ns})]
    if hit:
        yield config.violation(path, (
            f"managedJobsNamespaceSelector selects the {' and '.join(repr(n) for n in hit)} "
            f"namespace{'s' if len(hit) > 1 else ''}; Kueue refuses to start (\"should not match "
            f"the {hit[0]!r} namespace\"). Exclude them, e.g. matchExpressions: [{{key: "
            f"{NAME_LABEL}, operator: NotIn, values: [kube-system, {own}]}}]"))


# --- KQ903: integrations ------------------------------------------------------------------

@rule("KQ903")
def integrations_frameworks(obj: KObject, ctx: RuleContext):
    config = view(obj)
    integrations = _dict(config.data.get("integrations")) if config else {}
    frameworks = integrations.get("frameworks")
    seen: set = set()
    for index, name in enumerate(frameworks if isinstance(frameworks, list) else []):
        if not isinstance(name, str):
            continue    # the schema's finding
        if name in seen:
            yield config.violation(("integrations", "frameworks", index), (
                f"framework {name!r} is listed twice; Kueue refuses the configuration "
                "(\"Duplicate value\")"), at_value=True)
        seen.add(name)
    external = integrations.get("externalFrameworks")
    for index, name in enumerate(external if isinstance(external, list) else []):
        problem, refused = _external_problem(name, seen)
        if problem:
            found = config.violation(("integrations", "externalFrameworks", index), problem,
                                     at_value=True)
            found.severity = None if refused else Severity.WARNING
            yield found


def _external_problem(name, built_in: set) -> tuple[str | None, bool]:
    """(problem, whether Kueue refuses to start). Kueue only needs two dots to read an entry as
    Kind.version.group; an entry that is not a real one then starts fine and matches nothing."""
    if not isinstance(name, str) or name.count(".") < 2:
        return (f"externalFrameworks entry {name!r} must be Kind.version.group, e.g. "
                "AppWrapper.v1beta2.workload.codeflare.dev; Kueue refuses the configuration"), True
    if not _EXTERNAL_RE.match(name):
        kind, version, group = name.split(".", 2)
        return (f"externalFrameworks entry {name!r} is read as kind {kind!r}, version {version!r}, "
                f"group {group!r}; Kueue starts, but an entry that names no real kind has no effect: "
                "spell it Kind.version.group, e.g. PipelineRun.v1.tekton.dev"), False
    if name in _BUILT_IN_KINDS:
        return f"{name!r} is a built-in integration; enable it in integrations.frameworks instead", True
    return None, False


# --- KQ904: resources ------------------------------------------------------------------------

@rule("KQ904")
def resources_settings(obj: KObject, ctx: RuleContext):
    config = view(obj)
    resources = _dict(config.data.get("resources")) if config else {}
    if resources.get("quotaCheckStrategy") == "IgnoreUndeclared" and \
            resources.get("excludeResourcePrefixes"):
        yield config.violation(("resources", "excludeResourcePrefixes"), (
            "excludeResourcePrefixes cannot be combined with quotaCheckStrategy: "
            "IgnoreUndeclared, which already ignores every resource no ClusterQueue covers; "
            "remove one of them"))
    for key, field in (("transformations", "input"), ("deviceClassMappings", "name")):
        items = resources.get(key)
        seen: set = set()
        for index, item in enumerate(items if isinstance(items, list) else []):
            value = item.get(field) if isinstance(item, dict) else None
            if not isinstance(value, str):
                continue    # the schema's finding
            if value in seen:
                yield config.violation(("resources", key, index, field), (
                    f"{key} has two entries for {value!r}; Kueue refuses the configuration "
                    "(\"Duplicate value\"): merge them"), at_value=True)
            seen.add(value)


# --- KQ905: values Kueue's start-up validation refuses ------------------------------------------

@rule("KQ905")
def configuration_values(obj: KObject, ctx: RuleContext):
    config = view(obj)
    if config is None:
        return
    for path, message in _value_problems(config.data):
        scalar = not isinstance(_get(config.data, path), (dict, list))
        yield config.violation(path, message, at_value=scalar)


def _value_problems(data: dict) -> list[tuple[tuple, str]]:
    found = []
    durations = ((("waitForPodsReady", "timeout"), "> 0"),
                 (("waitForPodsReady", "recoveryTimeout"), ">= 0"),
                 (("admissionFairSharing", "usageSamplingInterval"), "> 0"),
                 (("admissionFairSharing", "usageHalfLifeTime"), ">= 0"),
                 (("multiKueue", "gcInterval"), ">= 0"),
                 (("multiKueue", "workerLostTimeout"), ">= 0"),
                 (("objectRetentionPolicies", "workloads", "afterFinished"), ">= 0"),
                 (("objectRetentionPolicies", "workloads", "afterDeactivatedByKueue"), ">= 0"))
    for path, bound in durations:
        seconds = duration_seconds(_get(data, path))
        if seconds is not None and (seconds < 0 or (bound == "> 0" and seconds == 0)):
            found.append((path, f"{'.'.join(path)} must be {bound}, got {_get(data, path)!r}"))
    weights = _dict(_get(data, ("admissionFairSharing",))).get("resourceWeights")
    for name, weight in _dict(weights).items():
        if isinstance(weight, (int, float)) and weight < 0:
            found.append((("admissionFairSharing", "resourceWeights", name),
                          f"resourceWeights[{name}] must be >= 0, got {weight}"))
    found += _multikueue_problems(_dict(data.get("multiKueue")))
    found += _server_problems(data)
    return found


def _get(data: dict, path: tuple):
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _multikueue_problems(multikueue: dict) -> list[tuple[tuple, str]]:
    dispatcher = multikueue.get("dispatcherName")
    if "incrementalDispatcherConfig" in multikueue and \
            dispatcher != "kueue.x-k8s.io/multikueue-dispatcher-incremental":
        return [(("multiKueue", "incrementalDispatcherConfig"),
                 "incrementalDispatcherConfig only applies with dispatcherName: "
                 "kueue.x-k8s.io/multikueue-dispatcher-incremental; set that or remove it")]
    return []


def _server_problems(data: dict) -> list[tuple[tuple, str]]:
    found = []
    address = _get(data, ("visibilityServer", "bindAddress"))
    if isinstance(address, str) and address and not _is_ip(address):
        found.append((("visibilityServer", "bindAddress"),
                      f"visibilityServer.bindAddress {address!r} must be an IP address"))
    tls = _dict(data.get("tls"))
    if tls.get("minVersion") == "VersionTLS13" and tls.get("cipherSuites"):
        found.append((("tls", "cipherSuites"), "cipherSuites cannot be set with minVersion: "
                      "VersionTLS13 (TLS 1.3 suites are not configurable); remove them"))
    certs = _dict(data.get("internalCertManagement"))
    for field, pattern, what in (("webhookServiceName", _DNS1035_RE, "DNS-1035 label"),
                                 ("webhookSecretName", _DNS1123_RE, "DNS-1123 subdomain")):
        value = certs.get(field)
        if isinstance(value, str) and not pattern.match(value):
            found.append((("internalCertManagement", field),
                          f"internalCertManagement.{field} {value!r} must be a {what}"))
    return found


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


# --- KQ906: a v1beta2 Configuration turns waitForPodsReady on by saying nothing ------------------
#
# Kueue decodes its file with the defaults of the file's own version, then converts it: a v1beta1
# file without the section (or with enable: false) converts to no waitForPodsReady, which is off.
# The v1beta2 defaults fill an absent section in since 0.19, so the same file moved to v1beta2
# turns the feature on.

WAIT_FOR_PODS_READY_ALWAYS_ON = (0, 19)
DISABLE_GATE = "DisableWaitForPodsReady"


@rule("KQ906")
def wait_for_pods_ready_on_by_default(obj: KObject, ctx: RuleContext):
    config = view(obj)
    if config is None or ctx.kueue_version < WAIT_FOR_PODS_READY_ALWAYS_ON:
        return
    data = config.data
    if data.get("apiVersion") != f"{KUEUE_CONFIG_GROUP}/v1beta2" or "waitForPodsReady" in data:
        return
    if _dict(data.get("featureGates")).get(DISABLE_GATE) is True:
        return
    yield config.violation(("apiVersion",), (
        "has no waitForPodsReady section, which in a v1beta2 Configuration turns the feature on "
        "since Kueue 0.19 (timeout 30m): workloads whose pods are not all ready in time are "
        "evicted and requeued (a v1beta1 file without the section kept it off). Set "
        "waitForPodsReady to choose the timeout, or the DisableWaitForPodsReady feature gate to "
        "keep it off"), at_value=True)


# --- KQ907: several Kueue Configurations in one scope ----------------------------------------------

@rule("KQ907")
def several_configurations(obj: KObject, ctx: RuleContext):
    config = view(obj)
    if config is None or not config.data:
        return
    count = len(ctx.inventory.kueue_configurations())
    if count > 1:
        yield config.violation((), (
            f"this is one of {count} different Kueue Configurations judged together, so which one "
            "applies to the workloads is not known and the rules that depend on it are skipped; "
            "give each cluster its own scope (scopes: in .kueuelint.yaml)"))
