"""KQ620–KQ649, KQ660–KQ669: what Kueue's job integrations reject or cannot turn into a Workload
(kueue-validation.md §3.5, §3.7; formats.md §1c, §1d, §2 #8).

Every rule applies only to objects Kueue manages (a queue label, the namespace's default
LocalQueue, or ``manageJobsWithoutQueueName``): unmanaged KubeRay or JobSet samples get nothing.
"""

from __future__ import annotations

import json
import re

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.managed import ELASTIC, ELASTIC_GATE_ON, Managed, elastic, managed
from kueuelint.kueue.kinds import JOB_SPECS, RETIRED_JOB_KINDS
from kueuelint.kueue.labels import home_label, metadata_path
from kueuelint.kueue.pod_groups import group_members, group_of
from kueuelint.findings import Severity
from kueuelint.identify.objects import KObject
from kueuelint.index.inventory import QUEUE_LABEL

MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
SYNC_COMPLETIONS = "kueue.x-k8s.io/job-completions-equal-parallelism"
ROLE_HASH = "kueue.x-k8s.io/role-hash"
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
GO_INT = re.compile(r"^[+-]?\d{1,18}$")
GO_BOOLS = {**dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
            **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False)}
LWS_MAX_REPLICAS = 1_000_000
RAY_BASES = {"ray.io/RayCluster": ("spec",), "ray.io/RayService": ("spec", "rayClusterConfig"),
             "ray.io/RayJob": ("spec", "rayClusterSpec")}
# Where the entries that become pod sets are listed, for pointing a "too many" finding at.
POD_SET_LISTS = {spec.key: spec.pod_set_list for spec in JOB_SPECS if spec.pod_set_list}
NAMED_POD_SETS = tuple(spec.key for spec in JOB_SPECS if spec.named_pod_sets)


# --- KQ620: too many pod sets ---------------------------------------------------------------------

def max_pod_sets(version: tuple[int, int]) -> int:
    if version >= (0, 19):
        return 18
    return 10 if version >= (0, 18) else 8


@rule("KQ620")
def too_many_pod_sets(obj: KObject, ctx: RuleContext):
    if obj.key == "Pod":
        yield from _too_many_roles(obj, ctx)
        return
    m = managed(obj, ctx)
    workloads = ctx.workloads(obj) if m else []
    limit = max_pod_sets(ctx.kueue_version)
    if not workloads or len(workloads[0].pod_sets) <= limit:
        return
    names = [pod_set.name for pod_set in workloads[0].pod_sets]
    shown = ", ".join(names[:4] + (["..."] if len(names) > 5 else []) + names[4:][-1:])
    extra = (" (counting the 'submitter' pod set Kueue adds for submissionMode K8sJobMode)"
             if names[-1] == "submitter" and obj.key == "ray.io/RayJob" else "")
    path = POD_SET_LISTS.get(obj.key) or ("spec",)
    # The Ray webhooks count head + worker groups and refuse the object; elsewhere the object is
    # accepted and only the Workload fails.
    webhook_count = len(names) - (1 if extra else 0)
    fate = ("Kueue's webhook rejects it" if obj.key in RAY_BASES and webhook_count > limit
            else "no Workload is created and the job never starts")
    yield Violation(path=path, args={"detail": (
        f"{m.why} and makes {len(names)} pod sets ({shown}){extra}, but a Workload holds at most "
        f"{limit} in Kueue {'.'.join(map(str, ctx.kueue_version))}: {fate}; "
        f"merge groups or split it into jobs of at most {limit} pod sets")})


def _too_many_roles(pod: KObject, ctx: RuleContext):
    """Plain-pod groups: every distinct pod shape is a role, and a role is a pod set."""
    group, group_path = group_of(pod)
    if not group or managed(pod, ctx) is None:
        return
    members = group_members(ctx, pod)
    limit = max_pod_sets(ctx.kueue_version)
    if not members or members[0] is not pod:
        return   # reported once, on the group's first pod
    roles = {_role_shape(member) for member in members}
    if len(roles) > limit:
        yield Violation(path=group_path, args={"detail": (
            f"is the first of {len(members)} pods of pod group {group!r}, which have {len(roles)} "
            f"distinct pod shapes (roles); Kueue allows at most {limit} roles in a group in "
            f"Kueue {'.'.join(map(str, ctx.kueue_version))} (\"pod group can't include more than {limit} roles\"), so the "
            "group is never admitted; give pods of one role identical containers and scheduling "
            "fields")})


def _role_shape(pod: KObject) -> str:
    """What makes two pods of a group the same role for Kueue: containers' images, resources
    and ports, and the scheduling fields (or a role hash the user set)."""
    preset = pod.annotations.get(ROLE_HASH)
    if isinstance(preset, str):
        return preset
    spec = pod.spec
    shape = {key: spec.get(key) for key in ("nodeSelector", "affinity", "tolerations", "runtimeClassName",
                                            "priority", "topologySpreadConstraints", "overhead",
                                            "resourceClaims")}
    for key in ("containers", "initContainers"):
        items = spec.get(key) if isinstance(spec.get(key), list) else []
        shape[key] = [{f: c.get(f) for f in ("image", "resources", "ports")} for c in items if isinstance(c, dict)]
    return json.dumps(shape, sort_keys=True, default=str)


# --- KQ621: pod set names -----------------------------------------------------------------------

@rule("KQ621")
def pod_set_name_invalid(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    if m is None or obj.key not in NAMED_POD_SETS:
        return
    workloads = ctx.workloads(obj)
    seen: dict[str, object] = {}
    for pod_set in workloads[0].pod_sets if workloads else []:
        name = pod_set.name
        earlier = seen.setdefault(name, pod_set)
        if earlier is not pod_set:
            yield from _duplicate(obj, m, name, earlier, pod_set)
        elif len(name) > 63 or not DNS_LABEL.match(name):
            written = obj.get(*_name_path(obj, pod_set))
            yield Violation(path=_name_path(obj, pod_set), at_value=True, args={"detail": (
                f"{m.why}; its pod set name {name!r}"
                + (f" (from {written!r}, lower-cased)" if isinstance(written, str) and written != name else "")
                + " is not a DNS label (lower-case letters, digits and '-', at most 63 characters), "
                "so Kueue cannot create the Workload and the job never starts; rename it, e.g. "
                f"{_suggest(name)!r}")})


def _duplicate(obj: KObject, m: Managed, name: str, earlier, later):
    if name == "head" and obj.key in RAY_BASES:
        return   # KQ634 reports a worker group named head
    # The RayJob submitter is added last; the user's worker group is what to rename.
    culprit = earlier if later.name == "submitter" and obj.key == "ray.io/RayJob" else later
    other = obj.get(*_name_path(obj, earlier))
    note = (" the pod set Kueue adds for the RayJob submitter (submissionMode K8sJobMode)"
            if culprit is earlier else f" the earlier pod set from {other!r}"
            + (" (Kueue lower-cases names)" if other != name else ""))
    yield Violation(path=_name_path(obj, culprit), at_value=True, args={"detail": (
        f"{m.why}; its pod set name {name!r} is also the name of{note}, and pod set names must be "
        "unique, so Kueue cannot create the Workload; rename one of them")})


def _name_path(obj: KObject, pod_set) -> tuple:
    path = pod_set.template_path
    if obj.key == "jobset.x-k8s.io/JobSet" and len(path) > 3:
        return path[:3] + ("name",)
    if obj.key in RAY_BASES and "workerGroupSpecs" in path:
        return path[:-1] + ("groupName",)
    if path and path[-1] == "template":
        return path[:-1]          # a Kubeflow replica type: the key itself
    return path


def _suggest(name: str) -> str:
    cleaned = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:63].strip("-")
    return cleaned or "workers"


# --- KQ630–KQ635: KubeRay -------------------------------------------------------------------------

def _ray_managed(obj: KObject, ctx: RuleContext) -> Managed | None:
    """A RayJob that only selects an existing cluster is not Kueue's, whatever its labels."""
    m = managed(obj, ctx)
    if m is None or (obj.key == "ray.io/RayJob" and "clusterSelector" in obj.spec
                     and obj.spec.get("rayClusterSpec") is None):
        return None
    return m


@rule("KQ630")
def rayjob_keeps_cluster(obj: KObject, ctx: RuleContext):
    m = _ray_managed(obj, ctx)
    value = obj.spec.get("shutdownAfterJobFinishes")
    if m is None or value is True:
        return
    written = "shutdownAfterJobFinishes is not set (KubeRay's default is false)" if value is None \
        else f"shutdownAfterJobFinishes is {value!r}"
    yield Violation(path=("spec", "shutdownAfterJobFinishes") if value is not None else ("spec",),
                    at_value=value is not None, args={"detail": (
                        f"{m.why} but {written}; Kueue's webhook rejects it: \"a kueue managed job "
                        "should delete the cluster after finishing\". Set spec.shutdownAfterJobFinishes: "
                        "true (and drop deletionRules that keep the cluster)")})


@rule("KQ631")
def rayjob_existing_cluster(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    if m is None or "clusterSelector" not in obj.spec or obj.spec.get("rayClusterSpec") is None:
        return
    yield Violation(path=("spec", "clusterSelector"), args={"detail": (
        f"{m.why} and sets both clusterSelector and rayClusterSpec; Kueue's webhook rejects it: "
        "\"a kueue managed job should not use an existing cluster\". Remove clusterSelector to let "
        "the job create its own cluster under quota (or drop the queue label to use the existing "
        "cluster outside Kueue)")})


@rule("KQ632")
def rayjob_cluster_spec_missing(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    if m is None or obj.spec.get("rayClusterSpec") is not None or "clusterSelector" in obj.spec:
        return
    yield Violation(path=("spec",), args={"detail": (
        f"{m.why} but has neither rayClusterSpec nor clusterSelector; Kueue's webhook rejects it: "
        "\"rayClusterSpec is required for Kueue-managed jobs that don't use clusterSelector\". "
        "Describe the cluster in spec.rayClusterSpec")})


@rule("KQ633")
def ray_autoscaling_not_elastic(obj: KObject, ctx: RuleContext):
    base = RAY_BASES.get(obj.key)
    m = _ray_managed(obj, ctx)
    if m is None or base is None or obj.get(*base, "enableInTreeAutoscaling") is not True:
        return
    if elastic(obj, ctx):
        return
    quoted = ("a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the "
              "ElasticJobsViaWorkloadSlices feature gate and set the \"kueue.x-k8s.io/elastic-job\": "
              "\"true\" annotation" if obj.key == "ray.io/RayCluster"
              else "a kueue managed job should only use autoscaling when workload slicing is enabled")
    written, annotation_path = _annotation(obj, ELASTIC)
    how = (f"add the annotation {ELASTIC}: \"true\" to metadata.annotations" if written is None else
           f"write {ELASTIC}: \"true\" (it is {written!r}, which leaves the job non-elastic)")
    how = (how if ctx.kueue_version >= ELASTIC_GATE_ON else
           "use Kueue 0.18 or later (or enable the ElasticJobsViaWorkloadSlices gate) and "
           f"annotate it with {ELASTIC}: \"true\"")
    # A wrong elastic-job value is this mistake; KQ209's warning on it would say it twice.
    yield Violation(path=base + ("enableInTreeAutoscaling",), at_value=True,
                    replaces=(("KQ209", annotation_path),), args={"detail": (
        f"{m.why} and turns on in-tree autoscaling without being an elastic job; Kueue's webhook "
        f"rejects it: \"{quoted}\". Either {how}, or set enableInTreeAutoscaling: false")})


def _worker_groups(obj: KObject, base: tuple):
    groups = obj.get(*base, "workerGroupSpecs")
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        if isinstance(group, dict):
            yield base + ("workerGroupSpecs", index), group


@rule("KQ634")
def ray_worker_group_named_head(obj: KObject, ctx: RuleContext):
    m = _ray_managed(obj, ctx)
    base = RAY_BASES.get(obj.key)
    if m is None or base is None:
        return
    for path, group in _worker_groups(obj, base):
        name = group.get("groupName")
        if isinstance(name, str) and name.lower() == "head":
            yield Violation(path=path + ("groupName",), at_value=True, args={"detail": (
                f"{m.why} and has a worker group named {name!r}; Kueue's webhook rejects it "
                "(\"head\" is reserved for the head group), as each group becomes a pod set named "
                "after it. Rename the worker group, e.g. 'workers'")})


@rule("KQ635")
def ray_replicas_out_of_range(obj: KObject, ctx: RuleContext):
    m = _ray_managed(obj, ctx)
    base = RAY_BASES.get(obj.key)
    if m is None or base is None:
        return
    for path, group in _worker_groups(obj, base):
        name = group.get("groupName", path[-1])
        replicas, low, high = (group.get(k) for k in ("replicas", "minReplicas", "maxReplicas"))
        low = low if _is_int(low) else 0
        high = high if _is_int(high) else None
        if high is not None and low > high:
            yield Violation(path=path + ("minReplicas",), at_value=True, severity=Severity.ERROR, args={
                "detail": (f"{m.why}; worker group {name!r} has minReplicas {low} above maxReplicas "
                           f"{high}, which KubeRay refuses; make minReplicas <= maxReplicas")})
        elif _is_int(replicas) and (replicas < low or (high is not None and replicas > high)):
            bound = f"minReplicas {low}" if replicas < low else f"maxReplicas {high}"
            yield Violation(path=path + ("replicas",), at_value=True, args={"detail": (
                f"{m.why}; worker group {name!r} has replicas {replicas} outside [{low}, "
                f"{high if high is not None else 'unbounded'}]: Kueue reserves quota for {replicas} "
                f"pods while KubeRay clamps the group to {bound}, so the quota Kueue holds is not what "
                "runs; set replicas within minReplicas..maxReplicas")})


# --- KQ640 / KQ641: batch Job partial admission ------------------------------------------------

def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _job_spec_path(obj: KObject) -> tuple:
    return ("spec", "jobTemplate", "spec") if obj.key == "batch/CronJob" else ("spec",)


def _annotation(obj: KObject, key: str) -> tuple[object, tuple]:
    path = metadata_path(obj) + ("annotations", key)
    return obj.get(*path), path


def _job_spec(obj: KObject) -> dict:
    spec = obj.get(*_job_spec_path(obj))
    return spec if isinstance(spec, dict) else {}   # junk is the schema's finding


def _pods_count(obj: KObject) -> int:
    spec = _job_spec(obj)
    parallelism = spec.get("parallelism") if _is_int(spec.get("parallelism")) else 1
    completions = spec.get("completions")
    return min(parallelism, completions) if _is_int(completions) else parallelism


@rule("KQ640")
def job_min_parallelism_invalid(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    value, path = _annotation(obj, MIN_PARALLELISM)
    if m is None or not isinstance(value, str):
        return   # a non-string value is KQ202's
    pods = _pods_count(obj)
    text = value.strip()
    if elastic(obj, ctx):
        problem = f"cannot be combined with {ELASTIC}: \"true\"; remove one of the two annotations"
    elif not GO_INT.match(text):
        problem = f"must be an integer; write a number between 1 and {pods - 1}"
    elif not 0 < int(text) < pods:
        problem = (f"\"should be between 0 and {pods}\" (both exclusive; the job runs "
                   f"min(parallelism, completions) = {pods} pods); "
                   + (f"choose 1..{pods - 1}" if pods > 1 else "partial admission needs parallelism above 1"))
    else:
        return
    yield Violation(path=path, at_value=True, args={"detail": (
        f"{m.why}; its {MIN_PARALLELISM} annotation {value!r} is rejected by Kueue's webhook: {problem}")})


@rule("KQ641")
def job_completions_equal_parallelism_invalid(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    value, path = _annotation(obj, SYNC_COMPLETIONS)
    if m is None or not isinstance(value, str):
        return   # a non-string value is KQ202's
    enabled = GO_BOOLS.get(value)
    spec = _job_spec(obj)
    if enabled is None:
        problem = "must be a boolean (\"true\" or \"false\")"
    elif not enabled:
        return
    elif spec.get("completionMode") != "Indexed":
        problem = ("\"should not be enabled for NonIndexed jobs\"; set spec.completionMode: Indexed "
                   "or remove the annotation")
    elif spec.get("completions") != spec.get("parallelism"):
        problem = (f"completions ({spec.get('completions')}) must equal parallelism "
                   f"({spec.get('parallelism', 1)}); make them equal or remove the annotation")
    else:
        return
    yield Violation(path=path, at_value=True, args={"detail": (
        f"{m.why}; its {SYNC_COMPLETIONS} annotation {value!r} is rejected by Kueue's webhook: {problem}")})


# --- KQ660 / KQ661: SparkApplication; KQ665: LeaderWorkerSet --------------------------------------

@rule("KQ660")
def spark_not_cluster_mode(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    mode = obj.spec.get("mode")
    if m is None or mode is None or mode == "cluster":
        return
    yield Violation(path=("spec", "mode"), at_value=True, args={"detail": (
        f"{m.why} with spec.mode {mode!r}; Kueue's webhook rejects it: \"only Cluster mode is "
        "supported for a kueue managed job\". Set spec.mode: cluster")})


@rule("KQ661")
def spark_dynamic_allocation(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    if m is None or obj.get("spec", "dynamicAllocation", "enabled") is not True:
        return
    yield Violation(path=("spec", "dynamicAllocation", "enabled"), at_value=True, args={"detail": (
        f"{m.why} with dynamicAllocation enabled; Kueue allows dynamic allocation only for elastic "
        "jobs, and a SparkApplication cannot be elastic, so the webhook rejects it. Set "
        "dynamicAllocation.enabled: false and size executors with spec.executor.instances")})


@rule("KQ665")
def lws_replicas_out_of_range(obj: KObject, ctx: RuleContext):
    m = managed(obj, ctx)
    replicas = obj.spec.get("replicas")
    if m is None or not _is_int(replicas) or 0 <= replicas <= LWS_MAX_REPLICAS:
        return
    yield Violation(path=("spec", "replicas"), at_value=True, args={"detail": (
        f"{m.why} with spec.replicas {replicas}; Kueue's webhook rejects LeaderWorkerSet replicas "
        f"outside 0..{LWS_MAX_REPLICAS} (\"invalid LeaderWorkerSet replicas\"); use a count in range")})


# --- KQ622: MXJob, whose integration Kueue removed -------------------------------------------------

MXJOB_REMOVED_IN = RETIRED_JOB_KINDS["kubeflow.org/MXJob"].removed_in


@rule("KQ622")
def mxjob_unsupported(obj: KObject, ctx: RuleContext):
    value, path = home_label(obj, QUEUE_LABEL)
    if not isinstance(value, str) or not value or ctx.kueue_version < MXJOB_REMOVED_IN:
        return
    yield Violation(path=path, at_value=True, args={"detail": (
        f"is queued to {value!r}, but Kueue manages MXJobs only up to 0.10 (support was removed "
        f"in 0.11): Kueue "
        f"{'.'.join(map(str, ctx.kueue_version))} ignores the label and the job runs without "
        "quota; run it as another Kubeflow job kind, or set kueue-version if the cluster is older")})
