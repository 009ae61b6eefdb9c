"""What a ValidatingAdmissionPolicy needs to know about a kind: its API resource, and how CEL in
the API server reaches the pod templates kueuelint derives its ``workloads`` from.

The pod-set expressions build, for one object, the list of workloads with the fields rules may
read in the cluster: ``queueName`` (the queue label, or ``''``) and ``podSets`` with ``name``,
``spec`` (the PodSpec as written in the object) and ``specPath``.  Only kinds whose derived
PodSpecs are the object's own are listed: kueuelint rewrites the InferenceService's (model
container first, non-pod fields dropped) and adds containers for Ray and TrainJob runtimes,
which CEL in the cluster would not see.  ``tests/test_export_vap.py`` checks every entry
against ``kueuelint.derive`` on every fixture.  Pod-template paths, label homes and replica
fields are read from the kinds' KindSpecs (``kueuelint.kueue.kinds``); what is written here is
only how CEL walks them and names the pod sets.
"""

from __future__ import annotations

from dataclasses import dataclass

from kueuelint.identify.kinds import COMPUTE_CONFIG_KINDS, KINDS
from kueuelint.kueue.kinds import SPECS

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
_IRREGULAR_PLURALS = {"Topology": "topologies"}


@dataclass(frozen=True)
class Resource:
    group: str
    versions: tuple[str, ...]
    plural: str


def resource_of(kind_key: str) -> Resource | None:
    """The API resource of a kind kueuelint knows; None for compute configs (no API objects)."""
    info = KINDS.get(kind_key)
    if info is None or kind_key in COMPUTE_CONFIG_KINDS:
        return None
    return Resource(info.group, info.versions, plural(info.kind))


def plural(kind: str) -> str:
    """The resource name Kubernetes derives from a kind (lower case, English plural)."""
    if kind in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[kind]
    lower = kind.lower()
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


# --- the workloads of one object, in CEL ----------------------------------------------------------

def _present(path: str) -> str:
    """``has()`` of every step of ``object.a.b.c`` after ``object``."""
    parts = path.split(".")
    return " && ".join(f"has({'.'.join(parts[:i + 1])})" for i in range(1, len(parts)))


def _labels_value(labels: str) -> str:
    present = _present(labels)
    key = f"'{QUEUE_LABEL}'"
    return (f"({present} && {key} in {labels} && {labels}[{key}] != '' ? {labels}[{key}] : '')")


def _queue(*label_paths: str) -> str:
    """The first non-empty queue label among ``label_paths``, else ''."""
    value = _labels_value(label_paths[-1])
    for labels in reversed(label_paths[:-1]):
        value = f"({_labels_value(labels)} != '' ? {_labels_value(labels)} : {value})"
    return value


def _pod_set(name: str, spec: str, spec_path: str) -> str:
    return f"{{'name': dyn({name}), 'spec': dyn({spec}), 'specPath': dyn('{spec_path}')}}"


def _single(name: str, template: str, spec_path: str) -> str:
    spec = f"{template}.spec"
    return f"({_present(spec)} ? [{_pod_set(name, spec, spec_path)}] : [])"


def _workload(queue: str, pod_sets: str) -> str:
    return f"[{{'queueName': dyn({queue}), 'podSets': dyn({pod_sets})}}]"


METADATA = "object.metadata.labels"
_POD_NAME = (f"({_present(METADATA)} && '{POD_GROUP_LABEL}' in {METADATA} && "
             f"{METADATA}['{POD_GROUP_LABEL}'] != '' ? object.metadata.name.lowerAscii() : 'main')")
# Kinds whose one pod template is a replica map's entries, ``spec.<field>.*.template`` in their
# KindSpec; the field is read from there.
_REPLICA_KINDS = ("kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/XGBoostJob",
                  "kubeflow.org/PaddleJob", "kubeflow.org/JAXJob", "kubeflow.org/MPIJob")


def _replica_field(key: str) -> str:
    template, = SPECS[key].pod_templates
    prefix, field, star, last = template.split(".")
    if (prefix, star, last) != ("spec", "*", "template"):
        raise ValueError(f"{key}: pod template {template!r} is not a replica map's")
    return field


def _template_of(key: str) -> tuple[str, str]:
    """(the CEL path of a kind's one pod template, its PodSpec's field path), from its KindSpec."""
    template, = SPECS[key].pod_templates
    return f"object.{template}", f"{template}.spec"


def _labels_of(key: str) -> str:
    home, = SPECS[key].label_homes
    return "object." + ".".join(home)


def _single_template(key: str, *fallback_labels: str) -> str:
    """A kind with one pod template and one pod set, ``main``."""
    return _workload(_queue(_labels_of(key), *fallback_labels), _single("'main'", *_template_of(key)))


def _replica_job(field: str) -> str:
    specs = f"object.spec.{field}"
    template = f"{specs}[t].template"
    pod_sets = (f"({_present(specs)} ? {specs}.filter(t, has({template}) && has({template}.spec))"
                f".map(t, {_pod_set('t.lowerAscii()', template + '.spec', f'spec.{field}[].template.spec')}) : [])")
    return _workload(_queue(METADATA), pod_sets)


def _jobset() -> str:
    jobs = "object.spec.replicatedJobs"
    spec = "j.template.spec.template.spec"
    pod_sets = (f"({_present(jobs)} ? {jobs}.filter(j, has(j.name) && {_present('j.template.spec.template.spec')})"                f".map(j, {_pod_set('j.name.lowerAscii()', spec, 'spec.replicatedJobs[].template.spec.template.spec')}) : [])")
    return _workload(_queue(METADATA), pod_sets)


def _leaderworkerset() -> str:
    base = "object.spec.leaderWorkerTemplate"
    leader = f"{base}.leaderTemplate"
    worker_name = f"({_present(leader)} ? 'worker' : 'main')"
    pod_sets = (f"(has(object.spec.replicas) && object.spec.replicas == 0 ? [] : "
                f"{_single(chr(39) + 'leader' + chr(39), leader, 'spec.leaderWorkerTemplate.leaderTemplate.spec')} + "
                f"{_single(worker_name, base + '.workerTemplate', 'spec.leaderWorkerTemplate.workerTemplate.spec')})")
    return _workload(_queue(METADATA), pod_sets)


POD_SETS: dict[str, str] = {
    "batch/Job": _single_template("batch/Job"),
    "batch/CronJob": _single_template("batch/CronJob"),
    "Pod": _workload(_queue(METADATA),
                     f"({_present('object.spec')} ? [{_pod_set(_POD_NAME, 'object.spec', 'spec')}] : [])"),
    # as kueuelint.derive does, the pod template's label is read when the object has none
    "apps/Deployment": _single_template("apps/Deployment", "object.spec.template.metadata.labels"),
    "apps/StatefulSet": _single_template("apps/StatefulSet", "object.spec.template.metadata.labels"),
    "kubeflow.org/Notebook": _single_template("kubeflow.org/Notebook"),
    "jobset.x-k8s.io/JobSet": _jobset(),
    "leaderworkerset.x-k8s.io/LeaderWorkerSet": _leaderworkerset(),
    **{key: _replica_job(_replica_field(key)) for key in _REPLICA_KINDS},
}

UNREACHABLE = {
    "serving.kserve.io/InferenceService": "KServe builds the pod from the component (model container "
                                          "first), which kueuelint derives and CEL cannot",
    "ray.io/RayJob": "Kueue adds the submitter pod and the Ray autoscaler container",
    "ray.io/RayCluster": "Kueue counts the Ray autoscaler container the operator adds",
    "ray.io/RayService": "Kueue counts the Ray autoscaler container the operator adds",
    "trainer.kubeflow.org/TrainJob": "its pods come from a TrainingRuntime, another object",
    "tekton.dev/PipelineRun": "its pods come from Tasks, other objects",
    "workload.codeflare.dev/AppWrapper": "its components are arbitrary objects",
    "sparkoperator.k8s.io/SparkApplication": "the operator builds the driver and executor pods",
}


def workloads_expression(kind_key: str) -> str | None:
    return POD_SETS.get(kind_key)
