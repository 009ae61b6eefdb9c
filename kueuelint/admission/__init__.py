"""Dry admission: simulate Kueue's scheduler on a snapshot and explain each decision.

Modules, in pipeline order: ``build`` and ``workloads`` turn the inventory into a quota
``state`` (``accounting.quota`` does the arithmetic) and pending records, ``settings`` reads
what the Kueue Configuration changes (fair sharing, feature gates); ``scheduler`` runs
the cycles (``queues`` per ClusterQueue, ``flavors`` to assign flavors, ``candidates`` to list
who could be preempted, ``preemption`` and ``fairsharing`` for victims); ``explain`` gathers
what the reports say about each workload (``report.admission_json`` and ``admission_text``
format it). Two helpers keep the cycles cheap without changing any decision:
``whatif`` answers quota questions about hypothetical removals without touching the tree, and
``memo`` reuses answers while the usage of their flavor/resources in their cohort tree is
unchanged (tests/test_admission_memo.py checks that it is invisible). ``partition`` simulates
cohort trees apart, in two processes for large snapshots (tests/test_admission_trees.py).

On the paths every nomination and preemption search takes, the code spells out what Python 3.11
makes dear: comparisons instead of ``min()`` and ``max()`` (which parse keyword arguments at
every call), and loops or small lists instead of generator expressions given to ``any()``,
``all()`` or ``sum()`` (a generator is resumed through a new interpreter call at every item).
Such places say "hot path" in a comment; callgrind counted 5% of a large simulation's
instructions in them.

Topology-aware scheduling is simulated on the snapshot's Nodes and Pods (``nodes``, ``tas``,
``tas_counts``, ``tas_placement``, ``topology``), and check-capacity ProvisioningRequest
checks are decided on them (``capacity``). Deliberately not simulated (reported in the closing notes of issue 5):
MultiKueue and the other admission-check controllers (such a check is assumed to stay pending),
admission fair sharing, DRA, the DeferredFit recomputation (gate
RecomputeAssignmentUponPreemptionTargetsOverlap, off by default in v0.19.2), and PodsReady
timeouts. The flavor scan keeps its progress across cycles as Kueue's does
(FlavorFungibilityPreserveScanProgress, tests/test_admission_golden.py). Preempted workloads
are queued again; a workload preempted a fourth time marks a preemption ping-pong, which would
run forever, and its cohort tree's simulation stops after that cycle.
"""

from __future__ import annotations


def compiled() -> bool:
    """True when the simulator runs from the optional mypyc build (README, "Faster dry admission")."""
    from kueuelint.admission import scheduler

    return not scheduler.__file__.endswith(".py")


def quota_state(inventory):
    """The quota state of the run's ClusterQueues, Cohorts and flavors, for rules that ask what
    a queue could ever hold (unreadable quantities are the schema rules' to report)."""
    from kueuelint.admission.build import build_state

    return build_state(inventory)[0]


class InputError(Exception):
    """Incoming workloads that cannot be simulated; ``errors`` are one-line messages."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def input_errors(incoming_objects: list, inventory) -> list[str]:
    """``file:line:col: message`` for incoming workloads whose requests cannot be read."""
    from kueuelint.derive import workloads_of

    errors = []
    for obj in incoming_objects:
        for derived in workloads_of(obj, inventory):
            for path, message in derived.problems:
                where = obj.locate(path, at_value=True)
                errors.append(f"{where.path}:{where.line}:{where.column}: {message}")
    return errors


def admit(snapshot_objects: list, incoming_objects: list, max_cycles: int | None = None,
          jobs: int | None = None, progress=None):
    """Simulate admitting ``incoming_objects`` into the snapshot; returns (Result, Explained).
    ``jobs``: processes to use for large snapshots (None: the cores not busy); ``progress``:
    called with a line saying what is being done."""
    from kueuelint.admission.explain import explain
    from kueuelint.admission.run import simulate
    from kueuelint.derive import workloads_of
    from kueuelint.index.inventory import Inventory

    inventory = Inventory(list(snapshot_objects) + list(incoming_objects))
    errors = input_errors(incoming_objects, inventory)
    if errors:
        raise InputError(errors)
    incoming = [obj for obj in incoming_objects if workloads_of(obj, inventory)]
    result = simulate(inventory, incoming, max_cycles, jobs, progress)
    return result, explain(result)
