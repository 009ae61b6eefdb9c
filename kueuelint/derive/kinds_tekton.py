"""Pod sets of Tekton's PipelineRun: one per Task."""

from __future__ import annotations

from kueuelint.derive.derivation import _Derivation, _dict, _Draft, _pod_set_name, _with_container
from kueuelint.derive.model import Workload


def _derive_pipelinerun(d: _Derivation) -> list[Workload]:
    """One pod set per Task: each Task runs as its own pod and Kueue queues each on its own.

    Inline specs give exact paths; a Pipeline or Task found by reference among the inputs is
    used too, with findings pointing at the reference.
    """
    pipeline, anchor = d.mapping(("spec", "pipelineSpec")), None
    if not pipeline:
        anchor = ("spec", "pipelineRef")
        pipeline = _referenced_spec(d, "tekton.dev/Pipeline", d.subject.get(*anchor))
    drafts = []
    for section in ("tasks", "finally"):
        tasks = pipeline.get(section)
        for index, task in enumerate(tasks if isinstance(tasks, list) else []):
            draft = _tekton_task_draft(d, task, ("spec", "pipelineSpec", section, index), anchor)
            if draft is not None:
                drafts.append(draft)
    return [d.workload(drafts, per_pod=True)]


def _referenced_spec(d: _Derivation, key: str, ref: object) -> dict:
    """The spec of the object a ``{name: ...}`` reference names, when it is among the inputs."""
    name = ref.get("name") if isinstance(ref, dict) else None
    if d.inventory is None or not isinstance(name, str):
        return {}
    found = d.inventory.get(key, name, d.subject.namespace)
    spec = found.get("spec") if found is not None else None
    return spec if isinstance(spec, dict) else {}


def _tekton_task_draft(d: _Derivation, task: object, path: tuple, anchor: tuple | None) -> _Draft | None:
    if not isinstance(task, dict):
        return None
    task_spec, spec_path = task.get("taskSpec"), path + ("taskSpec",)
    if not isinstance(task_spec, dict):
        task_spec = _referenced_spec(d, "tekton.dev/Task", task.get("taskRef"))
        anchor = anchor or path + ("taskRef",)
    if not task_spec:
        return None
    name = task.get("name") if isinstance(task.get("name"), str) else f"task-{path[-1]}"
    draft = _Draft(_pod_set_name(name), 1, {"spec": {"containers": []}}, anchor or spec_path,
                   anchor or spec_path)
    _add_tekton_containers(draft, task_spec, spec_path, anchor)
    return draft


def _add_tekton_containers(draft: _Draft, task_spec: dict, spec_path: tuple, anchor: tuple | None) -> None:
    template_resources = _step_resources(_dict(task_spec.get("stepTemplate")))[0]
    for kind in ("steps", "sidecars"):
        items = task_spec.get(kind)
        for index, step in enumerate(items if isinstance(items, list) else []):
            if not isinstance(step, dict):
                continue
            resources, key = _step_resources(step)
            merged = _merge_resources(template_resources, resources)
            target = anchor or spec_path + (kind, index, key)
            _with_container(draft, {"name": step.get("name"), "resources": merged}, target,
                            keep_rest=anchor is None)


def _step_resources(step: dict) -> tuple[dict, str]:
    # Tekton v1 names the field computeResources; v1beta1 used resources.
    for key in ("computeResources", "resources"):
        if isinstance(step.get(key), dict):
            return step[key], key
    return {}, "computeResources"


def _merge_resources(base: dict, override: dict) -> dict:
    merged = {}
    for key in ("requests", "limits"):
        combined = {**_dict(base.get(key)), **_dict(override.get(key))}
        if combined:
            merged[key] = combined
    return merged
