"""Pod sets of Kubernetes' own workload kinds: Job, CronJob, Pod, Deployment and StatefulSet."""

from __future__ import annotations

from kueuelint.derive.derivation import (
    DEFAULT_POD_SET,
    METADATA_LABELS,
    _Derivation,
    _Draft,
    _pod_set_name,
)
from kueuelint.derive.model import Workload

MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
POD_GROUP_TOTAL_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"


# --- batch Job and CronJob ---------------------------------------------------------------------

def _job_draft(d: _Derivation, job_spec_path: tuple, annotations_path: tuple, name: str) -> _Draft:
    count = _job_pod_count(d, job_spec_path)
    min_count = d.integer_text(annotations_path + (MIN_PARALLELISM_ANNOTATION,), minimum=1)
    return d.draft(name, count, job_spec_path + ("template",), min_count=min_count)


def _job_pod_count(d: _Derivation, job_spec_path: tuple) -> int:
    """min(parallelism, completions); parallelism defaults to 1, completions to unbounded."""
    parallelism = d.integer(job_spec_path + ("parallelism",), 1)
    completions = d.integer(job_spec_path + ("completions",), None)
    return parallelism if completions is None else min(parallelism, completions)


def _derive_job(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    return [d.workload([_job_draft(d, ("spec",), ("metadata", "annotations"), DEFAULT_POD_SET)])]


def _derive_cronjob(d: _Derivation) -> list[Workload]:
    job = ("spec", "jobTemplate")
    d.mapping(job + ("spec",), required=True)
    draft = _job_draft(d, job + ("spec",), job + ("metadata", "annotations"), DEFAULT_POD_SET)
    return [d.workload([draft], label_paths=(job + METADATA_LABELS,))]


# --- plain Pods, Deployments, StatefulSets -------------------------------------------------------

def _derive_pod(d: _Derivation) -> list[Workload]:
    data = d.subject.data
    template = {"metadata": data.get("metadata") or {}, "spec": d.mapping(("spec",), required=True)}
    group, _ = d.label(POD_GROUP_LABEL, (METADATA_LABELS,))
    total = d.integer_text(("metadata", "annotations", POD_GROUP_TOTAL_ANNOTATION), minimum=1)
    pod_set_name = _pod_set_name(d.subject.name) if group else DEFAULT_POD_SET
    draft = _Draft(pod_set_name or DEFAULT_POD_SET, 1, template, (), ("spec",))
    return [d.workload([draft], name=group, group_name=group,
                       group_total_count=total if group else None)]


_TEMPLATE_LABELS = ("spec", "template", "metadata", "labels")


def _derive_deployment(d: _Derivation) -> list[Workload]:
    # Kueue's pod integration makes a Workload of every pod, so one pod set of one pod.
    replicas = d.integer(("spec", "replicas"), 1)
    draft = d.draft(DEFAULT_POD_SET, 1, ("spec", "template"))
    return [d.workload([draft], label_paths=(METADATA_LABELS, _TEMPLATE_LABELS),
                       per_pod=True, replicas=replicas)]


def _derive_statefulset(d: _Derivation) -> list[Workload]:
    replicas = d.integer(("spec", "replicas"), 1)
    draft = d.draft(DEFAULT_POD_SET, replicas, ("spec", "template"))
    return [d.workload([draft], label_paths=(METADATA_LABELS, _TEMPLATE_LABELS))]
