"""Quota arithmetic (kueue-scheduler.md §3) on small hand-checked trees."""

from __future__ import annotations

from kueuelint.accounting.quota import QuotaTree, ResourceQuota as Q

CPU = ("default", "cpu")


def tree(*queues, cohorts=()):
    qt = QuotaTree()
    for name, parent, quota in cohorts:
        qt.add_cohort(name, parent, {CPU: quota} if quota else {})
    for name, cohort, quota in queues:
        qt.add_cluster_queue(name, cohort, {CPU: quota})
    qt.finalize()
    return qt


def test_lending_limit_example_from_kueue_tests():
    qt = tree(("lend-a", "c", Q(3, lending_limit=2)), ("lend-b", "c", Q(2, lending_limit=2)))
    assert qt.cohorts["c"].subtree[CPU] == 4
    qt.add_usage("lend-b", {CPU: 2})
    assert qt.cohorts["c"].usage[CPU] == 2
    assert qt.available("lend-b", CPU) == 2


def test_flat_cohort_reduces_to_classic_rule():
    qt = tree(("a", "c", Q(10, borrowing_limit=5)), ("b", "c", Q(10)))
    qt.add_usage("a", {CPU: 12})
    assert qt.available("a", CPU) == 3          # nominal + borrowing limit - usage
    assert qt.available("b", CPU) == 8          # cohort total - cohort usage
    assert qt.potential_available("a", CPU) == 15
    assert qt.potential_available("b", CPU) == 20
    assert qt.max_obtainable("b", "default", "cpu") == 20
    assert qt.borrowed("a", CPU) == 2


def test_no_cohort_is_own_root():
    qt = tree(("solo", None, Q(4)))
    qt.add_usage("solo", {CPU: 3})
    assert qt.available("solo", CPU) == 1
    assert qt.borrowing_level("solo", CPU, 2) == (0, False)


def test_usage_removal_restores_state():
    qt = tree(("a", "c", Q(3, lending_limit=1)), ("b", "c", Q(2)))
    qt.add_usage("a", {CPU: 3})
    qt.add_usage("a", {CPU: 3}, sign=-1)
    assert qt.cohorts["c"].usage[CPU] == 0
    assert qt.queues["a"].usage[CPU] == 0


def test_hierarchical_borrowing_levels():
    qt = tree(("near", "left", Q(0)), ("far", "right", Q(0)), ("donor", "left", Q(0)),
              cohorts=[("root", None, Q(4)), ("left", "root", Q(2)), ("right", "root", None)])
    assert qt.cohorts["root"].height == 2
    assert qt.borrowing_level("near", CPU, 2) == (1, True)
    assert qt.borrowing_level("far", CPU, 2) == (2, False)
    assert qt.potential_available("far", CPU) == 6


def test_cohort_cycle_is_dropped():
    qt = QuotaTree()
    qt.add_cohort("x", "y")
    qt.add_cohort("y", "x")
    qt.add_cluster_queue("q", "x", {CPU: Q(1)})
    qt.finalize()
    assert qt.in_cycle("x")
    assert qt.queues["q"].parent is None


def test_usage_put_in_place_from_outside_is_what_the_walks_read():
    # A forked simulation hands back its trees' end usage; the answers must follow it, not
    # what the walks to the root had read before.
    qt = tree(("a", "c", Q(4)), ("b", "c", Q(4)))
    qt.add_usage("a", {CPU: 2})
    assert (qt.available("a", CPU), qt.available("b", CPU)) == (6, 6)
    assert qt.borrowing_level("b", CPU, 5) == (1, False)
    qt.replace_usage({"a": {CPU: 6}, "b": {}}, {"c": {CPU: 6}})
    assert (qt.available("a", CPU), qt.available("b", CPU)) == (2, 2)
    qt.add_usage("b", {CPU: 1})
    assert qt.cohorts["c"].usage[CPU] == 7
    assert qt.available("a", CPU) == 1
    assert qt.borrowing_level("b", CPU, 3) == (0, True)
    assert qt.borrowing_level("b", CPU, 4) == (1, False)
