"""Property tests of the quota tree and the simulator on random cohorts and workloads."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueuelint.accounting.quota import QuotaTree, ResourceQuota
from kueuelint.admission.model import (
    ClusterQueue, Flavor, Pending, PodSetSpec, Preemption, ResourceGroup,
)
from kueuelint.admission.scheduler import Simulator
from kueuelint.admission.state import State

FLAVORS = ("f1", "f2")
POLICIES = ("Never", "LowerPriority", "Any")

quota = st.builds(
    ResourceQuota, st.integers(0, 10),
    st.one_of(st.none(), st.integers(0, 6)), st.one_of(st.none(), st.integers(0, 10)))
queue_spec = st.tuples(st.sampled_from(["c1", "c2", None]), st.lists(quota, min_size=2, max_size=2),
                       st.sampled_from(POLICIES), st.sampled_from(POLICIES))
workload_spec = st.tuples(st.integers(0, 3), st.integers(1, 6), st.integers(1, 3), st.integers(0, 2))


def build(queues) -> State:
    tree = QuotaTree()
    tree.add_cohort("c2", "c1")      # a small hierarchy: c2 below c1
    specs = {}
    for index, (cohort, quotas, within, reclaim) in enumerate(queues):
        name = f"q{index}"
        fixed = {}
        for flavor, q in zip(FLAVORS, quotas):
            # Kueue forbids a borrowingLimit without a cohort.
            fixed[(flavor, "cpu")] = q if cohort else ResourceQuota(q.nominal, None, q.lending_limit)
        tree.add_cluster_queue(name, cohort, fixed)
        specs[name] = ClusterQueue(name, cohort, [ResourceGroup(("cpu",), FLAVORS)],
                                   Preemption("LowerPriority" if within == "Any" else within, reclaim))
    tree.finalize()
    return State(tree, specs, {f: Flavor(f) for f in FLAVORS})


def pending(workloads, order=None) -> list[Pending]:
    made = []
    for seq, (queue, cpu, count, priority) in enumerate(workloads):
        name = f"w{seq}"
        made.append(Pending(f"ns/{name}", "ns", name, "lq", priority, float(seq), seq, name,
                            [PodSetSpec("main", count, None, {"cpu": cpu})], cluster_queue=queue))
    return made


def simulate(state: State, workloads: list[Pending]) -> Simulator:
    simulator = Simulator(state)
    for workload in workloads:
        if workload.cluster_queue in state.queues:
            simulator.enqueue(workload)
    simulator.run()
    return simulator


def _queues_and_workloads():
    return st.lists(queue_spec, min_size=1, max_size=4).flatmap(
        lambda queues: st.tuples(st.just(queues), st.lists(
            workload_spec.map(lambda w: (f"q{w[0] % len(queues)}",) + w[1:]), max_size=12)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_queues_and_workloads())
def test_usage_never_exceeds_nominal_plus_borrowing(case):
    queues, workloads = case
    state = build(queues)
    simulate(state, pending(workloads))
    tree = state.tree
    for name, node in tree.queues.items():
        for fr, used in node.usage.items():
            q = node.quotas.get(fr, ResourceQuota())
            if node.parent is None:
                assert used <= q.nominal
            elif q.borrowing_limit is not None:
                assert used <= q.nominal + q.borrowing_limit
    for root in {id(n.root()): n.root() for n in tree.queues.values()}.values():
        for fr, used in root.usage.items():
            assert used <= root.subtree.get(fr, 0)


@settings(max_examples=150, deadline=None)
@given(st.lists(queue_spec, min_size=1, max_size=4), st.lists(st.tuples(st.integers(0, 3), st.integers(0, 8)), max_size=10))
def test_adding_usage_never_increases_free_quota(queues, additions):
    state = build(queues)
    tree = state.tree
    names = sorted(tree.queues)
    frs = [(f, "cpu") for f in FLAVORS]
    for index, amount in additions:
        before = {(q, fr): tree.available(q, fr) for q in names for fr in frs}
        tree.add_usage(names[index % len(names)], {frs[amount % 2]: amount})
        for key, value in before.items():
            assert tree.available(*key) <= value


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_queues_and_workloads(), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_input_order(case, rng):
    queues, workloads = case
    first = simulate(build(queues), pending(workloads))
    shuffled = pending(workloads)
    rng.shuffle(shuffled)
    second = simulate(build(queues), shuffled)
    summary = lambda sim: {k: (o.result, o.reason, o.message, sorted(o.assignment.usage.items()) if o.assignment else None)
                           for k, o in sim.outcomes.items()}  # noqa: E731
    assert summary(first) == summary(second)
    assert sorted(t.workload.key for t in first.preempted) == sorted(t.workload.key for t in second.preempted)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_queues_and_workloads())
def test_fair_sharing_respects_limits_too(case):
    queues, workloads = case
    state = build(queues)
    state.fair_sharing = True
    simulate(state, pending(workloads))
    for node in state.tree.queues.values():
        for fr, used in node.usage.items():
            q = node.quotas.get(fr, ResourceQuota())
            if node.parent is not None and q.borrowing_limit is not None:
                assert used <= q.nominal + q.borrowing_limit
            assert used >= 0
    for root in {id(n.root()): n.root() for n in state.tree.queues.values()}.values():
        for fr, used in root.usage.items():
            assert used <= root.subtree.get(fr, 0)


holder_spec = st.tuples(st.integers(0, 3), st.integers(0, 5), st.sampled_from(FLAVORS), st.integers(0, 4),
                        st.integers(0, 3), st.booleans())


@settings(max_examples=100, deadline=None)
@given(st.lists(holder_spec, max_size=25))
def test_adding_the_snapshot_holders_at_once_equals_adding_them_one_by_one(holders):
    """``add_all`` groups the holders by queue and sorts once; the indexes, usage and holder
    order must be what one ``add`` each gives, duplicate keys included (the later one wins)."""
    from kueuelint.admission.model import Admitted

    def made():
        return [Admitted(f"ns/w{name}", f"q{queue}", priority, {(flavor, "cpu"): cpu}, float(name % 3),
                         uid=f"u{name}", evicted=evicted)
                for queue, name, flavor, cpu, priority, evicted in holders]

    queues = [("c1", [ResourceQuota(4), ResourceQuota(4)], "Never", "Never")] * 4
    at_once, one_by_one = build(queues), build(queues)
    at_once.add_all(made())
    for workload in made():
        one_by_one.add(workload)
    for queue in at_once.queues:
        assert list(at_once.admitted_by_cq.get(queue, {})) == list(one_by_one.admitted_by_cq.get(queue, {}))
        for flavor in FLAVORS:
            fr = (flavor, "cpu")
            assert [w.key for w in at_once.holders_in_order(queue, [fr])] == \
                [w.key for w in one_by_one.holders_in_order(queue, [fr])]
            assert at_once.usage_below(queue, fr, None) == one_by_one.usage_below(queue, fr, None)
            assert at_once.tree.usage(queue, fr) == one_by_one.tree.usage(queue, fr)
    assert at_once.tree.cohorts["c1"].usage == one_by_one.tree.cohorts["c1"].usage
