"""Plain data the admission simulator works on, decoupled from Kubernetes objects.

Records made by the hundred thousand in the simulator's loop (here and in flavors, preemption
and scheduler) define ``__init__`` themselves: the compiled build compiles that one, while the
``__init__`` that @dataclass generates stays interpreted code setting attributes one by one
(about 3,000 machine instructions per record). @dataclass still gives them repr and equality.
Records a forked simulator sends back (Admitted, Outcome, Assignment, PodSetResult, Target)
keep the generated one: a compiled class with its own ``__init__`` cannot be unpickled from a
state dict. Admitted, Outcome and Target are pickled as their constructor's arguments instead
(``__reduce__``), which unpickles in half the time; ``sent_fields`` derives those arguments
from the dataclass fields, so that a new field travels too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import IntEnum, StrEnum
from operator import attrgetter
from typing import Any, Callable

from kueuelint.accounting.quota import FR

def sent_fields(cls: type, kept_home: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The fields a record's ``__reduce__`` passes to its constructor, in the constructor's order:
    all but ``kept_home`` and private caches (named with a leading underscore). Those must come
    last, or the positional arguments would land in the wrong fields: refused at import."""
    names = [f.name for f in fields(cls)]
    sent = tuple(name for name in names if name not in kept_home and not name.startswith("_"))
    if names[:len(sent)] != list(sent):
        raise TypeError(f"{cls.__name__}: fields not pickled must come after those that are")
    return sent


def constructor_args(cls: type, kept_home: tuple[str, ...] = ()) -> Callable[[Any], tuple]:
    """What ``__reduce__`` returns as ``cls``'s arguments: the ``sent_fields`` of a record, read
    by one C call (a loop of getattr costs three times as much per record)."""
    names = sent_fields(cls, kept_home)
    if len(names) < 2:
        raise TypeError(f"{cls.__name__}: a record pickled as its arguments needs two fields or more")
    return attrgetter(*names)


def as_list(value) -> list:
    """``value`` if it is a list, else [] (hand-written YAML can hold anything anywhere)."""
    return value if isinstance(value, list) else []


def as_dict(value) -> dict:
    return value if isinstance(value, dict) else {}


class Mode(IntEnum):
    """Granular modes of the flavor assigner, worst first (kueue-scheduler.md §2.3): they are
    compared and combined with ``min``, hence ints."""

    NO_FIT = 0
    NO_CANDIDATES = 1
    PREEMPT = 2
    RECLAIM = 3
    FIT = 4


# The flavor assigner compares modes for every resource of every head: it reads them from
# module globals, as plain ints. CPython's fast paths for comparing ints take exact ints only,
# and Mode members there cost the simulation 1.9% more instructions (callgrind, bench scale 0.05).
NO_FIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = (int(Mode.NO_FIT), int(Mode.NO_CANDIDATES), int(Mode.PREEMPT),
                                               int(Mode.RECLAIM), int(Mode.FIT))


class Decision(StrEnum):
    """Where a workload stands after the simulated cycles: the ``result`` of the JSON report."""

    ADMITTED = "admitted"
    PREEMPTING = "preempting"          # admitted once the workloads it preempts are gone
    PENDING = "pending"
    INADMISSIBLE = "inadmissible"


ADMITTED, PREEMPTING, PENDING, INADMISSIBLE = (Decision.ADMITTED, Decision.PREEMPTING, Decision.PENDING,
                                               Decision.INADMISSIBLE)


class PreemptionReason(StrEnum):
    """Why a workload is preempted: Kueue's reason on the victim's Evicted condition."""

    IN_CLUSTER_QUEUE = "InClusterQueue"
    IN_COHORT_RECLAMATION = "InCohortReclamation"
    IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
    IN_COHORT_FAIR_SHARING = "InCohortFairSharing"


@dataclass(frozen=True)
class ReasonText:
    """``kueue``: Kueue's own words (``HumanReadablePreemptionReasons``), which its messages
    quote; ``gloss``: the plain explanation the text report adds after the reason."""

    kueue: str
    gloss: str


PREEMPTION_REASONS: dict[str, ReasonText] = {
    PreemptionReason.IN_CLUSTER_QUEUE: ReasonText(
        "prioritization in the ClusterQueue", "lower priority in the same ClusterQueue"),
    PreemptionReason.IN_COHORT_RECLAMATION: ReasonText(
        "reclamation within the cohort", "reclaiming quota lent to the cohort"),
    PreemptionReason.IN_COHORT_RECLAIM_WHILE_BORROWING: ReasonText(
        "reclamation within the cohort while borrowing", "borrowWithinCohort (the preemptor still borrows)"),
    PreemptionReason.IN_COHORT_FAIR_SHARING: ReasonText(
        "Fair Sharing within the cohort", "fair sharing"),
}


# Pending reasons from most to least severe (§7).
SEVERITY = ("NoMatchingFlavor", "ExceedsMaxQuota", "WaitingForQuota")


@dataclass
class Flavor:
    name: str
    node_labels: dict = field(default_factory=dict)
    taints: list = field(default_factory=list)
    tolerations: list = field(default_factory=list)


@dataclass(frozen=True)
class ResourceGroup:
    resources: tuple[str, ...]
    flavors: tuple[str, ...]


@dataclass
class Preemption:
    within: str = "Never"
    reclaim: str = "Never"
    borrow_policy: str = "Never"
    borrow_threshold: int | None = None


@dataclass
class Fungibility:
    when_can_borrow: str = "MayStopSearch"
    when_can_preempt: str = "TryNextFlavor"
    preference: str = "BorrowingOverPreemption"


@dataclass
class ClusterQueue:
    name: str
    cohort: str | None = None
    groups: list[ResourceGroup] = field(default_factory=list)
    preemption: Preemption = field(default_factory=Preemption)
    fungibility: Fungibility = field(default_factory=Fungibility)
    strategy: str = "BestEffortFIFO"
    namespace_selector: dict | None = field(default_factory=dict)
    admission_checks: list[str] = field(default_factory=list)
    # check -> the flavors it applies to (admissionChecksStrategy's onFlavors); absent or
    # empty: every flavor
    check_flavors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    inactive: str | None = None          # why the queue is inactive (Active=False message)
    _group_index: dict[str, int] | None = field(default=None, repr=False, compare=False)

    def group_of(self, resource: str) -> int | None:
        # Asked for every resource of every head: index the groups once (a resource belongs to
        # one group; the first listing wins, as the linear scan did).
        index = self._group_index
        if index is None:
            index = {}
            for number, group in enumerate(self.groups):
                for name in group.resources:
                    index.setdefault(name, number)
            self._group_index = index
        return index.get(resource)

    def covers(self, resource: str) -> bool:
        return self.group_of(resource) is not None

    def checks_on(self, flavors: set[str]) -> list[str]:
        """The admission checks a workload admitted on ``flavors`` waits for: a check limited
        to some flavors applies only when the workload uses one of them (Kueue's
        ``AdmissionChecksForWorkload``)."""
        return [name for name in self.admission_checks
                if not self.check_flavors.get(name) or flavors & set(self.check_flavors[name])]


@dataclass
class PodSetSpec:
    """One pod set of a queued workload; ``per_pod`` is in Kueue units."""

    name: str
    count: int
    min_count: int | None = None
    per_pod: dict[str, int] = field(default_factory=dict)
    tolerations: list = field(default_factory=list)
    node_selector: dict = field(default_factory=dict)
    affinity_terms: list | None = None   # required node affinity terms, None when absent
    topology: Any = None              # its tas.TopologyRequest, None when it names none
    # (queue name, count) -> (ClusterQueue, its flavors, ignoreUndeclared, what the flavor
    # assigner asks of its resource groups); filled by the assigner.
    plans: dict[tuple[str, int], tuple] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __init__(self, name: str, count: int, min_count: int | None = None, per_pod: dict[str, int] | None = None,
                 tolerations: list | None = None, node_selector: dict | None = None,
                 affinity_terms: list | None = None, topology: Any = None) -> None:
        self.name, self.count, self.min_count = name, count, min_count
        self.topology = topology
        self.per_pod = {} if per_pod is None else per_pod
        self.tolerations = [] if tolerations is None else tolerations
        self.node_selector = {} if node_selector is None else node_selector
        self.affinity_terms = affinity_terms
        self.plans = {}


@dataclass(eq=False)
class Pending:
    """A workload waiting for quota: from the snapshot or from the command line."""

    key: str
    namespace: str
    name: str
    queue_name: str | None
    priority: int
    timestamp: float
    seq: int
    uid: str
    pod_sets: list[PodSetSpec] = field(default_factory=list)
    source: dict = field(default_factory=dict)
    cluster_queue: str | None = None
    invalid: str | None = None    # why the scheduler rejects the pod templates (request > limit)
    _shape: int | None = field(default=None, init=False, repr=False, compare=False)     # queues.shape_of
    # The flavor scan's progress an earlier cycle left (Kueue's ``LastAssignment``): per pod set
    # the last flavor index tried per resource, the cycle it was recorded in, and its
    # ClusterQueue's generation then. None: the next scan starts from the first flavor.
    scan: tuple[list[dict[str, int]], int, int] | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(self, key: str, namespace: str, name: str, queue_name: str | None, priority: int,
                 timestamp: float, seq: int, uid: str, pod_sets: list[PodSetSpec] | None = None,
                 source: dict | None = None, cluster_queue: str | None = None, invalid: str | None = None) -> None:
        self.key, self.namespace, self.name, self.queue_name = key, namespace, name, queue_name
        self.priority, self.timestamp, self.seq, self.uid = priority, timestamp, seq, uid
        self.pod_sets = [] if pod_sets is None else pod_sets
        self.source = {} if source is None else source
        self.cluster_queue, self.invalid = cluster_queue, invalid
        self._shape = None
        self.scan = None

    def order_key(self) -> tuple:
        """Kueue's order inside a ClusterQueue: priority, then queue-order time, then UID."""
        return (-self.priority, self.timestamp, self.seq, self.uid)


@dataclass(eq=False)
class Admitted:
    """A workload holding quota (snapshot, or admitted during the simulation)."""

    key: str
    cluster_queue: str
    priority: int
    usage: dict[FR, int]
    reserved_at: float
    timestamp: float = 0.0
    uid: str = ""
    evicted: bool = False
    pending: Pending | None = None       # how to requeue it after a preemption
    # Sort keys cached: none of what they read changes while the workload is held.
    _rank: tuple | None = field(default=None, repr=False, compare=False)
    _order: tuple | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict:
        """What crosses to another process: not the pending record (it is only needed to
        queue the workload again, in the process that preempts it) nor cached keys."""
        return {name: getattr(self, name) for name in _ADMITTED_SENT}

    def __reduce__(self) -> tuple:
        """Pickled as the arguments of the constructor (what ``__getstate__`` names): a
        child's results hold thousands of these, and one call per record unpickles them
        faster than setting a state dict attribute by attribute."""
        return Admitted, _admitted_args(self)

    def preemption_rank(self) -> tuple:
        """Kueue's candidate order among workloads of one queue: evicted first, then lower
        priority, most recently admitted, UID. Cached: none of these change while held."""
        rank = self._rank
        if rank is None:
            rank = self._rank = (not self.evicted, self.priority, -self.reserved_at, self.uid)
        return rank


_ADMITTED_SENT = sent_fields(Admitted, kept_home=("pending",))
_admitted_args = constructor_args(Admitted, kept_home=("pending",))


@dataclass
class Target:
    workload: Admitted
    reason: str

    def __reduce__(self) -> tuple:
        # Pickled as the constructor's arguments, which unpickle faster than a state dict
        # (a child's results hold thousands of these; see Admitted.__reduce__).
        return Target, _target_args(self)


_target_args = constructor_args(Target)
