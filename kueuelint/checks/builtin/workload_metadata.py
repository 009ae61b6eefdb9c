"""KQ207–KQ210: labels and annotations every Kueue job webhook checks on create
(kueue-validation.md §3.5): max-exec-time, prebuilt workload, elastic-job, admission-gated-by.
"""

from __future__ import annotations

import re

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.managed import ELASTIC, ELASTIC_GATE_ON
from kueuelint.derive.metadata import metadata_maps
from kueuelint.findings import Severity
from kueuelint.identify.objects import KObject
from kueuelint.index.inventory import QUEUE_LABEL
from kueuelint.kueue.kinds import JOB_SPECS
from kueuelint.kueue.labels import DNS_SUBDOMAIN, dotted, home_label, home_text

MAX_EXEC_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
PREBUILT_KEY = "kueue.x-k8s.io/prebuilt-workload-name"
POD_GROUP_KEY = "kueue.x-k8s.io/pod-group-name"
GATED_BY_ANNOTATION = "kueue.x-k8s.io/admission-gated-by"

PREBUILT_KINDS = frozenset(spec.key for spec in JOB_SPECS if spec.prebuilt_workload)
ELASTIC_KINDS = frozenset(spec.key for spec in JOB_SPECS if spec.elastic)
GATED_BY_GATE_ON = (0, 19)      # AdmissionGatedBy: Beta, on
MAX_GATE_NAME = 63
GO_INT = re.compile(r"^[+-]?\d+$")
# k8s IsDomainPrefixedPath: "<DNS-1123 subdomain>/<HTTP path characters>".
HTTP_PATH = re.compile(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")


def _gvk(obj: KObject) -> str:
    # Kueue names the kind the way Go prints a GroupVersionKind.
    return f"{obj.api_version if '/' in obj.api_version else '/' + obj.api_version}, Kind={obj.kind}"


# --- KQ207 ---------------------------------------------------------------------------------------

@rule("KQ207")
def max_exec_time_invalid(obj: KObject, ctx: RuleContext):
    value, path = home_text(obj, MAX_EXEC_LABEL)
    if path is None:
        return
    if not GO_INT.match(value):
        reason = f"{value!r} is not an integer"
    elif int(value) <= 0:
        reason = f"{value} should be greater than 0"
    else:
        return
    yield Violation(path=path, at_value=True, args={"detail": (
        f"sets {MAX_EXEC_LABEL}: {reason}; Kueue's webhook rejects the object. Give the run-time "
        "limit as a positive whole number of seconds, e.g. \"3600\"")})


# --- KQ208 ---------------------------------------------------------------------------------------

@rule("KQ208")
def prebuilt_workload_invalid(obj: KObject, ctx: RuleContext):
    for field in ("labels", "annotations"):
        value, path = home_text(obj, PREBUILT_KEY, field)
        if path is None:
            continue
        detail = _prebuilt_problem(obj, value, field)
        if detail:
            yield Violation(path=path, at_value=True, args={"detail": detail})


def _prebuilt_problem(obj: KObject, value: str, field: str) -> str | None:
    where = f"{PREBUILT_KEY} {field[:-1]}"
    if len(value) > 253 or not DNS_SUBDOMAIN.match(value):
        return (f"sets the {where} to {value!r}, which is not a valid Workload name (a DNS-1123 "
                "subdomain: lowercase letters, digits, '-' and '.'); Kueue's webhook rejects it")
    if obj.key not in PREBUILT_KINDS:
        return (f"sets the {where}, which Kueue rejects for this kind: Is not supported for "
                f"\"{_gvk(obj)}\"; remove it and let Kueue create the Workload")
    group, _ = home_text(obj, POD_GROUP_KEY)
    if obj.key == "Pod" and group is not None and group != value:
        return (f"sets the {where} to {value!r} but the pod group is {group!r}; Kueue rejects "
                "this (prebuilt workload and pod group should be equal): use the same name")
    return None


# --- KQ209 ---------------------------------------------------------------------------------------

@rule("KQ209")
def elastic_job_unsupported(obj: KObject, ctx: RuleContext):
    if ctx.kueue_version < ELASTIC_GATE_ON:
        return
    value, path = home_text(obj, ELASTIC, "annotations")
    if path is None:
        return
    if obj.key not in ELASTIC_KINDS:
        yield Violation(path=path, args={"detail": (
            f"sets the {ELASTIC} annotation; Kueue's webhook rejects it here: "
            f"elastic job is not supported for \"{_gvk(obj)}\" (only batch Job, RayCluster, "
            "RayJob and RayService can be elastic); remove it")})
    elif value != "true":
        yield Violation(path=path, at_value=True, severity=Severity.WARNING, args={"detail": (
            f"sets {ELASTIC}: {value!r}; Kueue treats the job as elastic only for the "
            "exact value \"true\", so this job is not elastic: write \"true\" or remove it")})


# --- KQ210 ---------------------------------------------------------------------------------------

@rule("KQ210")
def admission_gated_by_invalid(obj: KObject, ctx: RuleContext):
    if ctx.kueue_version < GATED_BY_GATE_ON:
        return
    value, path = home_text(obj, GATED_BY_ANNOTATION, "annotations")
    if not value:
        return
    problems = gate_problems(value)
    if problems:
        yield Violation(path=path, at_value=True, args={"detail": (
            f"sets {GATED_BY_ANNOTATION}: {value!r}, which Kueue's webhook rejects: "
            f"{'; '.join(problems)}. List gate names like \"example.com/my-gate\", "
            "separated by commas")})


def gate_problems(value: str) -> list[str]:
    problems, seen = [], set()
    for gate in (part.strip() for part in value.split(",")):
        if not gate:
            problems.append("cannot contain empty gate names")
        elif gate in seen:
            problems.append(f"duplicate gate name: {gate}")
        else:
            seen.add(gate)
            problems.extend(_gate_name_problems(gate))
    return list(dict.fromkeys(problems))


def _gate_name_problems(gate: str) -> list[str]:
    problems = []
    domain, slash, rest = gate.partition("/")
    if not slash or not domain or not rest:
        problems.append(f"{gate!r} must be a domain-prefixed path (such as \"acme.io/foo\")")
    else:
        if len(domain) > 253 or not DNS_SUBDOMAIN.match(domain):
            problems.append(f"{gate!r}: the prefix {domain!r} is not a DNS-1123 subdomain")
        if not HTTP_PATH.match(rest):
            problems.append(f"{gate!r}: the path {rest!r} holds characters not allowed in a path")
    if len(gate) > MAX_GATE_NAME:
        problems.append(f"{gate!r} is longer than {MAX_GATE_NAME} characters")
    return problems



# --- KQ213: metadata and scheduling gates Kueue writes itself --------------------------------------

KUEUE_WRITTEN = {  # key -> what Kueue uses it for (site/data/labels_and_annotations.yaml)
    "kueue.x-k8s.io/podset": "the admitted pod set of a job's pods",
    "kueue.x-k8s.io/workload": "the admitted Workload of a job's pods",
    "kueue.x-k8s.io/cluster-queue-name": "the ClusterQueue that admitted the pod",
    "kueue.x-k8s.io/local-queue-name": "the LocalQueue the pod was queued to",
    "kueue.x-k8s.io/role-hash": "the pod set of a pod in a pod group",
    "kueue.x-k8s.io/pod-suspending-parent": ("the Kueue-managed owner that gates the pod; on "
                                             "any other pod it makes Kueue gate the pod"),
    "kueue.x-k8s.io/stopping": "a job Kueue is suspending",
    "kueue.x-k8s.io/workload-slice-name": "the workload slice of an elastic job's pods",
    "kueue.x-k8s.io/multikueue-origin": "objects MultiKueue copied to a worker cluster",
    "kueue.x-k8s.io/multikueue-origin-uid": "objects MultiKueue copied to a worker cluster",
}
KUEUE_GATES = ("kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology", "kueue.x-k8s.io/elastic-job")


@rule("KQ213")
def kueue_owned_metadata(obj: KObject, ctx: RuleContext):
    from kueuelint.derive.metadata import outline_of

    for field in ("labels", "annotations"):
        for path, values in metadata_maps(obj, field):
            for key in values:
                if key in KUEUE_WRITTEN:
                    yield Violation(path=path + (key,), args={"detail": (
                        f"sets {key} in {dotted(path)}; Kueue writes this {field[:-1]} itself "
                        f"(it marks {KUEUE_WRITTEN[key]}), and a copy pasted from a live "
                        "object misleads Kueue: remove it")})
    queue, _ = home_label(obj, QUEUE_LABEL)
    for path, gate in outline_of(obj).gates:
        if gate not in KUEUE_GATES:
            continue
        queued = isinstance(queue, str) and bool(queue)
        yield Violation(path=path, severity=None if queued else Severity.ERROR, args={"detail": (
            f"lists the scheduling gate {gate} in {dotted(path[:-1])}; Kueue adds and removes "
            "its own gates, " + ("so this one is redundant: remove it" if queued else
                                 "and nothing queues this object (no queue label), so the pods "
                                 "stay gated and never schedule: remove it"))})
