"""Step 4's output: the workloads Kueue would create for an object, and their pod sets."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass
class PodSet:
    name: str
    count: int
    min_count: int | None = None            # partial admission (batch Job only)
    template: dict = field(default_factory=dict)   # pod template {"metadata": ..., "spec": ...}
    template_path: tuple = ()                # where the template sits in the object (for locations)
    # Per-pod requests as Kubernetes quantities after the pod-level rules (containers, init
    # containers, sidecars, overhead, limits-as-requests, LimitRange defaults).
    raw_requests: dict[str, Decimal] = field(default_factory=dict)
    # The same after Kueue's own transformation (excluded prefixes, transformations) in Kueue's
    # integer units: cpu in milli-units, everything else in whole units (bytes for memory).
    requests: dict[str, int] = field(default_factory=dict)
    # Where each resource was requested (resource -> field path), for pointing findings at it.
    request_paths: dict[str, tuple] = field(default_factory=dict)
    # Where the PodSpec sits in the object: usually template_path + ("spec",), but some kinds
    # inline the PodSpec (InferenceService components, Tekton task specs).
    spec_path: tuple = ()
    # Where each amount came from: "requests", "limits", "limit-range:<name>", "pod-resources",
    # "overhead", "runtime-class:<name>", or "default:<what>" for containers Kueue or the
    # operator adds (Ray autoscaler, RayJob submitter, Spark driver/executor sizing).
    request_origins: dict[str, str] = field(default_factory=dict)


@dataclass
class Workload:
    """What Kueue would queue for one object (a job, a pod group, or a single pod)."""

    name: str                                # Kueue-style workload key part (job name, group name)
    namespace: str | None
    pod_sets: list[PodSet] = field(default_factory=list)
    queue_name: str | None = None
    queue_name_path: tuple | None = None     # where the queue label is set
    priority_class: str | None = None
    per_pod: bool = False                    # Deployment-style: every pod is its own Workload
    group_name: str | None = None            # plain-pod groups
    group_total_count: int | None = None     # plain-pod groups: pods the whole group expects
    # Identical copies Kueue creates (per_pod kinds: one per pod, e.g. Deployment replicas).
    replicas: int = 1
    kind: str = ""                           # group/Kind of the object it was derived from
    problems: list[tuple[tuple, str]] = field(default_factory=list)  # (path, message), e.g. bad quantities

    def total_requests(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for pod_set in self.pod_sets:
            for resource, amount in pod_set.requests.items():
                totals[resource] = totals.get(resource, 0) + amount * pod_set.count
        return totals
