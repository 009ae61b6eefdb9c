"""A TAS preemptor's preemption search is remembered like a quota-only one only while the nodes
cannot change its answer (Topologies.search_memoised): reused while the preemptor is placed
with no candidate set aside, searched again once the nodes are taken or quota usage moved,
and never reused when the nodes decided a fit during the search."""

from __future__ import annotations

from types import SimpleNamespace

from kueuelint.admission.assignment import Assignment, PodSetResult
from kueuelint.admission.memo import UsageMemo
from kueuelint.admission.model import ClusterQueue, PodSetSpec, ResourceGroup
from kueuelint.admission.nodes import Node
from kueuelint.admission.tas import HOSTNAME, TopologyRequest, build_flavor
from kueuelint.admission.topology import Topologies

FRS = [("f", "cpu")]


class Search:
    """A stand-in for the quota search: asks the nodes (as request_fits does once quota fits)
    and names one victim; counts how often it ran and what the nodes answered."""

    def __init__(self, topologies: Topologies, asks_nodes: bool = True) -> None:
        self.topologies, self.asks_nodes = topologies, asks_nodes
        self.runs, self.fits = 0, []

    def __call__(self) -> list:
        self.runs += 1
        if self.asks_nodes:
            self.fits.append(self.topologies.preemptor_fits())
        return [SimpleNamespace(workload=SimpleNamespace(key="victim"))]


def _world():
    nodes = [Node(f"n{i}", {"pool": "p", "rack": "r0", HOSTNAME: f"n{i}"}, [], {"cpu": 4000, "pods": 10})
             for i in range(2)]
    topologies = Topologies({"f": build_flavor("f", "t", ("rack", HOSTNAME), {"pool": "p"}, [], nodes)}, True)
    cq = ClusterQueue("cq", groups=[ResourceGroup(("cpu",), ("f",))])
    spec = PodSetSpec("ps", 2, per_pod={"cpu": 3000}, topology=TopologyRequest(required="rack"))
    return topologies, cq, SimpleNamespace(pod_sets=[spec])


def _targets(topologies: Topologies, cq, workload, memo: UsageMemo, root, search) -> list:
    assignment = Assignment.of([PodSetResult("ps", 2, {"cpu": "f"})])
    found = topologies.targets(cq, workload, assignment,
                               lambda: topologies.search_memoised(memo, ("targets", "cq"), root, FRS, search))
    return [target.workload.key for target in found]


def _take_the_nodes(topologies: Topologies) -> None:
    topologies.hold("other", {"": {f"n{i}": {"cpu": 2000, "pods": 1} for i in range(2)}})


def test_reused_while_the_preemptor_fits_as_it_is():
    topologies, cq, workload = _world()
    memo, root = UsageMemo(), object()
    search = Search(topologies)
    assert _targets(topologies, cq, workload, memo, root, search) == ["victim"]
    assert _targets(topologies, cq, workload, memo, root, search) == ["victim"]
    assert (search.runs, search.fits) == (1, [True])
    memo.changed(root, FRS)     # quota usage moved: searched again
    _targets(topologies, cq, workload, memo, root, search)
    assert search.runs == 2


def test_a_search_that_never_asked_the_nodes_is_reused_while_they_hold_the_preemptor():
    topologies, cq, workload = _world()
    memo, root = UsageMemo(), object()
    search = Search(topologies, asks_nodes=False)
    _targets(topologies, cq, workload, memo, root, search)
    _targets(topologies, cq, workload, memo, root, search)
    assert search.runs == 1
    _take_the_nodes(topologies)
    _targets(topologies, cq, workload, memo, root, search)
    assert search.runs == 2


def test_searched_again_once_the_nodes_are_taken():
    topologies, cq, workload = _world()
    memo, root = UsageMemo(), object()
    search = Search(topologies)
    _targets(topologies, cq, workload, memo, root, search)
    _take_the_nodes(topologies)         # no quota change: the memo alone would answer
    _targets(topologies, cq, workload, memo, root, search)
    assert (search.runs, search.fits) == (2, [True, False])


def test_never_reused_when_the_nodes_decided_a_fit():
    topologies, cq, workload = _world()
    _take_the_nodes(topologies)
    memo, root = UsageMemo(), object()
    search = Search(topologies)
    for _ in range(3):
        _targets(topologies, cq, workload, memo, root, search)
    assert (search.runs, search.fits) == (3, [False, False, False])


def test_an_answer_the_nodes_decided_is_not_reused_once_they_are_free():
    topologies, cq, workload = _world()
    _take_the_nodes(topologies)
    memo, root = UsageMemo(), object()
    search = Search(topologies)
    _targets(topologies, cq, workload, memo, root, search)
    topologies.release("other")         # the preemptor now fits as it is; no quota change
    _targets(topologies, cq, workload, memo, root, search)
    assert (search.runs, search.fits) == (2, [False, True])
