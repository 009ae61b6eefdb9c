"""Reading the snapshot's Workloads: holders' usage whatever type its values have, and the
stand-in UIDs of Workloads written without one (their place in the input)."""

from __future__ import annotations

from kueuelint.admission.run import simulate
from kueuelint.admission.workloads import Priorities, _recorded_usage, admitted_from_workload
from kueuelint.identify.objects import identify
from kueuelint.index.inventory import Inventory
from kueuelint.load.source import Document, SourceFile

KUEUE = "kueue.x-k8s.io/v1beta2"


def _objects(items: list[dict]) -> list:
    source = SourceFile("<test>")
    return [identify(Document(source, index, data)) for index, data in enumerate(items)]


def _workload(name: str, cpu, uid: str | None = None, admitted: bool = True) -> dict:
    metadata = {"name": name, "namespace": "team", "creationTimestamp": "2026-01-01T00:00:00Z"}
    if uid is not None:
        metadata["uid"] = uid
    data = {"apiVersion": KUEUE, "kind": "Workload", "metadata": metadata,
            "spec": {"queueName": "lq", "priority": 0, "podSets": [{"name": "main", "count": 1, "template": {
                "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}}
    if admitted:
        data["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": cpu}}]},
            "conditions": [{"type": "QuotaReserved", "status": "True",
                            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    return data


def test_usage_values_of_every_type_read_as_each_alone():
    # "1", 1 and 1.0 are one CPU; True is no quantity. Read in this order, an answer kept for
    # one value must never be handed to an equal value of another type (True == 1 == 1.0).
    values = ["1", 1, 1.0, True, "1", True, 1, "500m", 0.5]
    objects = _objects([_workload(f"w{index}", value) for index, value in enumerate(values)])
    priorities = Priorities(Inventory(objects))
    for obj, value in zip(objects, values):
        held = admitted_from_workload(obj, priorities)
        assert held is not None
        expected = _recorded_usage("default", "cpu", value)
        assert held.usage == ({} if expected is None else {expected[0]: expected[1]}), value
    assert admitted_from_workload(objects[3], priorities).usage == {}
    assert admitted_from_workload(objects[1], priorities).usage == {("default", "cpu"): 1000}


def _queue_objects() -> list[dict]:
    group = {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [
        {"name": "cpu", "nominalQuota": 10}]}]}
    return [{"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default"}},
            {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [group]}},
            {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "team"},
             "spec": {"clusterQueue": "cq"}}]


def test_workloads_without_a_uid_are_numbered_by_their_place_among_the_workloads():
    items = _queue_objects() + [_workload("a", "1", uid="given"), _workload("b", "1"),
                                _workload("c", None, admitted=False), _workload("d", "2")]
    result = simulate(Inventory(_objects(items)), [], jobs=1)
    held = result.state.admitted_by_cq["cq"]
    assert held["team/a"].uid == "given"
    assert held["team/b"].uid == "000000001-team-b"
    assert held["team/d"].uid == "000000003-team-d"
    assert [wl.uid for wl in result.pending] == ["000000002-team-c"]


def test_workloads_with_a_uid_keep_it():
    items = _queue_objects() + [_workload("a", "1", uid="u-a"), _workload("c", None, uid="u-c", admitted=False)]
    result = simulate(Inventory(_objects(items)), [], jobs=1)
    assert result.state.admitted_by_cq["cq"]["team/a"].uid == "u-a"
    assert [wl.uid for wl in result.pending] == ["u-c"]


def _held(conditions: list, spec_extra: dict | None = None, classes: list | None = None):
    data = _workload("w", "1", uid="u")
    data["status"]["conditions"] = conditions
    data["spec"].update(spec_extra or {})
    objects = _objects((classes or []) + [data])
    return admitted_from_workload(objects[-1], Priorities(Inventory(objects)))


def _condition(kind: str, status: str, at: str) -> dict:
    return {"type": kind, "status": status, "lastTransitionTime": at}


def test_a_holder_is_ranked_by_the_first_condition_of_each_type():
    created = 1767225600.0      # 2026-01-01T00:00:00Z, the creation time
    held = _held([_condition("QuotaReserved", "True", "2026-01-02T00:00:00Z"),
                  _condition("Evicted", "True", "2026-01-03T00:00:00Z"),
                  _condition("QuotaReserved", "True", "2026-01-04T00:00:00Z"),
                  _condition("Evicted", "False", "2026-01-05T00:00:00Z")])
    assert (held.reserved_at, held.timestamp, held.evicted) == (created + 86400, created, True)
    held = _held([_condition("Evicted", "False", "2026-01-03T00:00:00Z"),
                  _condition("Evicted", "True", "2026-01-04T00:00:00Z")])
    assert (held.reserved_at, held.evicted) == (created, False)      # no QuotaReserved: created
    held = _held(["junk", _condition("QuotaReserved", "True", "not a time")])
    assert (held.reserved_at, held.evicted) == (created, False)


def test_a_holder_states_its_priority_else_its_class_gives_it():
    high = {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 1000}
    assert _held([], {"priority": 7, "priorityClassName": "high"}, [high]).priority == 7
    assert _held([], {"priority": True, "priorityClassName": "high"}, [high]).priority == 1000
    assert _held([], {"priority": None, "priorityClassRef": {"name": "high"}}, [high]).priority == 1000
