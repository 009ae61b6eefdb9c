"""What-if quota (admission.whatif): answers about workloads taken out for a while must be the
answers of a tree actually charged with the same changes, and must leave the tree as it was."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kueuelint.accounting.quota import QuotaTree, ResourceQuota
from kueuelint.admission.model import Admitted, ClusterQueue
from kueuelint.admission.state import State, UsageLedger, request_fits
from kueuelint.admission.whatif import Trial

FRS = [("a", "cpu"), ("b", "cpu")]
QUEUES = ["q0", "q1", "q2", "q3"]
# Two cohorts below a root: q0 and q1 under left, q2 under right, q3 directly under the root.
PARENTS = {"q0": "left", "q1": "left", "q2": "right", "q3": "root"}

limit = st.one_of(st.none(), st.integers(0, 6))
quota = st.builds(ResourceQuota, st.integers(0, 8), limit, limit)
quotas = st.fixed_dictionaries({fr: quota for fr in FRS})
holder = st.tuples(st.sampled_from(QUEUES), st.integers(0, 5), st.integers(0, 5))
# (index of a holder, True to evict it or False to put it back)
move = st.tuples(st.integers(0, 11), st.booleans())
request = st.tuples(st.sampled_from(QUEUES), st.integers(0, 12), st.integers(0, 12), st.booleans())


def _tree(queue_quotas: list[dict], cohort_quotas: list[dict]) -> QuotaTree:
    tree = QuotaTree()
    tree.add_cohort("root", None, cohort_quotas[0])
    tree.add_cohort("left", "root", cohort_quotas[1])
    tree.add_cohort("right", "root", cohort_quotas[2])
    for name, queue_quota in zip(QUEUES, queue_quotas):
        tree.add_cluster_queue(name, PARENTS[name], queue_quota)
    tree.finalize()
    return tree


def _usages(tree: QuotaTree) -> list[dict]:
    return [dict(node.usage) for node in list(tree.queues.values()) + list(tree.cohorts.values())]


@settings(max_examples=150, deadline=None)
@given(st.lists(quotas, min_size=4, max_size=4), st.lists(quotas, min_size=3, max_size=3),
       st.lists(holder, min_size=1, max_size=12), st.lists(move, max_size=16), st.lists(request, min_size=1, max_size=4))
def test_a_trial_answers_as_the_charged_tree_does(queue_quotas, cohort_quotas, holders, moves, requests):
    tree = _tree(queue_quotas, cohort_quotas)
    held = [Admitted(f"ns/w{i}", queue, 0, {FRS[0]: a, FRS[1]: b}, float(i), float(i), f"u{i}")
            for i, (queue, a, b) in enumerate(holders)]
    for workload in held:
        tree.add_usage(workload.cluster_queue, workload.usage)
    before = _usages(tree)
    charged = UsageLedger(tree)
    trial = Trial(tree)
    out: set[int] = set()
    for index, evict in moves:
        if index >= len(held) or evict == (index in out):
            continue
        workload = held[index]
        (trial.evict if evict else trial.readmit)(workload, workload.usage)
        out.symmetric_difference_update({index})
    # What the trial answers, asked before the tree is charged with the same removals.
    state = State(tree, {}, {})
    answers = [trial.fits(queue, {FRS[0]: a, FRS[1]: b}, borrow) for queue, a, b, borrow in requests]
    borrowing = [trial.borrowing(node, frs) for node in _nodes(tree) for frs in ([FRS[0]], [FRS[1]], FRS)]
    assert _usages(tree) == before
    for index in sorted(out):
        charged.remove(held[index].cluster_queue, held[index].usage)
    assert answers == [request_fits(state, ClusterQueue(queue), {FRS[0]: a, FRS[1]: b}, borrow)
                       for queue, a, b, borrow in requests]
    assert borrowing == [any(node.is_borrowing(fr) for fr in frs) for node in _nodes(tree)
                         for frs in ([FRS[0]], [FRS[1]], FRS)]
    charged.restore()
    trial.restore()
    assert _usages(tree) == before


def _nodes(tree: QuotaTree) -> list:
    return list(tree.queues.values()) + list(tree.cohorts.values())


def test_a_trial_frees_quota_for_a_queue_of_the_cohort():
    """A worked case: a borrower's workload taken out leaves room for the lender again."""
    tree = _tree([{FRS[0]: ResourceQuota(4)}, {FRS[0]: ResourceQuota(4)}, {}, {}], [{}, {}, {}])
    borrower = Admitted("ns/big", "q1", 0, {FRS[0]: 6}, 0.0, 0.0, "u")
    tree.add_usage("q1", borrower.usage)
    trial = Trial(tree)
    assert not trial.fits("q0", {FRS[0]: 4}, True) and trial.borrowing(tree.queues["q1"], [FRS[0]])
    trial.evict(borrower, borrower.usage)
    assert trial.fits("q0", {FRS[0]: 4}, False) and not trial.borrowing(tree.queues["q1"], [FRS[0]])
    trial.readmit(borrower, borrower.usage)
    assert not trial.fits("q0", {FRS[0]: 4}, True)
    assert tree.queues["q1"].usage[FRS[0]] == 6
