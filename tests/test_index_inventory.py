"""The inventory's name index answers what a scan over every object of a kind would."""

from __future__ import annotations

from helpers_load import load_text

TEXT = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
spec: {cohort: other}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ns}
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: ns}
"""
CQ = "kueue.x-k8s.io/ClusterQueue"


def test_every_definition_of_a_name_in_run_order():
    objects, inventory = load_text(TEXT)
    b_first, a, b_second = objects[:3]
    assert inventory.named(CQ, "b") == [b_first, b_second]
    assert inventory.named_any(CQ, {"a", "b", None}) == [b_first, a, b_second]
    assert inventory.kueue_named("LocalQueue", "q", "ns") == [objects[3]]
    assert inventory.kueue_named("LocalQueue", "q", "other") == []
    assert inventory.named(CQ, {"not": "a name"}) == []


def test_limit_ranges_by_namespace_are_new_lists():
    objects, inventory = load_text(TEXT)
    found = inventory.limit_ranges("ns")
    assert found == [objects[4]] and inventory.limit_ranges(None) == []
    found.clear()
    assert inventory.limit_ranges("ns") == [objects[4]]
