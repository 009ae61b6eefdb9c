"""AdmissionCheck, ProvisioningRequestConfig, WorkloadPriorityClass, Topology, MultiKueue."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import Field, field_validator, model_validator

from kueuelint.models.common import (DNS_LABEL_RE, DNS_SUBDOMAIN_RE, KIND_RE, QUALIFIED_NAME_RE,
                                     Int32, Int64, KModel, QualifiedName)

HOSTNAME = "kubernetes.io/hostname"


def _text(pattern=None, max_length=None, min_length=0):
    return Annotated[str, Field(pattern=pattern, max_length=max_length, min_length=min_length)]


class AdmissionCheckParametersReference(KModel):
    api_group: _text(DNS_SUBDOMAIN_RE, 253, 1)
    kind: _text(KIND_RE, 63, 1)
    name: _text(DNS_LABEL_RE, 63, 1)


class AdmissionCheckSpec(KModel):
    controller_name: _text(None, 253, 1)
    parameters: Optional[AdmissionCheckParametersReference] = None


class AdmissionCheckSpecV1Beta1(KModel):
    controller_name: str
    parameters: Optional[AdmissionCheckParametersReference] = None
    retry_delay_minutes: Int64 = 15


class ProvisioningRequestPodSetUpdatesNodeSelector(KModel):
    key: _text(QUALIFIED_NAME_RE, 317, 1)
    value_from_provisioning_class_detail: _text(None, 32768, 1)


class ProvisioningRequestPodSetUpdates(KModel):
    node_selector: Optional[Annotated[list[ProvisioningRequestPodSetUpdatesNodeSelector],
                                      Field(max_length=8)]] = None


class ProvisioningRequestRetryStrategy(KModel):
    backoff_limit_count: Int32 = 3
    backoff_base_seconds: Int32 = 60
    backoff_max_seconds: Int32 = 1800


class ProvisioningRequestConfigSpec(KModel):
    provisioning_class_name: _text(DNS_SUBDOMAIN_RE, 253, 1)
    parameters: Optional[Annotated[dict[str, _text(None, 255)], Field(max_length=100)]] = None
    managed_resources: Optional[Annotated[list[str], Field(max_length=100)]] = None
    retry_strategy: Optional[ProvisioningRequestRetryStrategy] = None
    pod_set_updates: Optional[ProvisioningRequestPodSetUpdates] = None
    pod_set_merge_policy: Optional[Literal["IdenticalPodTemplates",
                                           "IdenticalWorkloadSchedulingRequirements"]] = None


class TopologyLevel(KModel):
    node_label: QualifiedName


class TopologySpec(KModel):
    levels: Annotated[list[TopologyLevel], Field(min_length=1, max_length=16)]

    @field_validator("levels")
    @classmethod
    def _levels(cls, levels):
        labels = [level.node_label for level in levels]
        if len(set(labels)) != len(labels):
            raise ValueError("must be unique")
        if HOSTNAME in labels and labels[-1] != HOSTNAME:
            raise ValueError("the kubernetes.io/hostname label can only be used at the lowest "
                             "level of topology")
        return levels


class MultiKueueConfigSpec(KModel):
    clusters: Annotated[list[_text(None, 256)], Field(min_length=1, max_length=20)]
    quota_management: Optional[Literal["Manual", "Automated"]] = None

    @field_validator("clusters")
    @classmethod
    def _unique(cls, clusters):
        if len(set(clusters)) != len(clusters):
            raise ValueError("must be unique")
        return clusters


class MultiKueueConfigSpecV1Beta1(KModel):
    clusters: Annotated[list[str], Field(min_length=1, max_length=20)]

    @field_validator("clusters")
    @classmethod
    def _set(cls, clusters):
        if len(set(clusters)) != len(clusters):
            raise ValueError("duplicate value (the list is a set)")
        return clusters


class KubeConfig(KModel):
    location: _text(None, 256, 1)
    location_type: Literal["Secret", "Path"] = "Secret"


class ClusterProfileReference(KModel):
    name: _text(None, 256, 1)


class ClusterSource(KModel):
    kube_config: Optional[KubeConfig] = None
    cluster_profile_ref: Optional[ClusterProfileReference] = None

    @model_validator(mode="after")
    def _exactly_one(self):
        if (self.kube_config is None) == (self.cluster_profile_ref is None):
            raise ValueError("exactly one of the fields in [kubeConfig clusterProfileRef] "
                             "must be set")
        return self


class MultiKueueClusterSpec(KModel):
    cluster_source: ClusterSource


class KubeConfigV1Beta1(KModel):
    location: str
    location_type: Literal["Secret", "Path"] = "Secret"


class MultiKueueClusterSpecV1Beta1(KModel):
    kube_config: KubeConfigV1Beta1
    cluster_profile_ref: Optional[ClusterProfileReference] = None


WorkloadPriorityValue = Int32
DescriptionV1Beta2 = Optional[_text(None, 2048)]
