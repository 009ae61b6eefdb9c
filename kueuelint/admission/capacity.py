"""ProvisioningRequest admission checks of the ``check-capacity`` class, decided on the
snapshot's nodes.

Kueue's provisioning controller (pkg/controller/admissionchecks/provisioning) asks the cluster
autoscaler, once a workload holds quota, for a ProvisioningRequest whose pod templates are the
workload's pod sets (those using the config's ``managedResources``, all when it lists none),
with their assigned flavors' node labels and tolerations added. The check-capacity class
(cluster-autoscaler provisioningrequest/checkcapacity) tries to schedule all those pods on the
existing nodes: when every pod fits it books the room (later requests see it taken) and sets
Provisioned=True (CapacityIsFound), which makes the check Ready; otherwise Provisioned=False
(CapacityIsNotFound) and the autoscaler tries again later, so the check stays Pending; with the
parameter ``noRetry: "true"`` it sets Failed instead and Kueue retries the workload.

Pods are placed first-fit on Ready, uncordoned nodes, node by node in the snapshot's order,
against allocatable minus what every running Pod requests (plus one ``pods`` each), taints,
node selectors and required node affinity.
"""

from __future__ import annotations

from dataclasses import dataclass

from kueuelint.admission.model import ADMITTED, as_dict, as_list
from kueuelint.admission.nodes import affinity_allows, read_nodes, selects, untolerated_taint

PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
CHECK_CAPACITY = "check-capacity.autoscaling.x-k8s.io"
NO_NODES = "capacity not checked: no nodes in the snapshot"


@dataclass(frozen=True)
class CapacityCheck:
    name: str
    managed_resources: tuple[str, ...]
    no_retry: bool


def capacity_checks(inventory) -> dict[str, CapacityCheck]:
    """AdmissionChecks whose ProvisioningRequestConfig names the check-capacity class."""
    found = {}
    for check in inventory.kueue_of_kind("AdmissionCheck"):
        spec = check.spec
        params = as_dict(spec.get("parameters"))
        if spec.get("controllerName") != PROVISIONING_CONTROLLER or params.get("kind") != "ProvisioningRequestConfig":
            continue
        config = inventory.kueue("ProvisioningRequestConfig", params.get("name"))
        config_spec = config.spec if config is not None else {}
        if config_spec.get("provisioningClassName") != CHECK_CAPACITY:
            continue
        managed = tuple(str(r) for r in as_list(config_spec.get("managedResources")))
        no_retry = as_dict(config_spec.get("parameters")).get("noRetry") == "true"
        found[check.name] = CapacityCheck(check.name, managed, no_retry)
    return found


def decide_checks(inventory, result) -> dict[str, list[dict]]:
    """Workload key -> the state of each check-capacity check of an admitted workload, in the
    order the workloads were admitted (each one that fits books its room)."""
    checks = capacity_checks(inventory)
    if not checks:
        return {}
    nodes = read_nodes(inventory, count_tas_pods=True)
    free = {name: node.free() for name, node in (nodes or {}).items()}
    decided: dict[str, list[dict]] = {}
    for workload, outcome in _admitted_in_order(result):
        cq = result.state.queues.get(outcome.cluster_queue or "")
        applying = cq.checks_on(outcome.assignment.flavors_used()) if cq is not None and outcome.assignment else []
        names = [name for name in applying if name in checks]
        states = []
        for name in names:
            if nodes is None:
                states.append(_state(name, "Pending", "", NO_NODES))
            else:
                states.append(_decide(checks[name], workload, outcome.assignment, result.state, nodes, free))
        if states:
            decided[workload.key] = states
    return decided


def _admitted_in_order(result) -> list:
    admitted = [(wl, result.outcomes[wl.key]) for wl in result.pending
                if wl.key in result.outcomes and result.outcomes[wl.key].result == ADMITTED]
    return sorted(admitted, key=lambda item: item[1].cycle)


def _state(name: str, state: str, reason: str, message: str) -> dict:
    return {"name": name, "state": state, "reason": reason, "message": message}


def _decide(check: CapacityCheck, workload, assignment, state, nodes: dict, free: dict) -> dict:
    pods = _requested_pods(check, workload, assignment, state)
    if not pods:
        return _state(check.name, "Ready", "", "no pod set uses the resources the ProvisioningRequestConfig manages")
    trial = {name: dict(room) for name, room in free.items()}
    placed = sum(1 for pod in pods if _place(pod, nodes, trial))
    if placed == len(pods):
        free.update(trial)      # booked: later requests see it taken
        return _state(check.name, "Ready", "CapacityIsFound", f"all {len(pods)} pod(s) fit on existing nodes")
    message = f"only {placed} of {len(pods)} pod(s) fit on existing nodes"
    if check.no_retry:
        return _state(check.name, "Retry", "CapacityIsNotFound", message + "; the ProvisioningRequest fails (noRetry)")
    return _state(check.name, "Pending", "CapacityIsNotFound",
                  message + "; the cluster autoscaler keeps checking")


@dataclass
class _Pod:
    requests: dict[str, int]
    selector: dict
    tolerations: list
    affinity_terms: list | None


def _requested_pods(check: CapacityCheck, workload, assignment, state) -> list[_Pod]:
    pods = []
    for pod_set, placed in zip(workload.pod_sets, assignment.pod_sets if assignment else []):
        if placed.count <= 0:
            continue
        if check.managed_resources and not any(pod_set.per_pod.get(r) for r in check.managed_resources):
            continue
        selector, tolerations = dict(pod_set.node_selector), list(pod_set.tolerations)
        for flavor_name in dict.fromkeys(placed.flavors.values()):
            flavor = state.flavors.get(flavor_name)
            if flavor is not None:
                selector.update({str(k): str(v) for k, v in flavor.node_labels.items()})
                tolerations += flavor.tolerations
        requests = {r: amount for r, amount in pod_set.per_pod.items() if amount}
        pods += [_Pod(requests, selector, tolerations, pod_set.affinity_terms)] * placed.count
    return pods


def _place(pod: _Pod, nodes: dict, free: dict) -> bool:
    for name, node in nodes.items():
        room = free[name]
        if _fits(pod, node, room):
            for resource, amount in pod.requests.items():
                room[resource] = room.get(resource, 0) - amount
            room["pods"] = room.get("pods", 0) - 1
            return True
    return False


def _fits(pod: _Pod, node, room: dict) -> bool:
    if room.get("pods", 0) < 1 or any(room.get(r, 0) < amount for r, amount in pod.requests.items()):
        return False
    return selects(node, pod.selector) and affinity_allows(node, pod.affinity_terms) \
        and untolerated_taint(node, pod.tolerations) is None
