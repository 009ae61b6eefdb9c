"""KQ650–KQ652: topology-aware scheduling annotations on pod templates (kueue-validation.md §3.6).

KQ650 repeats what Kueue's webhooks check on each pod set's annotations, KQ651 catches slice
sizes that Kueue accepts but can never place (kueue#15277), and KQ652 follows the queue to the
ClusterQueue's flavors and their Topology to see whether the requested level exists at all.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.managed import Managed, elastic, managed
from kueuelint.identify.kinds import KUEUE_GROUP
from kueuelint.identify.objects import KObject
from kueuelint.index.inventory import cluster_queue_name
from kueuelint.kueue.facts import Fact
from kueuelint.kueue.kinds import JOB_SPECS, SPECS

PREFIX = "kueue.x-k8s.io/podset-"
REQUIRED = PREFIX + "required-topology"
PREFERRED = PREFIX + "preferred-topology"
UNCONSTRAINED = PREFIX + "unconstrained-topology"
SLICE_TOPOLOGY = PREFIX + "slice-required-topology"
SLICE_SIZE = PREFIX + "slice-size"
GROUP = PREFIX + "group-name"
LAYERS = PREFIX + "slice-required-topology-constraints"
MODES = (REQUIRED, PREFERRED, UNCONSTRAINED)
LAYERS_GATE_ON = (0, 19)          # TASMultiLayerTopology: Beta, on
MAX_LAYERS = 3
INT32_MAX = 2**31 - 1
GO_INT = re.compile(r"^[+-]?\d{1,18}$")
GO_BOOLS = ("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False")
NAME_PART = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# Pods of these are checked one by one (or as pod-group roles), not against the template's count.
POD_BASED = tuple(spec.key for spec in JOB_SPECS if spec.workloads_from_pods)
# Kinds whose pod templates are synthesized by kueuelint (no annotations a user could write there).
SKIPPED = tuple(key for key, spec in SPECS.items() if not spec.user_templates)


class TasPodSet(NamedTuple):
    """One pod set's TAS annotations and where they are written."""

    pod_set: object
    values: dict
    base: tuple               # path of the annotations mapping (or of the runtimeRef)
    counted: bool             # False for pod-based kinds, whose pod set counts kueuelint cannot know

    def path(self, key: str) -> tuple:
        return self.base + (key,) if self.base[-1:] == ("annotations",) else self.base

    def text(self, key: str) -> str | None:
        value = self.values.get(key)
        return None if value is None else str(value)


def tas_pod_sets(obj: KObject, ctx: RuleContext) -> tuple[Managed | None, list[TasPodSet]]:
    m = managed(obj, ctx)
    if m is None or obj.key in SKIPPED:
        return m, []
    workloads = ctx.workloads(obj)
    found = []
    for pod_set in workloads[0].pod_sets if workloads else []:
        metadata = pod_set.template.get("metadata") if isinstance(pod_set.template, dict) else None
        values = metadata.get("annotations") if isinstance(metadata, dict) else None
        if not isinstance(values, dict) or not any(str(k).startswith(PREFIX) for k in values):
            continue
        base = ("spec", "runtimeRef") if obj.key == "trainer.kubeflow.org/TrainJob" \
            else pod_set.template_path + ("metadata", "annotations")
        found.append(TasPodSet(pod_set, values, base, obj.key not in POD_BASED))
    return m, found


def label_key_problem(value: str) -> str | None:
    prefix, slash, name = value.rpartition("/")
    if "/" in prefix:
        return "a label key has at most one '/'"
    if not name or len(name) > 63 or not NAME_PART.match(name):
        return ("a label key's name part is at most 63 letters, digits, '-', '_' or '.', starting "
                "and ending with a letter or digit")
    if slash and (not prefix or len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix)):
        return "a label key's prefix must be a DNS subdomain (lower case), e.g. 'example.com'"
    return None


# --- KQ650: what Kueue's webhook rejects -------------------------------------------------------

@rule("KQ650")
def tas_annotation_invalid(obj: KObject, ctx: RuleContext):
    m, pod_sets = tas_pod_sets(obj, ctx)
    for tps in pod_sets:
        for key, problem in _problems(tps, obj, ctx):
            yield Violation(path=tps.path(key), at_value=True, args={"detail": (
                f"{m.why}; pod set {tps.pod_set.name!r} has {key}: {tps.text(key)!r}, which Kueue's "
                f"webhook rejects: {problem}")})
    counted = [tps for tps in pod_sets if tps.counted]
    for tps, problem in _group_problems(counted):
        yield Violation(path=tps.path(GROUP), at_value=True, args={"detail": (
            f"{m.why}; pod set {tps.pod_set.name!r} is in podset group {tps.text(GROUP)!r}, which "
            f"Kueue's webhook rejects: {problem}")})


def _problems(tps: TasPodSet, obj: KObject, ctx: RuleContext) -> list[tuple[str, str]]:
    problems = _mode_problems(tps, obj, ctx)
    for key in (REQUIRED, PREFERRED, SLICE_TOPOLOGY):
        text = tps.text(key)
        if text is not None and (reason := label_key_problem(text)):
            problems.append((key, f"the value must be a node label key ({reason})"))
    problems += _slice_problems(tps)
    problems += _group_name_problems(tps)
    if tps.text(LAYERS) is not None:
        problems += [(LAYERS, problem) for problem in _layer_problems(tps, ctx)]
    return problems


def _mode_problems(tps: TasPodSet, obj: KObject, ctx: RuleContext) -> list[tuple[str, str]]:
    present = [key for key in MODES if key in tps.values]
    problems = []
    if len(present) > 1:
        problems.append((present[1], "must not contain more than one topology annotation: "
                                     f"[{', '.join(present)}]; keep only one"))
    unconstrained = tps.text(UNCONSTRAINED)
    if unconstrained is not None and unconstrained not in GO_BOOLS:
        problems.append((UNCONSTRAINED, "must be a boolean value (\"true\" or \"false\")"))
    if obj.key == "batch/Job" and elastic(obj, ctx):
        for key, what in ((REQUIRED, "required"), (PREFERRED, "preferred")):
            if key in tps.values:
                problems.append((key, f"\"{what} topology is not supported with elastic jobs\"; use "
                                      f"{UNCONSTRAINED}: \"true\" or drop the elastic-job annotation"))
    return problems


def slice_size(tps: TasPodSet) -> int | None:
    text = tps.text(SLICE_SIZE)
    return int(text) if text is not None and GO_INT.match(text.strip()) else None


def _slice_problems(tps: TasPodSet) -> list[tuple[str, str]]:
    problems = []
    if (SLICE_TOPOLOGY in tps.values) != (SLICE_SIZE in tps.values):
        present, absent = (SLICE_TOPOLOGY, SLICE_SIZE) if SLICE_TOPOLOGY in tps.values \
            else (SLICE_SIZE, SLICE_TOPOLOGY)
        problems.append((present, f"{absent} must be set when {present} is specified; set both or "
                                  "neither"))
    text, size = tps.text(SLICE_SIZE), slice_size(tps)
    count = tps.pod_set.count
    if text is not None and (size is None or size > INT32_MAX):
        problems.append((SLICE_SIZE, "must be a numeric value (a whole number of pods)"))
    elif size is not None and size < 1:
        problems.append((SLICE_SIZE, "must be greater than or equal to 1"))
    elif size is not None and tps.counted and size > count:
        problems.append((SLICE_SIZE, f"must not be greater than pod set count {count}"))
    return problems


def _group_name_problems(tps: TasPodSet) -> list[tuple[str, str]]:
    name = tps.text(GROUP)
    if name is None:
        return []
    if GO_INT.match(name.strip()):
        return [(GROUP, "must not be a number; use a name such as 'leader-workers'")]
    clashes = [key for key in (SLICE_SIZE, SLICE_TOPOLOGY) if key in tps.values]
    if clashes:
        return [(GROUP, f"may not be set together with {' or '.join(clashes)}")]
    if REQUIRED not in tps.values and PREFERRED not in tps.values:
        return [(GROUP, f"may not be set when neither {REQUIRED} nor {PREFERRED} is specified")]
    return []


def _group_problems(pod_sets: list[TasPodSet]) -> list[tuple[TasPodSet, str]]:
    groups: dict[str, list[TasPodSet]] = {}
    for tps in pod_sets:
        if tps.text(GROUP) is not None and not GO_INT.match(tps.text(GROUP).strip()):
            groups.setdefault(tps.text(GROUP), []).append(tps)
    found = []
    for members in groups.values():
        if len(members) != 2:
            found += [(tps, f"can only define groups of exactly 2 pod sets, got: {len(members)} pod "
                            "set(s)") for tps in members]
        elif all(tps.pod_set.count != 1 for tps in members):
            found.append((members[1], "one of the 2 pod sets of a group must have exactly 1 pod "
                                      f"(counts: {members[0].pod_set.count}, {members[1].pod_set.count})"))
        elif _level(members[0]) != _level(members[1]):
            found.append((members[1], "both pod sets of a group must request the same topology level "
                                      f"({_level(members[0])} vs {_level(members[1])})"))
    return found


def _level(tps: TasPodSet) -> str:
    for key, word in ((REQUIRED, "required"), (PREFERRED, "preferred")):
        if key in tps.values:
            return f"{word} {tps.text(key)!r}"
    return "none"


def parse_layers(tps: TasPodSet) -> list | None:
    try:
        layers = json.loads(tps.text(LAYERS) or "")
    except ValueError:
        return None
    return layers if isinstance(layers, list) else None


def _layer_problems(tps: TasPodSet, ctx: RuleContext) -> list[str]:
    if ctx.kueue_version < LAYERS_GATE_ON:
        return ["it needs the TASMultiLayerTopology feature gate, on by default only from Kueue 0.19"]
    clashes = [key for key in (SLICE_TOPOLOGY, SLICE_SIZE, GROUP) if key in tps.values]
    if clashes:
        return [f"it cannot be combined with {', '.join(clashes)}"]
    layers = parse_layers(tps)
    if layers is None:
        return ["it must be a JSON list such as [{\"topology\": \"example.com/block\", \"size\": 8}]"]
    if not 1 <= len(layers) <= MAX_LAYERS:
        return [f"topology constraints must contain between 1 and {MAX_LAYERS} entries"]
    return _layer_entry_problems(layers, tps)


def _layer_entry_problems(layers: list, tps: TasPodSet) -> list[str]:
    problems, seen, parent = [], set(), None
    for index, layer in enumerate(layers):
        topology = layer.get("topology") if isinstance(layer, dict) else None
        size = layer.get("size") if isinstance(layer, dict) else None
        if not isinstance(topology, str) or label_key_problem(topology) is not None:
            problems.append(f"entry {index}: topology must be a node label key")
        elif topology in seen:
            problems.append(f"entry {index}: topology {topology!r} is listed twice")
        seen.add(topology)
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            problems.append(f"entry {index}: size must be an integer of at least 1")
            parent = None
            continue
        if index == 0 and tps.counted and size > tps.pod_set.count:
            problems.append(f"entry 0: size {size} must not be greater than pod set count "
                            f"{tps.pod_set.count}")
        if parent is not None and parent % size:
            problems.append(f"entry {index}: size {size} must evenly divide the parent layer size {parent}")
        parent = size
    return problems


# --- KQ651: slices that never fit the pod set --------------------------------------------------

@rule("KQ651")
def tas_slice_size_not_divisor(obj: KObject, ctx: RuleContext):
    m, pod_sets = tas_pod_sets(obj, ctx)
    for tps in pod_sets:
        count, key, size = tps.pod_set.count, SLICE_SIZE, slice_size(tps)
        if LAYERS in tps.values and SLICE_SIZE not in tps.values and ctx.kueue_version >= LAYERS_GATE_ON:
            layers = parse_layers(tps) or [None]
            first = layers[0].get("size") if isinstance(layers[0], dict) else None
            key, size = LAYERS, first if isinstance(first, int) and not isinstance(first, bool) else None
        if not tps.counted or size is None or not 1 <= size <= count or count % size == 0:
            continue
        yield Violation(path=tps.path(key), at_value=True, args={"detail": (
            f"{m.why}; pod set {tps.pod_set.name!r} has {count} pods in slices of {size}, which does "
            f"not divide {count}: Kueue accepts it but topology assignment never converges and the "
            f"workload stays pending (kueue#15277); use a slice size that divides {count} (e.g. "
            f"{_divisor_near(count, size)}) or change the pod count")})


def _divisor_near(count: int, size: int) -> int:
    return max(d for d in range(1, size + 1) if count % d == 0)


# --- KQ652: the requested level must exist in a TAS flavor's Topology ---------------------------------

class TasFlavor(NamedTuple):
    cluster_queue: KObject
    flavor: KObject
    topology: KObject

    def levels(self) -> list[str | None]:
        return topology_levels(self.topology)


def topology_levels(topology: KObject) -> list[str | None]:
    """The node labels of a Topology's levels, in order; None for a level without a string label."""
    levels = topology.spec.get("levels")
    labels = [lv.get("nodeLabel") for lv in levels if isinstance(lv, dict)] if isinstance(levels, list) else []
    return [label if isinstance(label, str) else None for label in labels]


@rule("KQ652")
def tas_level_not_in_topology(obj: KObject, ctx: RuleContext):
    m, pod_sets = tas_pod_sets(obj, ctx)
    if m is None or m.queue is None or not pod_sets:
        return
    resolved = resolve_tas_flavors(obj, m.queue, ctx)
    if resolved is None:
        return
    queues, flavors = resolved
    for tps in pod_sets:
        requests = _requested_levels(tps)
        if not flavors and requests:
            key = requests[0][0]
            yield Violation(path=tps.path(key), args={"detail": (
                f"{m.why}; pod set {tps.pod_set.name!r} asks for topology-aware scheduling ({key}) "
                f"but {queues} has no TAS flavor (no ResourceFlavor with spec.topologyName), so "
                "Kueue can never place it and it stays pending; give the ClusterQueue a flavor with "
                "a topologyName or remove the annotation")})
            continue
        for key, level in requests:
            if level and label_key_problem(level) is None \
                    and not any(level in flavor.levels() for flavor in flavors):
                yield Violation(path=tps.path(key), at_value=True, args={"detail": (
                    f"{m.why}; pod set {tps.pod_set.name!r} requests topology level {level!r}, "
                    f"which no TAS flavor of {queues} has (Kueue: Flavor \"{flavors[0].flavor.name}\" does "
                    f"not contain the requested level): {_describe(flavors)}; use one of those "
                    "levels or add it to the Topology")})


def _requested_levels(tps: TasPodSet) -> list[tuple[str, str | None]]:
    """(annotation, level) pairs; level None for unconstrained, which still needs a TAS flavor."""
    found = [(key, tps.text(key)) for key in (REQUIRED, PREFERRED, SLICE_TOPOLOGY) if key in tps.values]
    if tps.text(UNCONSTRAINED) in ("1", "t", "T", "TRUE", "true", "True"):
        found.append((UNCONSTRAINED, None))
    layers = parse_layers(tps) if LAYERS in tps.values else None
    for layer in layers or []:
        if isinstance(layer, dict) and isinstance(layer.get("topology"), str):
            found.append((LAYERS, layer["topology"]))
    return found


def _describe(flavors: list[TasFlavor]) -> str:
    seen, parts = set(), []
    for flavor in flavors:
        key = (flavor.flavor.name, flavor.topology.name, tuple(flavor.levels()))
        if key not in seen:
            seen.add(key)
            parts.append(f"flavor {flavor.flavor.name} uses Topology {flavor.topology.name} with levels "
                         f"{', '.join(str(level) for level in flavor.levels()) or '(none)'}")
    return "; ".join(parts)


def resolve_tas_flavors(obj: KObject, queue: str, ctx: RuleContext):
    """(text naming the ClusterQueues, TAS flavors) behind ``queue``; None when the run does not show
    the whole chain. A name defined twice in the run (several samples in one directory) yields every
    definition, so a finding holds whichever one is meant."""
    inv = ctx.inventory
    lqs = inv.kueue_named("LocalQueue", queue, obj.namespace)
    cq_names = {cluster_queue_name(lq) for lq in lqs} - {None}
    cqs = inv.named_any(f"{KUEUE_GROUP}/ClusterQueue", cq_names)
    if not lqs or not cqs or len(cqs) < len(cq_names):
        return None
    # Copies of one setup in several files define the same (flavor, topology, levels) many times:
    # each is kept once, per flavor name first, so that copies do not multiply (n^3 for n copies).
    by_flavor = FLAVOR_TOPOLOGIES.of(inv)
    flavors: dict[tuple, TasFlavor] = {}
    for cq in cqs:
        for name in _flavor_names(cq):
            if name not in by_flavor:
                by_flavor[name] = _flavor_topologies(inv, name)
            if by_flavor[name] is None:
                return None
            for key, (rf, top) in by_flavor[name].items():
                flavors[key] = TasFlavor(cq, rf, top)
    names = sorted({cq.name for cq in cqs})
    via = f" (via LocalQueue {obj.namespace}/{queue})"
    return f"ClusterQueue {' / '.join(names)}{via}", list(flavors.values())


# flavor name -> its distinct (flavor, topology) definitions, filled as rules ask
FLAVOR_TOPOLOGIES: Fact[dict[str, dict[tuple, tuple[KObject, KObject]] | None]] = Fact(
    "tas-flavor-topologies", lambda inventory: {})


def _flavor_topologies(inv, name: str) -> dict[tuple, tuple[KObject, KObject]] | None:
    """The distinct (flavor, topology) definitions of flavor ``name``; None when the flavor or its
    topology is not in the run (another rule's finding; the levels are unknown)."""
    placements: dict[tuple, tuple[KObject, KObject]] = {}
    defined = inv.kueue_named("ResourceFlavor", name)
    if not defined:
        return None
    for rf in defined:
        topology = rf.spec.get("topologyName")
        if topology is not None and not isinstance(topology, str):
            return None   # the schema's finding; which topology is meant is unknown
        tops = inv.kueue_named("Topology", topology) if topology else []
        if topology and not tops:
            return None
        for top in tops:
            placements[(name, top.name, tuple(topology_levels(top)))] = (rf, top)
    return placements


def _flavor_names(cq: KObject) -> list[str]:
    names = []
    groups = cq.spec.get("resourceGroups")
    for group in groups if isinstance(groups, list) else []:
        flavors = group.get("flavors") if isinstance(group, dict) else None
        for flavor in flavors if isinstance(flavors, list) else []:
            if isinstance(flavor, dict) and isinstance(flavor.get("name"), str):
                names.append(flavor["name"])
    return names
