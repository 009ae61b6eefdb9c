"""Entry point of the dry admission: inventory in, per-workload outcomes out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kueuelint import collector
from kueuelint.admission.build import build_state
from kueuelint.admission.model import INADMISSIBLE, Admitted, Pending
from kueuelint.admission.model import Target
from kueuelint.admission.partition import schedule
from kueuelint.admission.scheduler import Outcome
from kueuelint.admission.state import State
from kueuelint.admission.workloads import (
    HOLDS, WAITS, Priorities, admitted_from_workload, mapping_at, pending_from_derived, spec_priority,
    standing,
)
from kueuelint.derive import workloads_of

WORKLOAD_KEY = "kueue.x-k8s.io/Workload"
DEFAULT_QUEUE = "default"
UNMANAGED_NAMESPACES = ("kube-system", "kueue-system")
PROGRESS_EVERY = 2000       # Workloads read between two progress calls


@dataclass
class Result:
    pending: list[Pending]
    outcomes: dict[str, Outcome]
    preempted: list[Target]
    cycles: int
    state: State
    warnings: list[str] = field(default_factory=list)
    incoming: set[str] = field(default_factory=set)     # keys of the workloads given to admit
    # workload key -> states of its check-capacity admission checks (capacity.decide_checks)
    checks: dict[str, list[dict]] = field(default_factory=dict)


def simulate(inventory, incoming: list, max_cycles: int | None = None, jobs: int | None = None,
             progress: Callable[[str], None] | None = None) -> Result:
    """Simulate Kueue's scheduler on ``inventory``; ``incoming`` are the objects to admit.
    ``jobs``: processes to use (None: the idle cores; large runs only, see ``partition``);
    ``progress``: called now and then with a line saying what is being done."""
    # Hundreds of thousands of small records that live until the end; a few hundred cycles.
    with collector.paused(freeze=True):
        return _simulate(inventory, incoming, max_cycles, jobs, progress or _quiet)


def _topologies(inventory):
    from kueuelint.admission.topology import build_topologies     # TAS runs only need it

    return build_topologies(inventory)


def _quiet(text: str) -> None:
    pass


def _simulate(inventory, incoming: list, max_cycles: int | None, jobs: int | None,
              progress: Callable[[str], None]) -> Result:
    state, warnings = build_state(inventory, *_config_flags(inventory))
    state.topology = _topologies(inventory)
    _apply_configuration(state, inventory)
    priorities = Priorities(inventory)
    pending, unread, positions = _snapshot_workloads(inventory, incoming, priorities, progress)
    holders: dict[str, dict[str, object]] = {}     # queue -> key -> Workload, to requeue a victim
    # Holders become records when their cohort tree is simulated, by the process that does it.
    state.defer_holders(unread, _holder_reader(priorities, holders, positions))
    first_incoming = len(pending)
    for obj in incoming:
        pending += _with_stand_in_uid(_pending_of(obj, inventory, priorities, len(pending)), obj, positions)
    outcomes: dict[str, Outcome] = {}
    queued = []
    routes: dict[tuple, _Route] = {}
    for workload in pending:
        problem = _resolve_queue(workload, inventory, state, routes)
        if problem is not None:
            outcomes[workload.key] = Outcome(INADMISSIBLE, problem[0], problem[1], workload.cluster_queue)
        else:
            queued.append(workload)

    def requeued(held: Admitted) -> Pending | None:
        return _requeued(holders.get(held.cluster_queue, {}).get(held.key), held, inventory, priorities)

    done = schedule(state, _namespace_labels(inventory), queued, max_cycles, requeued, jobs, progress)
    outcomes.update(done.outcomes)
    state.read_unadopted()
    result = Result(pending, outcomes, done.preempted, done.cycles, state, warnings + done.warnings,
                    {wl.key for wl in pending[first_incoming:]})
    if inventory.kueue_of_kind("AdmissionCheck"):
        from kueuelint.admission.capacity import decide_checks     # only setups with checks need it

        result.checks = decide_checks(inventory, result)
    return result


class _Positions:
    """Where each Workload object (incoming ones too) stands in the input, worked out on the
    first question: only a workload without a UID asks (kubectl writes every Workload's)."""

    def __init__(self, workloads: list) -> None:
        self._workloads = workloads
        self._by_id: dict[int, int] | None = None

    def get(self, obj) -> int | None:
        if self._by_id is None:
            self._by_id = {id(workload): number for number, workload in enumerate(self._workloads)}
        return self._by_id.get(id(obj))


def _snapshot_workloads(inventory, incoming: list, priorities: Priorities, progress: Callable[[str], None]
                        ) -> tuple[list[Pending], dict[str, list], _Positions]:
    """The snapshot's pending workloads, its holders' Workloads per queue, and where each
    Workload object stands in the input."""
    incoming_ids = {id(obj) for obj in incoming}
    pending: list[Pending] = []
    unread: dict[str, list] = {}
    workloads = inventory.of_kind(WORKLOAD_KEY)
    positions = _Positions(list(workloads))      # as they stand now, should the inventory grow
    for number, obj in enumerate(workloads):
        if number % PROGRESS_EVERY == 0:
            progress(f"reading Workloads: {number:,}/{len(workloads):,}")
        if incoming_ids and id(obj) in incoming_ids:
            continue
        state_now, queue = standing(obj)
        if state_now == HOLDS and queue is not None:
            listed = unread.get(queue)     # not setdefault: a new empty list per holder
            if listed is None:
                unread[queue] = [obj]
            else:
                listed.append(obj)
        elif state_now == WAITS:
            pending += _with_stand_in_uid(_pending_of(obj, inventory, priorities, len(pending)), obj, positions)
    return pending, unread, positions


def _stand_in_uid(obj, positions: _Positions) -> str | None:
    """A UID for a Workload written without one, or None when it has one (or is no Workload)."""
    if mapping_at(obj, "metadata").get("uid"):
        return None
    return _position_uid(obj, positions)


def _position_uid(obj, positions: _Positions) -> str | None:
    """Kueue breaks ties between preemption candidates (same priority, admitted in the same
    second) by UID; an API server would have numbered them in the order they were created,
    which is the order of the input, so the position comes first."""
    position = positions.get(obj)
    return None if position is None else f"{position:09d}-{obj.namespace}-{obj.name}"


def _with_stand_in_uid(records: list[Pending], obj, positions: _Positions) -> list[Pending]:
    uid = _stand_in_uid(obj, positions)
    if uid is not None:
        for record in records:
            record.uid = uid
    return records


def _holder_reader(priorities: Priorities, holders: dict[str, dict[str, object]], positions: _Positions
                   ) -> Callable[[str, list], list[Admitted]]:
    """Makes the records of one queue's holders, noting each one's Workload in ``holders``
    (queue -> key -> Workload) for a requeue."""
    def stand_in_uid(obj) -> str | None:
        return _position_uid(obj, positions)

    def read(queue: str, objs: list) -> list[Admitted]:
        made, known = [], holders.setdefault(queue, {})
        for obj in objs:
            held = admitted_from_workload(obj, priorities, stand_in_uid)
            if held is not None:
                made.append(held)
                known[held.key] = obj
        return made

    return read


def _config_flags(inventory) -> tuple[bool, bool]:
    from kueuelint.accounting.requests import ResourcesConfig
    from kueuelint.admission.settings import fair_sharing_enabled

    config = inventory.kueue_configuration() or {}
    ignore = ResourcesConfig.from_configuration(config).quota_check_ignores_undeclared
    return ignore, fair_sharing_enabled(config)


def _apply_configuration(state: State, inventory) -> None:
    """The Configuration's fair-sharing strategies and the feature gates the scheduler follows."""
    from kueuelint.admission.settings import feature_gates

    config = inventory.kueue_configuration() or {}
    state.preserve_scan = feature_gates(config)["FlavorFungibilityPreserveScanProgress"]
    fair = config.get("fairSharing") if isinstance(config.get("fairSharing"), dict) else {}
    strategies = fair.get("preemptionStrategies")
    if isinstance(strategies, list) and strategies:
        state.fair_strategies = tuple(str(s) for s in strategies)


def _pending_of(obj, inventory, priorities: Priorities, seq: int) -> list[Pending]:
    # A Workload object states its priority and queue itself.
    stated = obj.key == WORKLOAD_KEY
    spec = mapping_at(obj, "spec") if stated else {}
    priority = spec_priority(spec, priorities) if stated else None
    queue = spec.get("queueName")
    records = []
    for derived in workloads_of(obj, inventory):
        limit_ranges = inventory.limit_ranges(derived.namespace or obj.namespace or "default")  # a new list
        made = pending_from_derived(obj, derived, seq + len(records), priorities, priority, limit_ranges)
        if isinstance(queue, str) and queue:
            for record in made:
                record.queue_name = queue
        records += made
    return records


def _requeued(obj, held, inventory, priorities: Priorities) -> Pending | None:
    """A preempted snapshot workload goes back to its queue (derived only when needed)."""
    if obj is None:
        return None
    records = _pending_of(obj, inventory, priorities, -1)
    if not records:
        return None
    records[0].cluster_queue = held.cluster_queue
    records[0].uid = held.uid       # the same Workload
    return records[0]


def _namespace_labels(inventory) -> dict[str, dict]:
    return {obj.name: dict(obj.labels) for obj in inventory.of_kind("Namespace")}


# A LocalQueue's way to its ClusterQueue: (queue name, ClusterQueue name or None, and
# (reason, message) when a workload sent there cannot even be queued).
_Route = tuple[str | None, str | None, tuple[str, str] | None]


def _resolve_queue(workload: Pending, inventory, state: State, routes: dict[tuple, _Route]) -> tuple[str, str] | None:
    """Find the ClusterQueue; (reason, message) when the workload cannot even be queued.
    ``routes``: the answers so far, per queue name and namespace (thousands of workloads
    share a few hundred LocalQueues)."""
    asked = (workload.queue_name, workload.namespace)
    route = routes.get(asked)
    if route is None:
        route = routes[asked] = _route(workload.queue_name, workload.namespace, inventory, state)
    workload.queue_name, cluster_queue, problem = route
    if cluster_queue is not None:
        workload.cluster_queue = cluster_queue
    return problem


def _route(name: str | None, namespace: str, inventory, state: State) -> _Route:
    if not name:
        # The default managedJobsNamespaceSelector leaves out Kueue's and the system namespace.
        unmanaged = namespace in UNMANAGED_NAMESPACES
        if unmanaged or inventory.kueue("LocalQueue", DEFAULT_QUEUE, namespace) is None:
            return name, None, ("Inadmissible", "the workload names no LocalQueue (label kueue.x-k8s.io/queue-name) "
                                "and its namespace has no LocalQueue named default; Kueue does not manage it")
        name = DEFAULT_QUEUE
    local_queue = inventory.kueue("LocalQueue", name, namespace)
    if local_queue is None:
        return name, None, ("Misconfigured", f"LocalQueue {name} doesn't exist")
    stop = local_queue.spec.get("stopPolicy")
    cq_name = local_queue.spec.get("clusterQueue")
    if not isinstance(cq_name, str) or not cq_name:
        return name, None, ("Misconfigured", f"LocalQueue {name} names no ClusterQueue")
    if stop and stop != "None":
        return name, cq_name, ("Suspended", f"LocalQueue {name} is stopped")
    cq = state.queues.get(cq_name)
    if cq is None:
        return name, cq_name, ("Misconfigured", f"ClusterQueue {cq_name} doesn't exist")
    if cq.inactive is not None:
        return name, cq_name, ("Suspended", f"ClusterQueue {cq.name} is inactive")
    return name, cq_name, None
