"""The flavor assigner's plans (what a pod set asks of each resource group, with the group's
flavors) are shared between queues with the same resource groups: a plan must carry nothing of
one queue into another's assignment."""

from __future__ import annotations

from kueuelint.accounting.quota import QuotaTree, ResourceQuota, flavor_resource
from kueuelint.admission.flavors import FlavorAssigner
from kueuelint.admission.model import FIT, ClusterQueue, Flavor, Pending, PodSetSpec, ResourceGroup
from kueuelint.admission.state import State

CPU_GROUP = ResourceGroup(("cpu",), ("a", "b"))


def _state() -> State:
    tree = QuotaTree()
    # q1 has no quota in flavor a, q2 has some in both; q3 lists flavor b alone.
    quotas = {"q1": {"a": 0, "b": 4000}, "q2": {"a": 4000, "b": 4000}, "q3": {"b": 4000}}
    for name, per_flavor in quotas.items():
        tree.add_cluster_queue(name, None, {flavor_resource(f, "cpu"): ResourceQuota(n) for f, n in per_flavor.items()})
    tree.finalize()
    queues = {"q1": ClusterQueue("q1", groups=[CPU_GROUP]), "q2": ClusterQueue("q2", groups=[CPU_GROUP]),
              "q3": ClusterQueue("q3", groups=[ResourceGroup(("cpu",), ("b",))])}
    return State(tree, queues, {"a": Flavor("a"), "b": Flavor("b")})


def _pending(name: str, queue: str) -> Pending:
    return Pending(f"ns/{name}", "ns", name, "lq", 0, 0.0, 0, name,
                   [PodSetSpec("main", 2, per_pod={"cpu": 1000})], cluster_queue=queue)


def _assign(state: State, queue: str, name: str):
    """The assignment, and the steps of the plan the pod set got (a list: the compiled build
    boxes the plan's tuple afresh when it is read, the list inside stays one object)."""
    workload = _pending(name, queue)
    assignment = FlavorAssigner(state, state.queues[queue], workload).assign()
    return assignment, workload.pod_sets[0].plans[(queue, 2)][3][0]


def test_queues_with_the_same_groups_share_a_plan_and_keep_their_own_quota():
    state = _state()
    first, plan_q1 = _assign(state, "q1", "w1")
    second, plan_q2 = _assign(state, "q2", "w2")
    assert plan_q1 is plan_q2
    assert first.mode == FIT and first.pod_sets[0].flavors == {"cpu": "b"}      # no quota in a
    assert second.mode == FIT and second.pod_sets[0].flavors == {"cpu": "a"}


def test_a_queue_with_other_groups_gets_a_plan_of_its_own():
    state = _state()
    _, plan_q1 = _assign(state, "q1", "w1")
    third, plan_q3 = _assign(state, "q3", "w3")
    assert plan_q3 is not plan_q1
    assert [name for name, _, _ in plan_q3[0][3]] == ["b"]
    assert third.mode == FIT and third.pod_sets[0].flavors == {"cpu": "b"}
