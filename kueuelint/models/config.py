"""The Kueue Configuration (config.kueue.x-k8s.io v1beta2 and v1beta1).

Kueue decodes this file strictly, so unknown fields stop the controller from starting; that is
why the models forbid extras. Blocks whose inner shape comes from other projects (exec configs
of credential providers) are accepted as free-form maps.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import Field, model_validator

from kueuelint.kueue.kinds import frameworks
from kueuelint.models.common import DURATION_RE, Int32, KModel, LabelSelector, Quantity

Duration = Annotated[str, Field(pattern=DURATION_RE)]
# Kueue lists the supported names sorted (jobframework.GetIntegrationsList), and so do we.
FRAMEWORKS = tuple(sorted(frameworks()))
PREEMPTION_STRATEGIES = (["LessThanOrEqualToFinalShare"], ["LessThanInitialShare"],
                         ["LessThanOrEqualToFinalShare", "LessThanInitialShare"])


class ControllerWebhook(KModel):
    port: Optional[int] = None
    host: Optional[str] = None
    cert_dir: Optional[str] = None


class CustomLabelV1Beta1(KModel):
    name: Annotated[str, Field(pattern=r"^[a-zA-Z_][a-zA-Z0-9_]*$")]
    source_label_key: Optional[str] = None
    source_annotation_key: Optional[str] = None

    @model_validator(mode="after")
    def _exclusive(self):
        if self.source_label_key and self.source_annotation_key:
            raise ValueError("sourceLabelKey and sourceAnnotationKey are mutually exclusive")
        return self


class CustomLabel(CustomLabelV1Beta1):
    source_kind: Optional[Literal["Cohort", "LocalQueue", "ClusterQueue", "Workload"]] = None
    tracked_values: Optional[list[str]] = None


class LocalQueueMetrics(KModel):
    enable: Optional[bool] = None
    local_queue_selector: Optional[LabelSelector] = None


class ControllerMetricsV1Beta1(KModel):
    bind_address: Optional[str] = None
    enable_cluster_queue_resources: Optional[bool] = None
    custom_labels: Optional[Annotated[list[CustomLabelV1Beta1], Field(max_length=20)]] = None
    local_queue_metrics: Optional[LocalQueueMetrics] = None


class ControllerMetrics(ControllerMetricsV1Beta1):
    custom_labels: Optional[Annotated[list[CustomLabel], Field(max_length=20)]] = None


class ControllerHealth(KModel):
    health_probe_bind_address: Optional[str] = None
    readiness_endpoint_name: Optional[str] = None
    liveness_endpoint_name: Optional[str] = None


class LeaderElection(KModel):
    leader_elect: Optional[bool] = None
    lease_duration: Optional[Duration] = None
    renew_deadline: Optional[Duration] = None
    retry_period: Optional[Duration] = None
    resource_lock: Optional[str] = None
    resource_name: Optional[str] = None
    resource_namespace: Optional[str] = None


class ControllerSpec(KModel):
    group_kind_concurrency: Optional[dict[str, int]] = None
    cache_sync_timeout: Optional[Duration] = None


class TLSOptions(KModel):
    min_version: Optional[str] = None
    cipher_suites: Optional[list[str]] = None
    curve_preferences: Optional[list[Int32]] = None


class RequeuingStrategy(KModel):
    timestamp: Optional[Literal["Eviction", "Creation"]] = None
    backoff_limit_count: Optional[Annotated[Int32, Field(ge=0)]] = None
    backoff_base_seconds: Optional[Annotated[Int32, Field(ge=0)]] = None
    backoff_max_seconds: Optional[Annotated[Int32, Field(ge=0)]] = None


class WaitForPodsReady(KModel):
    timeout: Optional[Duration] = None
    block_admission: Optional[bool] = None
    requeuing_strategy: Optional[RequeuingStrategy] = None
    recovery_timeout: Optional[Duration] = None


class InternalCertManagement(KModel):
    enable: Optional[bool] = None
    webhook_service_name: Optional[str] = None
    webhook_secret_name: Optional[str] = None


class ClientConnection(KModel):
    qps: Optional[float] = None
    burst: Optional[Int32] = None


class Integrations(KModel):
    frameworks: Optional[list[Literal[FRAMEWORKS]]] = None  # type: ignore[valid-type]
    external_frameworks: Optional[list[str]] = None
    label_keys_to_copy: Optional[list[str]] = None


class NamedFramework(KModel):
    name: str


class ProviderEntry(KModel):
    name: str
    exec_config: dict[str, Any]


class ClusterProfile(KModel):
    credentials_providers: Optional[list[ProviderEntry]] = None
    access_providers: Optional[list[ProviderEntry]] = None

    @model_validator(mode="after")
    def _exclusive(self):
        if self.credentials_providers and self.access_providers:
            raise ValueError("accessProviders and credentialsProviders are mutually exclusive")
        return self


class IncrementalDispatcherConfig(KModel):
    step_size: Optional[Annotated[Int32, Field(ge=1)]] = None


class MultiKueueV1Beta1(KModel):
    gc_interval: Optional[Duration] = Field(default=None, alias="gcInterval")
    origin: Optional[str] = None
    worker_lost_timeout: Optional[Duration] = None
    dispatcher_name: Optional[Literal["kueue.x-k8s.io/multikueue-dispatcher-all-at-once",
                                      "kueue.x-k8s.io/multikueue-dispatcher-incremental"]] = None
    external_frameworks: Optional[list[NamedFramework]] = None


class MultiKueue(MultiKueueV1Beta1):
    incremental_dispatcher_config: Optional[IncrementalDispatcherConfig] = None
    cluster_profile: Optional[ClusterProfile] = None


class FairSharing(KModel):
    preemption_strategies: list[Literal["LessThanOrEqualToFinalShare", "LessThanInitialShare"]]

    @model_validator(mode="after")
    def _combination(self):
        if list(self.preemption_strategies) not in PREEMPTION_STRATEGIES:
            raise ValueError("preemptionStrategies must be one of [LessThanOrEqualToFinalShare], "
                             "[LessThanInitialShare] or [LessThanOrEqualToFinalShare, "
                             "LessThanInitialShare]")
        return self


class AdmissionFairSharing(KModel):
    usage_half_life_time: Optional[Duration] = None
    usage_sampling_interval: Optional[Duration] = None
    resource_weights: Optional[dict[str, float]] = None


class ResourceTransformation(KModel):
    input: str
    strategy: Literal["Retain", "Replace"] = "Retain"
    multiply_by: Optional[str] = None
    outputs: Optional[dict[str, Quantity]] = None


class DeviceSource(KModel):
    name: str
    driver: Annotated[str, Field(max_length=63)]
    device_selector: dict[str, Any]   # a DRA DeviceSelector (CEL), shaped by Kubernetes


class DeviceClassSource(KModel):
    counter: Optional[DeviceSource] = None
    capacity: Optional[DeviceSource] = None

    @model_validator(mode="after")
    def _exactly_one(self):
        if (self.counter is None) == (self.capacity is None):
            raise ValueError("exactly one of counter and capacity must be set")
        return self


class DeviceClassMappingV1Beta1(KModel):
    name: str
    device_class_names: Annotated[list[str], Field(min_length=1, max_length=8)]


class DeviceClassMapping(DeviceClassMappingV1Beta1):
    sources: Optional[list[DeviceClassSource]] = None


class ResourcesV1Beta1(KModel):
    exclude_resource_prefixes: Optional[list[str]] = None
    transformations: Optional[list[ResourceTransformation]] = None
    device_class_mappings: Optional[Annotated[list[DeviceClassMappingV1Beta1], Field(max_length=16)]] = None


class Resources(ResourcesV1Beta1):
    device_class_mappings: Optional[Annotated[list[DeviceClassMapping], Field(max_length=16)]] = None
    quota_check_strategy: Optional[Literal["BlockUndeclared", "IgnoreUndeclared"]] = None


class WorkloadRetention(KModel):
    after_finished: Optional[Duration] = None
    after_deactivated_by_kueue: Optional[Duration] = None


class ObjectRetentionPolicies(KModel):
    workloads: Optional[WorkloadRetention] = None


class VisibilityServer(KModel):
    bind_address: Optional[str] = None
    bind_port: Optional[Annotated[int, Field(ge=1, le=65535)]] = None


class _Configuration(KModel):
    """The fields both versions share; each version adds its own below (Kueue 0.19.2)."""

    kind: Literal["Configuration"]
    namespace: Optional[str] = None
    manage_jobs_without_queue_name: Optional[bool] = None
    managed_jobs_namespace_selector: Optional[LabelSelector] = None
    internal_cert_management: Optional[InternalCertManagement] = None
    client_connection: Optional[ClientConnection] = None
    admission_fair_sharing: Optional[AdmissionFairSharing] = None
    feature_gates: Optional[dict[str, bool]] = None
    object_retention_policies: Optional[ObjectRetentionPolicies] = None
    webhook: Optional[ControllerWebhook] = None
    leader_election: Optional[LeaderElection] = None
    health: Optional[ControllerHealth] = None
    pprof_bind_address: Optional[str] = None
    controller: Optional[ControllerSpec] = None
    tls: Optional[TLSOptions] = None


class ConfigurationV1Beta2(_Configuration):
    api_version: Literal["config.kueue.x-k8s.io/v1beta2"] = Field(alias="apiVersion")
    wait_for_pods_ready: Optional[WaitForPodsReady] = None
    integrations: Optional[Integrations] = None
    multi_kueue: Optional[MultiKueue] = None
    fair_sharing: Optional[FairSharing] = None
    resources: Optional[Resources] = None
    metrics: Optional[ControllerMetrics] = None
    visibility_server: Optional[VisibilityServer] = None


class WaitForPodsReadyV1Beta1(WaitForPodsReady):
    enable: Optional[bool] = None


class FairSharingV1Beta1(KModel):
    enable: Optional[bool] = None
    preemption_strategies: Optional[list[Literal["LessThanOrEqualToFinalShare",
                                                 "LessThanInitialShare"]]] = None


class PodOptions(KModel):
    namespace_selector: Optional[LabelSelector] = None
    pod_selector: Optional[LabelSelector] = None


class IntegrationsV1Beta1(Integrations):
    pod_options: Optional[PodOptions] = None


class ClusterQueueVisibility(KModel):
    max_count: Optional[Int32] = None


class QueueVisibility(KModel):
    cluster_queues: Optional[ClusterQueueVisibility] = None
    update_interval_seconds: Optional[Int32] = None


class ConfigurationV1Beta1(_Configuration):
    api_version: Literal["config.kueue.x-k8s.io/v1beta1"] = Field(alias="apiVersion")
    wait_for_pods_ready: Optional[WaitForPodsReadyV1Beta1] = None
    integrations: Optional[IntegrationsV1Beta1] = None
    multi_kueue: Optional[MultiKueueV1Beta1] = None
    fair_sharing: Optional[FairSharingV1Beta1] = None
    resources: Optional[ResourcesV1Beta1] = None
    metrics: Optional[ControllerMetricsV1Beta1] = None
    queue_visibility: Optional[QueueVisibility] = None
