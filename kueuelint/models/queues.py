"""ResourceFlavor, ClusterQueue, Cohort and LocalQueue (v1beta2, plus the v1beta1 differences)."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import Field, field_validator, model_validator

from kueuelint.models.common import (TAINT_EFFECT_MESSAGE, TAINT_EFFECTS, DnsSubdomain, Int32,
                                     KModel, LabelSelector, Quantity, Taint, Toleration,
                                     toleration_problems, unique_names)

StopPolicy = Literal["None", "Hold", "HoldAndDrain"]


class ResourceFlavorSpec(KModel):
    node_labels: Optional[Annotated[dict[str, str], Field(max_length=8)]] = None
    node_taints: Optional[Annotated[list[Taint], Field(max_length=8)]] = None
    tolerations: Optional[Annotated[list[Toleration], Field(max_length=8)]] = None
    topology_name: Optional[DnsSubdomain] = None

    @model_validator(mode="after")
    def _topology_needs_labels(self):
        if self.topology_name is not None and not self.node_labels:
            raise ValueError("at least one nodeLabel is required when topology is set")
        return self

    @field_validator("node_taints")
    @classmethod
    def _taint_effects(cls, taints):
        if any(t.effect not in TAINT_EFFECTS for t in taints or []):
            raise ValueError(TAINT_EFFECT_MESSAGE)
        return taints

    @field_validator("tolerations")
    @classmethod
    def _tolerations(cls, tolerations):
        problems = toleration_problems(tolerations)
        if problems:
            raise ValueError("; ".join(problems))
        return tolerations


class ResourceQuota(KModel):
    name: str
    nominal_quota: Quantity
    borrowing_limit: Optional[Quantity] = None
    lending_limit: Optional[Quantity] = None


class FlavorQuotas(KModel):
    name: DnsSubdomain
    resources: Annotated[list[ResourceQuota], Field(min_length=1, max_length=64)]

    _unique = field_validator("resources")(classmethod(lambda cls, items: unique_names(items)))


class ResourceGroup(KModel):
    covered_resources: Annotated[list[str], Field(min_length=1, max_length=64)]
    flavors: Annotated[list[FlavorQuotas], Field(min_length=1, max_length=64)]

    _unique = field_validator("flavors")(classmethod(lambda cls, items: unique_names(items)))

    @model_validator(mode="after")
    def _same_count(self):
        if any(len(f.resources) != len(self.covered_resources) for f in self.flavors):
            raise ValueError("flavors must have the same number of resources as the "
                             "coveredResources")
        return self


class FairSharing(KModel):
    weight: Quantity = 1


class BorrowWithinCohort(KModel):
    policy: Literal["Never", "LowerPriority"] = "Never"
    max_priority_threshold: Optional[Int32] = None


class Preemption(KModel):
    within_cluster_queue: Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"] = "Never"
    reclaim_within_cohort: Literal["Never", "LowerPriority", "Any"] = "Never"
    borrow_within_cohort: BorrowWithinCohort = Field(default_factory=BorrowWithinCohort)

    @model_validator(mode="after")
    def _reclaim_vs_borrow(self):
        if self.reclaim_within_cohort == "Never" and self.borrow_within_cohort.policy != "Never":
            raise ValueError("reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")
        return self


class FlavorFungibility(KModel):
    when_can_borrow: Literal["MayStopSearch", "TryNextFlavor"] = "MayStopSearch"
    when_can_preempt: Literal["MayStopSearch", "TryNextFlavor"] = "TryNextFlavor"
    preference: Optional[Literal["BorrowingOverPreemption", "PreemptionOverBorrowing"]] = None

    @model_validator(mode="after")
    def _preference(self):
        if self.preference is not None and not (
                self.when_can_borrow == "TryNextFlavor" == self.when_can_preempt):
            raise ValueError("preference can only be set when both whenCanBorrow and "
                             "whenCanPreempt are TryNextFlavor")
        return self


class FlavorFungibilityV1Beta1(FlavorFungibility):
    when_can_borrow: Literal["MayStopSearch", "TryNextFlavor", "Borrow"] = "MayStopSearch"
    when_can_preempt: Literal["MayStopSearch", "TryNextFlavor", "Preempt"] = "TryNextFlavor"


class AdmissionCheckStrategyRule(KModel):
    name: Annotated[str, Field(min_length=1, max_length=316)]
    on_flavors: Optional[Annotated[list[DnsSubdomain], Field(max_length=64)]] = None


class AdmissionChecksStrategy(KModel):
    admission_checks: Annotated[list[AdmissionCheckStrategyRule], Field(min_length=1,
                                                                        max_length=64)]

    _unique = field_validator("admission_checks")(classmethod(
        lambda cls, items: unique_names(items)))


class AdmissionScope(KModel):
    admission_mode: Literal["UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"]


class MigrationConstraints(KModel):
    last_acceptable_flavor_name: Optional[DnsSubdomain] = None


class Migration(KModel):
    mode: Literal["TryPreferredFlavors", "RetainFirstAdmission"]
    constraints: Optional[MigrationConstraints] = None


class ConcurrentAdmissionPolicy(KModel):
    migration: Migration


class _ClusterQueueSpecBase(KModel):
    resource_groups: Optional[Annotated[list[ResourceGroup], Field(max_length=16)]] = None
    queueing_strategy: Literal["StrictFIFO", "BestEffortFIFO"] = "BestEffortFIFO"
    namespace_selector: Optional[LabelSelector] = None
    preemption: Preemption = Field(default_factory=Preemption)
    fair_sharing: Optional[FairSharing] = None
    stop_policy: StopPolicy = "None"

    def _cohort(self):
        raise NotImplementedError

    @model_validator(mode="after")
    def _borrowing_needs_cohort(self):
        if self._cohort() is None and any(r.borrowing_limit is not None
                                          for g in self.resource_groups or []
                                          for f in g.flavors for r in f.resources):
            raise ValueError("borrowingLimit must be nil when cohort is empty")
        return self


class ClusterQueueSpec(_ClusterQueueSpecBase):
    cohort_name: Optional[DnsSubdomain] = None
    flavor_fungibility: FlavorFungibility = Field(default_factory=FlavorFungibility)
    admission_checks_strategy: Optional[AdmissionChecksStrategy] = None
    admission_scope: Optional[AdmissionScope] = None
    concurrent_admission_policy: Optional[ConcurrentAdmissionPolicy] = None

    def _cohort(self):
        return self.cohort_name


class AdmissionChecksStrategyV1Beta1(KModel):
    admission_checks: Optional[list[AdmissionCheckStrategyRule]] = None


class AdmissionScopeV1Beta1(KModel):
    admission_mode: str


class ClusterQueueSpecV1Beta1(_ClusterQueueSpecBase):
    cohort: Optional[DnsSubdomain] = None
    flavor_fungibility: FlavorFungibilityV1Beta1 = Field(default_factory=FlavorFungibilityV1Beta1)
    admission_checks: Optional[list[Annotated[str, Field(max_length=316)]]] = None
    admission_checks_strategy: Optional[AdmissionChecksStrategyV1Beta1] = None
    admission_scope: Optional[AdmissionScopeV1Beta1] = None

    def _cohort(self):
        return self.cohort


class CohortSpec(KModel):
    parent_name: Optional[DnsSubdomain] = None
    resource_groups: Optional[Annotated[list[ResourceGroup], Field(max_length=16)]] = None
    fair_sharing: Optional[FairSharing] = None


class LocalQueueSpec(KModel):
    cluster_queue: Optional[DnsSubdomain] = None
    stop_policy: StopPolicy = "None"
    fair_sharing: Optional[FairSharing] = None
