"""Workload (v1beta2 and v1beta1). Pod templates are taken as free-form objects: validating the
core Pod API is the job of the workload rules, and the CRD path when a CRD is loaded."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import Field, field_validator, model_validator

from kueuelint.models.common import (DNS_SUBDOMAIN_RE, DnsLabel, DnsSubdomain, Int32, KModel,
                                     unique_names)


class SliceConstraint(KModel):
    topology: Annotated[str, Field(min_length=1, max_length=63)]
    size: Annotated[Int32, Field(ge=1)]


class PodSetTopologyRequest(KModel):
    required: Optional[Annotated[str, Field(max_length=63)]] = None
    preferred: Optional[Annotated[str, Field(max_length=63)]] = None
    unconstrained: Optional[bool] = None
    pod_index_label: Optional[Annotated[str, Field(max_length=317)]] = None
    sub_group_index_label: Optional[Annotated[str, Field(max_length=317)]] = None
    sub_group_count: Optional[Annotated[Int32, Field(ge=0)]] = None
    pod_set_group_name: Optional[Annotated[str, Field(max_length=256)]] = None
    pod_set_slice_required_topology: Optional[Annotated[str, Field(max_length=63)]] = None
    pod_set_slice_size: Optional[Annotated[Int32, Field(ge=1)]] = None
    podset_slice_required_topology_constraints: Optional[
        Annotated[list[SliceConstraint], Field(max_length=3)]] = Field(
        default=None, alias="podsetSliceRequiredTopologyConstraints")


class PodSetTopologyRequestV1Beta1(KModel):
    required: Optional[str] = None
    preferred: Optional[str] = None
    unconstrained: Optional[bool] = None
    pod_index_label: Optional[str] = None
    sub_group_index_label: Optional[str] = None
    sub_group_count: Optional[Int32] = None
    pod_set_group_name: Optional[str] = None
    pod_set_slice_required_topology: Optional[str] = None
    pod_set_slice_size: Optional[Annotated[Int32, Field(ge=1)]] = None


class PodSet(KModel):
    name: DnsLabel = "main"
    template: dict[str, Any]
    count: Annotated[Int32, Field(ge=0)] = 1
    min_count: Optional[Annotated[Int32, Field(ge=1)]] = None
    topology_request: Optional[PodSetTopologyRequest] = None

    @model_validator(mode="after")
    def _min_count(self):
        if self.min_count is not None and self.min_count > self.count:
            raise ValueError("minCount should be positive and less or equal to count")
        return self


class PodSetV1Beta1(PodSet):
    count: Annotated[Int32, Field(ge=0)] = 1
    topology_request: Optional[PodSetTopologyRequestV1Beta1] = None


class PriorityClassRef(KModel):
    group: Literal["kueue.x-k8s.io", "scheduling.k8s.io"]
    kind: Literal["WorkloadPriorityClass", "PriorityClass"]
    name: Annotated[str, Field(pattern=DNS_SUBDOMAIN_RE, min_length=1, max_length=253)]

    @model_validator(mode="after")
    def _pairs(self):
        if self.group == "scheduling.k8s.io" and self.kind != "PriorityClass":
            raise ValueError("only the PriorityClass kind is allowed for the scheduling.k8s.io "
                             "group")
        if self.group == "kueue.x-k8s.io" and self.kind != "WorkloadPriorityClass":
            raise ValueError("only the WorkloadPriorityClass kind is allowed for the "
                             "kueue.x-k8s.io group")
        return self


class PreemptionGate(KModel):
    name: Annotated[str, Field(min_length=1, max_length=63)]


class WorkloadSpec(KModel):
    pod_sets: Optional[Annotated[list[PodSet], Field(min_length=1, max_length=18)]] = None
    queue_name: Optional[DnsSubdomain] = None
    priority_class_ref: Optional[PriorityClassRef] = None
    priority: Optional[Int32] = None
    active: bool = True
    maximum_execution_time_seconds: Optional[Annotated[Int32, Field(ge=1)]] = None
    preemption_gates: Optional[Annotated[list[PreemptionGate], Field(max_length=8)]] = None

    @model_validator(mode="after")
    def _priority(self):
        if self.priority_class_ref is not None and self.priority is None:
            raise ValueError("priority should not be nil when priorityClassRef is set")
        return self

    _unique_names = field_validator("pod_sets", "preemption_gates")(classmethod(
        lambda cls, items: unique_names(items)))


class WorkloadSpecV1Beta1(KModel):
    pod_sets: Annotated[list[PodSetV1Beta1], Field(min_length=1, max_length=18)]
    queue_name: Optional[DnsSubdomain] = None
    priority_class_name: Optional[DnsSubdomain] = None
    priority_class_source: Literal["kueue.x-k8s.io/workloadpriorityclass",
                                   "scheduling.k8s.io/priorityclass", ""] = ""
    priority: Optional[Int32] = None
    active: bool = True
    maximum_execution_time_seconds: Optional[Annotated[Int32, Field(ge=1)]] = None

    @model_validator(mode="after")
    def _priority(self):
        if self.priority_class_name is not None and self.priority is None:
            raise ValueError("priority should not be nil when priorityClassName is set")
        return self

    _unique_names = field_validator("pod_sets")(classmethod(lambda cls, items: unique_names(items)))
