"""Topology-aware scheduling in the simulation: the TAS flavors of a snapshot with their nodes,
the TAS usage of admitted workloads, and the checks Kueue's flavor assigner and scheduler make
once a workload's quota is settled (pkg/scheduler/flavorassigner/flavorassigner.go, the end of
``assignFlavors``; pkg/scheduler/scheduler.go, ``updateAssignmentForTAS``).

Built only when the snapshot has a TAS flavor: other runs never reach this module. Usage is
kept per bucket (``TasFlavor.usage_bucket``): one shared by the flavors whose lowest level is
the hostname, one per other flavor.
"""

from __future__ import annotations

from kueuelint.accounting.quota import flavor_resource
from kueuelint.admission.model import FIT, NO_FIT, PREEMPT, as_dict, as_list
from kueuelint.admission.nodes import pod_usage, read_nodes
from kueuelint.admission.tas import NO_NODES, PodSetAsk, Placement, TasFlavor, build_flavor, decode_assignment
from kueuelint.admission.tas_placement import place, pods_placed
from kueuelint.admission.tas_counts import counts_for, shape_of, usage_changed

WORKLOAD_KEY = "kueue.x-k8s.io/Workload"
Usage = dict[str, dict[str, dict[str, int]]]     # bucket -> leaf key -> resource -> amount
# (pod shape, count, request) -> a number standing for it in the keys of remembered placements,
# the same in every run: a few dozen entries per process.
_MEMO_IDS: dict[tuple, int] = {}


def _has_negative(used: Usage) -> bool:
    return any(amount < 0 for leaves in used.values() for amounts in leaves.values() for amount in amounts.values())


def add_usage(into: dict[str, dict[str, int]], leaves: dict[str, dict[str, int]], sign: int) -> None:
    for leaf, amounts in leaves.items():
        mine = into.get(leaf)
        if mine is None:
            into[leaf] = {resource: sign * amount for resource, amount in amounts.items()}
            continue
        for resource, amount in amounts.items():
            mine[resource] = mine.get(resource, 0) + sign * amount


class Topologies:
    """The TAS flavors and who uses which node. ``flavors`` maps every ResourceFlavor naming a
    Topology to its tree (None when the Topology does not exist); ``has_nodes`` is False when
    the snapshot holds no Node, and then nothing is placed."""

    def __init__(self, flavors: dict[str, TasFlavor | None], has_nodes: bool) -> None:
        self.flavors = flavors
        self.has_nodes = has_nodes
        # bucket -> leaf key -> resource -> TAS usage
        self.usage: dict[str, dict[str, dict[str, int]]] = {}
        self.held: dict[str, Usage] = {}          # workload key -> its usage, in the same shape
        self._reserved: list[Usage] = []          # for the current cycle only
        self.preemptor: list = []                 # asks of the workload looking for victims
        self._preemptor_fits_as_is: bool | None = None    # with no candidate set aside
        # Kueue units are never negative, so setting a workload aside only frees room; were
        # one negative, the short cuts that rely on it are not taken (``_monotone``).
        self._negative_usage = False
        self._aside: set[str] = set()             # its candidates, counted as gone
        # Candidates set aside (True) or put back (False) whose nodes are not yet charged: a
        # preemption search takes out many candidates before their nodes are looked at, and
        # puts back most of them, so the nodes are charged only when next read (``_settle``).
        self._unsettled: dict[str, bool] = {}
        # Placements worked out, by pod shape, count and request: with no TAS usage for good;
        # with it, while no usage changes but candidates set aside (``_version`` counts the
        # other changes). Heads asked again each cycle, and searches that set aside and
        # put back the same candidates, ask the same questions.
        self._version = 0
        self._placements: dict[tuple, tuple[Placement | None, str]] = {}
        self._placements_version = 0
        self._empty_placements: dict[tuple, tuple[Placement | None, str]] = {}
        self._tas_kinds: dict[str, tuple[bool, bool]] = {}
        # id(pod set) -> (the pod set, count -> its ask): an ask and its shape made once. The
        # pod set is kept so that its id is not reused.
        self._pod_set_asks: dict[int, tuple[object, dict[int, PodSetAsk]]] = {}
        self._bucket_flavors: dict[str, list[TasFlavor]] = {}
        for flavor in flavors.values():
            if flavor is not None:
                self._bucket_flavors.setdefault(flavor.usage_bucket, []).append(flavor)

    # --- usage ------------------------------------------------------------------------------

    def hold(self, key: str, used: Usage) -> None:
        self._settle()
        if key in self.held:
            self.release(key)
        if not used:        # no TAS pod set: nothing to charge, ever
            return
        self.held[key] = used
        self._negative_usage = self._negative_usage or _has_negative(used)
        self._charge(used, 1)

    def release(self, key: str) -> None:
        self._settle()
        used = self.held.pop(key, None)
        if used is not None:
            self._charge(used, -1)

    def set_aside(self, key: str, aside: bool) -> None:
        """Count a preemption candidate's nodes as free (or in use again)."""
        if aside == (key in self._aside) or key not in self.held:
            return
        if aside:
            self._aside.add(key)
        else:
            self._aside.discard(key)
        if self._unsettled.pop(key, None) is None:      # else: back as it was, nothing to charge
            self._unsettled[key] = aside

    def _settle(self) -> None:
        """Charge the nodes of the candidates set aside or put back since the last call."""
        if self._unsettled:
            for key, aside in self._unsettled.items():
                self._apply(self.held[key], -1 if aside else 1)
            self._unsettled = {}

    def preemptor_fits(self) -> bool:
        """Would the preemptor's TAS pod sets be placed with the candidates set aside so far?
        (Kueue's ``workloadFits`` during a preemption search.)"""
        if not self.preemptor or self._fits_as_is():
            return True
        self._settle()
        # Fewer free slots in the whole flavor than pods placed: no placement can succeed.
        for flavor, ask, _ in self.preemptor:
            if counts_for(flavor, ask, self.usage.get(flavor.usage_bucket, {}), {}).total < pods_placed(ask):
                return False
        return self._place_all(self.preemptor, self.usage, keep=False) is None

    def _fits_as_is(self) -> bool:
        """Whether the preemptor is placed with none of the candidates set aside. Then it is
        with any of them: setting aside only frees room (usage is never negative), and whether
        a pod set can be placed depends on its room alone, never shrinking as the room grows.
        Pod sets sharing nodes are placed one after another, which a greedy choice can spoil:
        for those the answer is never taken from here. Worked out once per search, before
        anything set aside is charged, which then never needs to be."""
        if self._preemptor_fits_as_is is None:
            self._preemptor_fits_as_is = self._monotone(self.preemptor) and self._fits_with_none_aside()
        return self._preemptor_fits_as_is

    def _monotone(self, asks) -> bool:
        return not self._negative_usage and len({flavor.usage_bucket for flavor, _, _ in asks}) == len(asks) \
            and all(amount >= 0 for _, ask, _ in asks for amount in ask.per_pod.values())

    def _fits_with_none_aside(self) -> bool:
        aside = list(self._aside)
        for key in aside:
            self.set_aside(key, False)
        try:
            return self._place_all(self.preemptor, self.usage, keep=False) is None
        finally:
            for key in aside:
                self.set_aside(key, True)

    def targets(self, cq, workload, assignment, find) -> list:
        """Run ``find`` (the preemption search) with the workload's TAS pod sets to fit; when it
        finds victims, place the pod sets as if they were gone (``updateAssignmentForTAS``)."""
        asks = self._asks(cq, workload, assignment) if self.has_nodes else []
        self.preemptor, self._preemptor_fits_as_is = asks, None
        try:
            found = find()
        finally:
            self.preemptor, self._preemptor_fits_as_is = [], None
        if found and asks:
            for target in found:
                self.set_aside(target.workload.key, True)
            self._place_all(asks, self.usage)
            for target in found:
                self.set_aside(target.workload.key, False)
        return found

    def search_memoised(self, memo, key: tuple, root, frs, search) -> list:
        """The preemptor's search (``search``), remembered in ``memo`` as quota-only answers are
        while the nodes cannot change it: when the search never asked them, or they took the
        preemptor with no candidate set aside (then every fit it asks holds on the nodes). An
        answer remembered so is used again when the preemptor is still placed as it is."""
        computed = []

        def first() -> tuple[list, bool]:
            computed.append(True)
            return search(), self._preemptor_fits_as_is is not False

        found, quota_alone = memo.recall(("tas",) + key, root, frs, first)
        if not computed and not (quota_alone and found and self._fits_as_is()):
            found = search()
        return list(found)

    def reserve_for_cycle(self, used: Usage) -> None:
        if not used:
            return
        self._settle()
        self._reserved.append(used)
        self._charge(used, 1)

    def end_cycle(self) -> None:
        self._settle()
        for used in self._reserved:
            self._charge(used, -1)
        self._reserved = []

    def _charge(self, used: Usage, sign: int) -> None:
        self._version += 1
        self._apply(used, sign)

    def _apply(self, used: Usage, sign: int) -> None:
        for bucket, leaves in used.items():
            mine = self.usage.setdefault(bucket, {})
            add_usage(mine, leaves, sign)
            for flavor in self._bucket_flavors.get(bucket, ()):
                usage_changed(flavor, leaves, sign)

    # --- what Kueue asks of a flavor and a pod set -----------------------------------------

    def is_tas_only(self, cq) -> bool:
        return self._tas_kind(cq)[1]

    def has_tas(self, cq) -> bool:
        """Whether any flavor of the queue is a TAS flavor (else no pod set of it is placed)."""
        return self._tas_kind(cq)[0]

    def _tas_kind(self, cq) -> tuple[bool, bool]:
        """Whether any, and whether every, flavor of the queue is a TAS flavor."""
        known = self._tas_kinds.get(cq.name)
        if known is None:
            tas = [self.flavors.get(f) is not None for g in cq.groups for f in g.flavors]
            known = self._tas_kinds[cq.name] = (any(tas), all(tas))
        return known

    def mismatch(self, cq, pod_set, flavor: str, covered: tuple[str, ...]) -> str | None:
        """Kueue's ``checkPodSetAndFlavorMatchForTAS``: why a flavor cannot take a pod set."""
        request = pod_set.topology
        is_tas = flavor in self.flavors
        if request is None and (not is_tas or self.is_tas_only(cq)):
            return None
        if request is not None:
            if not is_tas:
                if not any(r in covered for r in pod_set.per_pod):
                    return None
                return f'Flavor "{flavor}" does not support TopologyAwareScheduling'
            tree = self.flavors[flavor]
            if tree is None:
                return f'Flavor "{flavor}" information missing in TAS cache'
            if not tree.has_levels(request):
                return f'Flavor "{flavor}" does not contain the requested level'
            return None
        if is_tas:
            return f'Flavor "{flavor}" supports only TopologyAwareScheduling'
        return None

    # --- the check after quota ------------------------------------------------------------

    def check(self, cq, workload, assignment) -> None:
        """Place the TAS pod sets of an assignment that is not NoFit, as Kueue does after the
        quota: a Fit that cannot be placed becomes Preempt (with the reason); a Preempt that
        cannot be placed even on empty nodes becomes NoFit."""
        if assignment.mode == NO_FIT:
            return
        asks = self._asks(cq, workload, assignment)
        if not asks:
            return
        if not self.has_nodes:
            for _, _, result in asks:
                result.topology = NO_NODES
            return
        if assignment.mode == FIT:
            failed = self._place_all(asks, self.usage)
            if failed is None:
                return
            result, reason = failed
            result.reasons.append(reason)
            assignment.mode = PREEMPT
        if self._place_all(asks, None) is not None:
            for _, _, result in asks:
                result.mode = NO_FIT
            assignment.mode = NO_FIT
            return
        # Every TAS pod set may need victims: its quota may fit while its nodes are taken.
        for _, _, result in asks:
            result.mode = min(result.mode, PREEMPT)
            for resource, flavor in result.flavors.items():
                result.modes[resource] = min(result.modes.get(resource, FIT), PREEMPT)
                assignment.preempt_frs.add(flavor_resource(flavor, resource))
        assignment.mode = min(assignment.mode, PREEMPT)

    def _asks(self, cq, workload, assignment) -> list[tuple[TasFlavor, PodSetAsk, object]]:
        if not self.has_tas(cq):
            return []
        asks = []
        tas_only = self.is_tas_only(cq)
        for pod_set, result in zip(workload.pod_sets, assignment.pod_sets):
            if (pod_set.topology is None and not tas_only) or result.count == 0:
                continue
            names = {f for f in result.flavors.values() if self.flavors.get(f) is not None}
            if len(names) == 1:
                asks.append((self.flavors[names.pop()], self._ask(pod_set, result.count), result))
        # Kueue places flavor by flavor, by name; the pod sets of a flavor in their order.
        if len(asks) > 1:
            asks.sort(key=lambda item: item[0].name)
        return asks

    def _ask(self, pod_set, count: int) -> PodSetAsk:
        known = self._pod_set_asks.get(id(pod_set))
        if known is None:
            known = self._pod_set_asks[id(pod_set)] = (pod_set, {})
        ask = known[1].get(count)
        if ask is None:
            ask = known[1][count] = PodSetAsk(pod_set.name, count, pod_set.per_pod, pod_set.topology,
                                              pod_set.tolerations, pod_set.node_selector, pod_set.affinity_terms)
        return ask

    def _place_all(self, asks, usage: dict | None, keep: bool = True) -> tuple[object, str] | None:
        """Place every ask, each seeing what the earlier ones of its bucket took; on success
        the placements are kept on the results. ``usage``: per bucket (None: every TAS
        workload gone). Returns the first failure (result, reason)."""
        self._settle()
        assumed: dict[str, dict[str, dict[str, int]]] = {}
        placed = []
        for index, (flavor, ask, result) in enumerate(asks):
            mine = assumed.setdefault(flavor.usage_bucket, {})
            used = None if usage is None else usage.get(flavor.usage_bucket, {})
            placement, reason = self._place(flavor, ask, used, mine)
            if placement is None:
                return result, reason
            placed.append((result, placement))
            if index + 1 < len(asks):       # what the later pod sets see
                add_usage(mine, placement.usage(flavor, ask.per_pod), 1)
        for result, placement in placed if keep else ():
            result.topology = placement
        return None

    def _place(self, flavor: TasFlavor, ask: PodSetAsk, used: dict | None,
               assumed: dict) -> tuple[Placement | None, str]:
        """``place``, remembered while its answer cannot change (see ``_placements``)."""
        if assumed:
            return place(flavor, ask, used, assumed)
        if ask.memo_id < 0:     # a small number for what the placement depends on: cheap to hash
            ask.memo_id = _MEMO_IDS.setdefault((shape_of(ask), ask.count, ask.request), len(_MEMO_IDS))
        key: tuple = (flavor.name, ask.memo_id)
        if used is None:
            memo = self._empty_placements
        else:
            if self._placements_version != self._version:
                self._placements, self._placements_version = {}, self._version
            memo, key = self._placements, key + (frozenset(self._aside),)
        found = memo.get(key)
        if found is None:
            found = memo[key] = place(flavor, ask, used, assumed)
        return found

    def usage_of(self, workload, assignment) -> Usage:
        """What an assignment's placed pod sets use, per flavor and leaf."""
        used: Usage = {}
        for pod_set, result in zip(workload.pod_sets, assignment.pod_sets):
            placement = result.topology
            if isinstance(placement, Placement):
                flavor = self._flavor_of(result)
                add_usage(used.setdefault(flavor.usage_bucket, {}), placement.usage(flavor, pod_set.per_pod), 1)
        return used

    def _flavor_of(self, result) -> TasFlavor:
        return next(self.flavors[f] for f in result.flavors.values() if self.flavors.get(f) is not None)

    def still_fits(self, workload, assignment, gone: list[str]) -> bool:
        """Kueue's ``Fits`` at admission: do the placed pods still fit on their nodes, now that
        earlier workloads of the cycle took their share, with the workloads ``gone`` (keys)
        counted as preempted?"""
        if not any(isinstance(result.topology, Placement) for result in assignment.pod_sets):
            return True
        if not self._negative_usage and self._placements_fit(workload, assignment):
            return True     # setting the gone aside would only add room
        aside = [key for key in gone if key not in self._aside]
        for key in aside:
            self.set_aside(key, True)
        try:
            return self._placements_fit(workload, assignment)
        finally:
            for key in aside:
                self.set_aside(key, False)

    def _placements_fit(self, workload, assignment) -> bool:
        self._settle()
        for pod_set, result in zip(workload.pod_sets, assignment.pod_sets):
            placement = result.topology
            if not isinstance(placement, Placement):
                continue
            flavor = self._flavor_of(result)
            for leaf, amounts in placement.usage(flavor, pod_set.per_pod).items():
                free = flavor.free.get(leaf)
                if free is None:
                    return False
                taken = self.usage.get(flavor.usage_bucket, {}).get(leaf, {})
                if any(free.get(r, 0) - taken.get(r, 0) < amount for r, amount in amounts.items()):
                    return False
        return True


# --- building ---------------------------------------------------------------------------------

def build_topologies(inventory) -> Topologies | None:
    """The snapshot's TAS flavors, nodes and admitted TAS usage; None without a TAS flavor."""
    levels = {obj.name: _levels(obj) for obj in inventory.kueue_of_kind("Topology")}
    named = [(obj, obj.spec.get("topologyName")) for obj in inventory.kueue_of_kind("ResourceFlavor")]
    named = [(obj, topology) for obj, topology in named if isinstance(topology, str) and topology]
    if not named:
        return None
    nodes = read_nodes(inventory)
    flavors: dict[str, TasFlavor | None] = {}
    for obj, topology in named:
        if obj.name in flavors:
            continue
        if not levels.get(topology):
            flavors[obj.name] = None
            continue
        spec = obj.spec
        flavors[obj.name] = build_flavor(obj.name, topology, levels[topology], as_dict(spec.get("nodeLabels")),
                                         as_list(spec.get("tolerations")), (nodes or {}).values())
    topologies = Topologies(flavors, nodes is not None)
    for obj, placed in _placed_workloads(inventory.of_kind(WORKLOAD_KEY)):
        used = _held_usage(obj, placed, topologies)
        if used:
            topologies.hold(f"{obj.namespace}/{obj.name}", used)
    return topologies


def _levels(obj) -> tuple[str, ...]:
    found = []
    for level in as_list(obj.spec.get("levels")):
        label = level.get("nodeLabel") if isinstance(level, dict) else None
        if isinstance(label, str) and label:
            found.append(label)
    return tuple(found)


def _placed_workloads(workloads):
    """(Workload, its pod set assignments that have a topology assignment) of the Workloads
    with any. Every Workload of the snapshot passes here, most of them admitted without one:
    their data is read straight, and a missing field is the exception."""
    for obj in workloads:
        try:
            assignments = obj.doc.data["status"]["admission"]["podSetAssignments"]
        except (KeyError, TypeError, IndexError):
            continue
        if not isinstance(assignments, list):
            continue
        for assignment in assignments:
            if isinstance(assignment, dict) and isinstance(assignment.get("topologyAssignment"), dict):
                yield obj, [a for a in assignments
                            if isinstance(a, dict) and isinstance(a.get("topologyAssignment"), dict)]
                break


def _held_usage(obj, placed: list[dict], topologies: Topologies) -> Usage:
    """What an admitted Workload's recorded topology assignments (``placed``) use, per leaf."""
    from kueuelint.admission.workloads import HOLDS, standing

    if standing(obj)[0] != HOLDS:
        return {}
    templates = {str(ps.get("name")): ps.get("template") for ps in as_list(obj.get("spec", "podSets"))
                 if isinstance(ps, dict)}
    used: Usage = {}
    for assignment in placed:
        flavor = _tas_flavor_of(assignment, topologies)
        if flavor is None:
            continue
        template = as_dict(templates.get(str(assignment.get("name"))))
        per_pod = pod_usage(as_dict(template.get("spec")))
        for values, count in decode_assignment(assignment["topologyAssignment"]):
            key = values[-1] if flavor.by_host else ",".join(values)
            mine = used.setdefault(flavor.usage_bucket, {}).setdefault(key, {})
            for resource, amount in per_pod.items():
                mine[resource] = mine.get(resource, 0) + amount * count
            mine["pods"] = mine.get("pods", 0) + count
    return used


def _tas_flavor_of(assignment: dict, topologies: Topologies) -> TasFlavor | None:
    for name in as_dict(assignment.get("flavors")).values():
        found = topologies.flavors.get(str(name))
        if found is not None:
            return found
    return None
