"""(group, version, kind) -> model class, for every kind with a built-in model."""

from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field

from kueuelint.models import others, queues, workload
from kueuelint.models.common import Int32
from kueuelint.models.config import ConfigurationV1Beta1, ConfigurationV1Beta2
from kueuelint.models.objects import object_model

KUEUE = "kueue.x-k8s.io"
CONFIG = "config.kueue.x-k8s.io"

# kind -> (v1beta2 spec, v1beta1 spec, spec required)
_SPECS = {
    "ResourceFlavor": (queues.ResourceFlavorSpec, queues.ResourceFlavorSpec, False),
    "ClusterQueue": (queues.ClusterQueueSpec, queues.ClusterQueueSpecV1Beta1, False),
    "Cohort": (queues.CohortSpec, queues.CohortSpec, False),
    "LocalQueue": (queues.LocalQueueSpec, queues.LocalQueueSpec, False),
    "AdmissionCheck": (others.AdmissionCheckSpec, others.AdmissionCheckSpecV1Beta1, False),
    "ProvisioningRequestConfig": (others.ProvisioningRequestConfigSpec,
                                  others.ProvisioningRequestConfigSpec, False),
    "Topology": (others.TopologySpec, others.TopologySpec, True),
    "MultiKueueConfig": (others.MultiKueueConfigSpec, others.MultiKueueConfigSpecV1Beta1, False),
    "MultiKueueCluster": (others.MultiKueueClusterSpec, others.MultiKueueClusterSpecV1Beta1,
                          False),
    "Workload": (workload.WorkloadSpec, workload.WorkloadSpecV1Beta1, False),
}


def _build() -> dict:
    models = {}
    for kind, (v2, v1, required) in _SPECS.items():
        models[(KUEUE, "v1beta2", kind)] = object_model(KUEUE, "v1beta2", kind, v2,
                                                        spec_required=required)
        models[(KUEUE, "v1beta1", kind)] = object_model(KUEUE, "v1beta1", kind, v1,
                                                        spec_required=required)
    for version, limit in (("v1beta2", 2048), ("v1beta1", None)):
        models[(KUEUE, version, "WorkloadPriorityClass")] = object_model(
            KUEUE, version, "WorkloadPriorityClass", value=(Int32, ...),
            description=(Optional[Annotated[str, Field(max_length=limit)]], None))
    models[(CONFIG, "v1beta2", "Configuration")] = ConfigurationV1Beta2
    models[(CONFIG, "v1beta1", "Configuration")] = ConfigurationV1Beta1
    return models


MODELS = _build()
