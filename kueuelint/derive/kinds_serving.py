"""Pod sets of model serving and notebooks: KServe's InferenceService and Kubeflow's Notebook."""

from __future__ import annotations

from kueuelint.derive.derivation import (
    DEFAULT_POD_SET,
    METADATA_LABELS,
    _Derivation,
    _dict,
    _Draft,
    _Rewrite,
)
from kueuelint.derive.model import Workload

NOTEBOOK_STOPPED_ANNOTATION = "kubeflow-resource-stopped"


# --- KServe InferenceService -----------------------------------------------------------------

ISVC_COMPONENTS = ("predictor", "transformer", "explainer")
ISVC_MODEL_KEYS = ("model", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "pmml",
                   "lightgbm", "paddle", "huggingface", "art", "alibi")
ISVC_NON_POD_KEYS = frozenset(ISVC_MODEL_KEYS) | {
    "minReplicas", "maxReplicas", "scaleTarget", "scaleMetric", "scaleMetricType",
    "containerConcurrency", "timeout", "canaryTrafficPercent", "logger", "batcher", "labels",
    "annotations", "deploymentStrategy", "autoScaling", "workerSpec", "storageUris"}


def _derive_inferenceservice(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    workloads = []
    for component in ISVC_COMPONENTS:
        path = ("spec", component)
        if d.mapping(path):
            workloads.append(_isvc_component_workload(d, component, path))
    if not workloads:
        d.problems.append((("spec", "predictor"), "an InferenceService needs a predictor"))
        workloads.append(d.workload([]))
    return workloads


def _isvc_component_workload(d: _Derivation, component: str, path: tuple) -> Workload:
    body = d.mapping(path)
    spec = {key: value for key, value in body.items() if key not in ISVC_NON_POD_KEYS}
    draft = _Draft(DEFAULT_POD_SET, 1, {"metadata": _isvc_pod_metadata(d, body), "spec": spec},
                   path, path)
    model_key = next((key for key in ISVC_MODEL_KEYS if isinstance(body.get(key), dict)), None)
    if model_key is not None:
        _put_model_container_first(draft, body, model_key, path)
    replicas = d.integer(path + ("minReplicas",), 1)
    labels = (METADATA_LABELS, path + ("labels",))
    return d.workload([draft], name=f"{d.subject.name}-{component}", label_paths=labels,
                      per_pod=True, replicas=replicas)


def _put_model_container_first(draft: _Draft, body: dict, model_key: str, path: tuple) -> None:
    model = {**body[model_key], "name": body[model_key].get("name") or "kserve-container"}
    listed = body.get("containers")
    listed = listed if isinstance(listed, list) else []
    draft.template["spec"] = {**draft.template["spec"], "containers": [model, *listed]}
    draft.rewrites.append(_Rewrite(("containers", 0), path + (model_key,)))
    for index in range(len(listed)):
        draft.rewrites.append(_Rewrite(("containers", index + 1), path + ("containers", index)))


def _isvc_pod_metadata(d: _Derivation, body: dict) -> dict:
    # KServe gives the pods the ISVC's labels plus the component's own.
    labels = {**_dict(d.subject.get(*METADATA_LABELS)), **_dict(body.get("labels"))}
    annotations = {**_dict(d.subject.get("metadata", "annotations")), **_dict(body.get("annotations"))}
    return {"labels": labels, "annotations": annotations}


# --- Kubeflow Notebook -------------------------------------------------------------------------

def _derive_notebook(d: _Derivation) -> list[Workload]:
    spec = d.mapping(("spec", "template", "spec"), required=True)
    stopped = NOTEBOOK_STOPPED_ANNOTATION in _dict(d.subject.get("metadata", "annotations"))
    # The notebook controller copies all Notebook labels onto the pod.
    template = {"metadata": {"labels": _dict(d.subject.get(*METADATA_LABELS))}, "spec": spec}
    draft = _Draft(DEFAULT_POD_SET, 0 if stopped else 1, template, ("spec", "template"),
                   ("spec", "template", "spec"))
    return [d.workload([draft])]
