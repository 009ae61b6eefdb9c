"""(group, version, kind) -> model class, built on first use.

Only the module that defines a kind is imported, and only the requested object model is
assembled: pydantic builds validators when a class is created, which is most of the cost of a
one-file run.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Optional

KUEUE = "kueue.x-k8s.io"
CONFIG = "config.kueue.x-k8s.io"

# kind -> (module, v1beta2 spec class, v1beta1 spec class, spec required)
_SPECS = {
    "ResourceFlavor": ("queues", "ResourceFlavorSpec", "ResourceFlavorSpec", False),
    "ClusterQueue": ("queues", "ClusterQueueSpec", "ClusterQueueSpecV1Beta1", False),
    "Cohort": ("queues", "CohortSpec", "CohortSpec", False),
    "LocalQueue": ("queues", "LocalQueueSpec", "LocalQueueSpec", False),
    "AdmissionCheck": ("others", "AdmissionCheckSpec", "AdmissionCheckSpecV1Beta1", False),
    "ProvisioningRequestConfig": ("others", "ProvisioningRequestConfigSpec",
                                  "ProvisioningRequestConfigSpec", False),
    "Topology": ("others", "TopologySpec", "TopologySpec", True),
    "MultiKueueConfig": ("others", "MultiKueueConfigSpec", "MultiKueueConfigSpecV1Beta1", False),
    "MultiKueueCluster": ("others", "MultiKueueClusterSpec", "MultiKueueClusterSpecV1Beta1",
                          False),
    "Workload": ("workload", "WorkloadSpec", "WorkloadSpecV1Beta1", False),
}
VERSIONS = ("v1beta1", "v1beta2")
_built: dict[tuple[str, str, str], type] = {}


def model_for(group: str, version: str, kind: str):
    key = (group, version, kind)
    if key not in _built:
        model = _build(group, version, kind)
        if model is None:
            return None
        _built[key] = model
    return _built[key]


def keys() -> list[tuple[str, str, str]]:
    """Every (group, version, kind) with a model, without building any."""
    kinds = [*_SPECS, "WorkloadPriorityClass"]
    return [(KUEUE, v, k) for k in kinds for v in VERSIONS] + \
        [(CONFIG, v, "Configuration") for v in VERSIONS]


def _build(group: str, version: str, kind: str):
    if version not in VERSIONS:
        return None
    if group == CONFIG and kind == "Configuration":
        from kueuelint.models import config

        return config.ConfigurationV1Beta2 if version == "v1beta2" else config.ConfigurationV1Beta1
    if group != KUEUE:
        return None
    from kueuelint.models.objects import object_model

    if kind == "WorkloadPriorityClass":
        return _priority_class(version)
    if kind not in _SPECS:
        return None
    module_name, v2, v1, required = _SPECS[kind]
    module = importlib.import_module(f"kueuelint.models.{module_name}")
    spec = getattr(module, v2 if version == "v1beta2" else v1)
    return object_model(KUEUE, version, kind, spec, spec_required=required)


def _priority_class(version: str):
    from pydantic import Field

    from kueuelint.models.common import Int32
    from kueuelint.models.objects import object_model

    limit = 2048 if version == "v1beta2" else None
    return object_model(KUEUE, version, "WorkloadPriorityClass", value=(Int32, ...),
                        description=(Optional[Annotated[str, Field(max_length=limit)]], None))
