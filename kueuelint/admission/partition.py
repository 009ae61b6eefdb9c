"""Cohort trees simulated apart when the run is large, shared with a forked process when a
second core is free.

Trees share neither quota nor victims, and every decision about a workload reads its own tree
only, so two simulators that each own whole trees decide exactly what one simulator of all of
them does. The scheduler ranks each preemption (and warning) by the place it would have in a
single simulation; merging sorts by that rank. Each process reads the snapshot's holders of
the trees it takes (``State.read_holders``). The child sends back its outcomes and the end
state of its trees (usage per node and the holders it added or removed). If the child fails,
this process simulates the trees it did not deliver: the split only ever saves time.
"""

from __future__ import annotations

import os
import pickle
import select
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from kueuelint.admission.model import Admitted, ClusterQueue, Pending
from kueuelint.admission.model import Target
from kueuelint.admission.scheduler import Outcome, Simulator, safety_limit
from kueuelint.admission.state import State
from kueuelint.cores import default_jobs
from kueuelint.forked import Child, unpickled

# Fewer queued workloads than this take about a second or less in one process, where a fork
# and the exchange of results would eat most of what a second core saves; they are simulated
# all together, as Kueue does.
MIN_QUEUED_TO_SPLIT = 2000

Kept = TypeVar("Kept")


@dataclass
class Schedule:
    """What the cycles decided, for every tree."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    preempted: list[Target] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cycles: int = 1


@dataclass
class _TreeResult:
    """One cohort tree's results with their merge ranks, and the tree's end state."""

    outcomes: dict[str, Outcome]
    preempted: list[tuple[tuple, Target]]
    warnings: list[tuple[tuple, str]]
    cycles: int
    queue_usage: dict[str, dict] = field(default_factory=dict)
    cohort_usage: dict[str, dict] = field(default_factory=dict)
    removed: list[tuple[str, str]] = field(default_factory=list)    # (queue, key)
    added: list[Admitted] = field(default_factory=list)


def schedule(state: State, namespaces: dict, queued: list[Pending], max_cycles: int | None,
             requeue_lookup: Callable[[Admitted], Pending | None], jobs: int | None = None,
             progress: Callable[[str], None] | None = None) -> Schedule:
    """Run the cycles for ``queued`` (workloads whose ClusterQueue exists and is active);
    ``progress`` is told the cycles of this process (never the child's: one terminal line)."""
    trees = _trees(state, queued)
    if len(trees) < 2 or len(queued) < MIN_QUEUED_TO_SPLIT:
        simulator = _simulator(state, namespaces, None, queued, requeue_lookup)
        if progress is not None:
            simulator.on_cycle = lambda number: progress(f"simulating: cycle {number}")
        simulator.run(max_cycles)
        return Schedule(simulator.outcomes, simulator.preempted, simulator.warnings, simulator.cycles)
    limit = safety_limit(len({(wl.cluster_queue, wl.key) for wl in queued}))
    forking = _may_fork(jobs)
    how = "simulating in two processes" if forking else "simulating"

    def run_tree(index: int, told: Callable[[str], None] | None = None, sent: bool = True) -> _TreeResult:
        names, tree_queued = trees[index]
        on_cycle = None if told is None else (
            lambda number: told(f"{how}: cohort tree {index + 1} of {len(trees)}, cycle {number}"))
        return _simulate_tree(state, namespaces, names, tree_queued, requeue_lookup, max_cycles, limit, on_cycle,
                              sent)

    def run_tree_here(index: int) -> _TreeResult:
        return run_tree(index, progress, sent=False)

    if not forking:
        # One process still takes the trees one at a time: each tree's memoised answers are
        # dropped when it is done, and a small memo is a fast one (at the scale 1,500
        # answers instead of 30,000; 3.9 s instead of 5.4 s in one process).
        return _merge([run_tree_here(index) for index in range(len(trees))])
    tasks = _TaskPipe.fill(len(trees))
    child = Child.start(lambda: _drain(tasks, lambda index: _packed(run_tree(index)))) \
        if tasks is not None else None
    try:
        own = _drain(tasks, run_tree_here) if tasks is not None else []
    except BaseException:
        if child is not None:
            child.stop()
        raise
    finally:
        if tasks is not None:
            os.close(tasks.reader)
    others = child.result(lambda packed: _unpacked_and_adopted(state, trees, packed)) \
        if child is not None else None
    if others is None:      # no child, or it failed: whatever it had taken is done here
        done = {index for index, _ in own}
        others = [(index, run_tree_here(index)) for index in range(len(trees)) if index not in done]
    return _merge([result for _, result in own + others])


def _may_fork(jobs: int | None) -> bool:
    return hasattr(os, "fork") and (jobs if jobs is not None else default_jobs()) > 1


def _simulator(state, namespaces, names, queued, requeue_lookup) -> Simulator:
    simulator = Simulator(state, namespaces, names)
    simulator.requeue_lookup = requeue_lookup
    for workload in queued:
        if names is None or workload.cluster_queue in simulator.queues:
            simulator.enqueue(workload)
    return simulator


def _trees(state: State, queued: list[Pending]) -> list[tuple[list[str], list[Pending]]]:
    """(queue names, queued workloads) of each cohort tree with work, likely longest first; a
    tree with nothing queued has nothing to decide."""
    tree_of = {name: id(node.root()) for name, node in state.tree.queues.items()}
    _join_trees_sharing_nodes(state, tree_of)
    names: dict[int, list[str]] = {}
    for name in state.queues:
        names.setdefault(tree_of.get(name, 0), []).append(name)
    work: dict[int, list[Pending]] = {}
    for workload in queued:
        work.setdefault(tree_of.get(workload.cluster_queue, 0), []).append(workload)
    order = sorted(work, key=lambda root: (-_expected_cost(state, names[root], work[root]), names[root][0]))
    return [(names[root], work[root]) for root in order]


def _join_trees_sharing_nodes(state: State, tree_of: dict[str, int]) -> None:
    """Trees whose queues place pods on TAS flavors share the nodes: they go together."""
    topology = state.topology
    if topology is None:
        return
    sharing = {tree_of.get(name, 0) for name, cq in state.queues.items()
               if any(topology.flavors.get(f) is not None for g in cq.groups for f in g.flavors)}
    if len(sharing) > 1:
        joined = min(sharing)
        for name, tree in tree_of.items():
            if tree in sharing:
                tree_of[name] = joined


def _expected_cost(state: State, names: list[str], queued: list[Pending]) -> int:
    """A rough measure of a tree's simulation time, to hand out long trees first: two processes
    taking trees from one pipe end together when the last trees are short. A head that does not
    fit searches for victims of each kind of eviction its queue allows (its own queue's, other
    queues'), and those searches cost most. By queued workloads alone, trees taking from 0.05
    to 0.65 s at the issue's scale came in almost random order."""
    searches = max((_eviction_kinds(state.queues[name]) for name in names), default=0)
    return len(queued) * (1 + searches)


def _eviction_kinds(cq: ClusterQueue) -> int:
    policy = cq.preemption
    return (policy.within not in ("", "Never")) + (policy.reclaim not in ("", "Never"))


def _drain(tasks: _TaskPipe, run_tree: Callable[[int], Kept]) -> list[tuple[int, Kept]]:
    """Simulate trees taken from ``tasks`` until none is left (the other process takes from
    the same pipe: a tree that turns out long keeps one process while the other goes on)."""
    done = []
    for index in iter(tasks.take, None):
        done.append((index, run_tree(index)))
    return done


def _packed(result: _TreeResult) -> bytes:
    """A child pickles each tree's results as soon as they are known, while this process is
    still busy with its own trees: pickling everything at the end kept it waiting (0.17 s of
    3.4 s for 20,000 queued workloads)."""
    return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)


def _unpacked(packed: list[tuple[int, bytes]] | None) -> list[tuple[int, _TreeResult]] | None:
    """The child's tree results; None if one cannot be read (then its trees are done here)."""
    if packed is None:
        return None
    results = [(index, unpickled(data)) for index, data in packed]
    return None if any(result is None for _, result in results) else results


def _unpacked_and_adopted(state: State, trees: list, packed) -> list[tuple[int, _TreeResult]] | None:
    """The child's tree results, their end state given to ``state``; None if unreadable."""
    others = _unpacked(packed)
    for index, result in others or []:
        _adopt(state, trees[index][0], result)
    return others


def _simulate_tree(state, namespaces, names, queued, requeue_lookup, max_cycles, limit,
                   on_cycle=None, sent: bool = True) -> _TreeResult:
    """``sent``: the results go to another process, with the tree's end state (a tree
    simulated here leaves its end state in ``state`` itself)."""
    simulator = _simulator(state, namespaces, names, queued, requeue_lookup)
    simulator.on_cycle = on_cycle
    before = {name: dict(state.held(name)) for name in names} if sent else {}
    simulator.run(max_cycles, limit)
    state.memo.forget()
    result = _TreeResult(simulator.outcomes, list(zip(simulator.ranks, simulator.preempted)),
                 list(zip(simulator.warning_ranks, simulator.warnings)), simulator.cycles)
    if sent:
        _record_end_state(state, names, before, result)
    return result


def _record_end_state(state: State, names: list[str], before: dict, result: _TreeResult) -> None:
    tree = state.tree
    cohorts = {}
    for name in names:
        node = tree.queues.get(name)
        if node is not None:
            result.queue_usage[name] = dict(node.usage)
            for cohort in node.path_to_root():
                cohorts[cohort.name] = cohort
        now = state.held(name)
        result.removed += [(name, key) for key, held in before[name].items() if now.get(key) is not held]
        result.added += [held for key, held in now.items() if before[name].get(key) is not held]
    result.cohort_usage = {name: dict(node.usage) for name, node in cohorts.items()}


def _adopt(state: State, names: list[str], result: _TreeResult) -> None:
    """Give this process's state the end state the child reached for its trees."""
    state.tree.replace_usage(result.queue_usage, result.cohort_usage)
    state.adopt_holders(names, result.removed, result.added)


def _merge(results: list[_TreeResult]) -> Schedule:
    outcomes, preempted, warnings = {}, [], []
    for result in results:
        outcomes.update(result.outcomes)
        preempted += result.preempted
        warnings += result.warnings
    preempted.sort(key=lambda pair: pair[0])
    warnings.sort(key=lambda pair: pair[0])
    return Schedule(outcomes, [target for _, target in preempted], [text for _, text in warnings],
                    max(result.cycles for result in results))


class _TaskPipe:
    """Tree numbers written once into a pipe that both processes read: a read of two bytes
    from a pipe is atomic, so each tree is taken by exactly one of them."""

    def __init__(self, reader: int) -> None:
        self.reader = reader

    @classmethod
    def fill(cls, count: int) -> _TaskPipe | None:
        data = b"".join(index.to_bytes(2, "big") for index in range(count))
        if count >= 1 << 16 or len(data) > select.PIPE_BUF * 16:
            return None         # more than a pipe buffer surely holds: not worth the risk
        reader, writer = os.pipe()
        os.write(writer, data)
        os.close(writer)
        return cls(reader)

    def take(self) -> int | None:
        data = os.read(self.reader, 2)
        return int.from_bytes(data, "big") if len(data) == 2 else None
