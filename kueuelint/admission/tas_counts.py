"""Phase 1 of Kueue's TAS placement (``fillInCounts``): how many pods of one shape fit in each
domain of a flavor, and why nodes were left out.

Counting every node for every head would cost a pass over thousands of nodes per scheduling
decision. The counts depend only on the pod shape (requests, tolerations, node selector,
affinity) and on each node's remaining room, so they are kept per shape on the flavor. A
change of usage on a node (an admission, a preemption, a reservation, a candidate set aside)
is noted on the flavor (``usage_changed``); kept counts catch up with the notes when next
asked for, recounting those nodes and their ancestors only. Counts with every TAS workload
gone (Kueue's simulate-empty) never change. The domains of each level are also kept in order
of their counts, then names, so that a placement finds its domain by bisection
(tas_placement._fit_ordered): each as one number, ``pods * len(level) + rank``, as numbers are
compared and moved much faster than tuples of names.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from kueuelint.admission.nodes import affinity_allows, selects, untolerated_taint
from kueuelint.admission.tas import Domain, PodSetAsk, TasFlavor

NO_ROOM = 2 ** 31 - 1       # a zero request never limits the count


class Exclusions:
    """Why nodes were left out, for Kueue's "Total nodes: N; excluded: ..." suffix."""

    def __init__(self) -> None:
        self.total = 0
        self.selector = self.affinity = 0
        self.taints: dict[str, int] = {}
        self.resources: dict[str, int] = {}

    def text(self) -> str:
        reasons = []
        if self.selector:
            reasons.append(f"nodeSelector: {self.selector}")
        if self.affinity:
            reasons.append(f"affinity: {self.affinity}")
        reasons += [f'taint "{name}": {n}' for name, n in sorted(self.taints.items()) if n]
        reasons += [f'resource "{name}": {n}' for name, n in sorted(self.resources.items()) if n]
        if not reasons:
            return ""
        return f". Total nodes: {self.total}; excluded: {', '.join(sorted(reasons))}"


class Counts:
    """Pods of one shape that fit per domain of one flavor (leaves and their ancestors)."""

    def __init__(self, wanted: dict[str, int], spans: list[int]) -> None:
        wanted = dict(wanted)
        wanted["pods"] = wanted.get("pods", 0) + 1
        self.wanted = sorted(wanted.items())
        self.pods: dict[Domain, int] = {}
        self.spans = [max(1, span) for span in spans]       # domains per level
        self.ordered: list[list[int]] = []      # per level: pods * span + rank of its domains, sorted
        self.total = 0                          # pods over all leaves
        self.seen = 0                           # notes of the flavor taken into account
        self.stats = Exclusions()
        self.feasible: set[Domain] = set()      # leaves the pod's constraints allow
        self.limiting: dict[Domain, str] = {}   # feasible leaves where none fits: the resource

    def count_leaf(self, leaf: Domain, capacity: dict[str, int], taken: dict[str, int] | None = None) -> int:
        """Pods that fit in ``capacity`` less ``taken``; a leaf where none fits is counted
        against the resource that limits it (the first by name among equals)."""
        best, limiting = NO_ROOM, ""
        for resource, amount in self.wanted:
            if amount == 0:
                fits = NO_ROOM
            else:
                room = capacity.get(resource, 0) - taken.get(resource, 0) if taken else capacity.get(resource, 0)
                fits = room // amount
                if fits < 0:
                    fits = 0
            if fits < best or not limiting:
                best, limiting = fits, resource
        if best == 0 or leaf in self.limiting:      # most leaves hold a pod, now and before
            self._limited_by(leaf, limiting if best == 0 else None)
        return best

    def _limited_by(self, leaf: Domain, resource: str | None) -> None:
        resources = self.stats.resources
        previous = self.limiting.pop(leaf, None)
        if previous is not None:
            resources[previous] -= 1
        if resource is not None:
            self.limiting[leaf] = resource
            resources[resource] = resources.get(resource, 0) + 1

    def refresh(self, leaf: Domain, capacity: dict[str, int], taken: dict[str, int] | None) -> None:
        """A feasible leaf's room changed: recount it and carry the difference upwards."""
        pods = self.pods
        change = self.count_leaf(leaf, capacity, taken) - pods[leaf]
        if change == 0:
            return
        self.total += change
        ordered, spans = self.ordered, self.spans
        depth = len(ordered) - 1
        domain: Domain | None = leaf
        while domain is not None:
            old, level, span = pods[domain], ordered[depth], spans[depth]
            pods[domain] = old + change
            del level[bisect_left(level, old * span + domain.rank)]
            insort(level, (old + change) * span + domain.rank)
            domain, depth = domain.parent, depth - 1


def counts_for(flavor: TasFlavor, ask: PodSetAsk, used: dict[str, dict[str, int]] | None,
               assumed: dict[str, dict[str, int]]) -> Counts:
    """Phase 1 for ``ask`` on ``flavor`` with ``used`` (None: no TAS usage) and what earlier
    pod sets of the workload take (``assumed``: counted afresh, never kept)."""
    if assumed:
        return _fill(flavor, ask, used, assumed)
    key = (shape_of(ask), used is None)
    found = flavor.counts.get(key)
    if found is None:
        found = flavor.counts[key] = _fill(flavor, ask, used, {})
        found.seen = len(flavor.changed)
    elif used is not None and found.seen < len(flavor.changed):
        _catch_up(flavor, found, used)
    return found


def usage_changed(flavor: TasFlavor, leaves: dict[str, dict[str, int]], sign: int) -> None:
    """Usage ``leaves`` (leaf key -> amounts) was added (sign 1) or taken away (-1) on the
    flavor's nodes: noted for the kept counts to catch up with. The same dict stands for the
    same amounts every time it is charged (it is never changed once charged), so a charge and
    its undoing cancel out in ``_catch_up``."""
    flavor.changed.append((leaves, sign))


def _catch_up(flavor: TasFlavor, counts: Counts, used: dict[str, dict[str, int]]) -> None:
    """Recount the leaves whose usage changed since the counts were last brought up to date.
    A cycle's reservations are taken back at its end, and a preemption search sets aside and
    puts back the same candidates: most notes cancel out, and their leaves need no recount."""
    net: dict[int, list] = {}
    for leaves, sign in flavor.changed[counts.seen:]:
        known = net.get(id(leaves))
        if known is None:
            net[id(leaves)] = [leaves, sign]
        else:
            known[1] += sign
    leaf_of, free, feasible = flavor.leaf_of, flavor.free, counts.feasible
    for key in {key for leaves, sign in net.values() if sign for key in leaves}:
        leaf = leaf_of.get(key)
        if leaf is not None and leaf in feasible:
            counts.refresh(leaf, free[key], used.get(key))
    counts.seen = len(flavor.changed)


def shape_of(ask: PodSetAsk) -> tuple:
    """What the counts of a pod set depend on besides the nodes (worked out once per ask)."""
    if not ask.shape:
        ask.shape = (tuple(sorted(ask.per_pod.items())), repr(ask.tolerations),
                     repr(sorted(ask.node_selector.items())), repr(ask.affinity_terms))
    return ask.shape


def _fill(flavor: TasFlavor, ask: PodSetAsk, used, assumed) -> Counts:
    counts = Counts(ask.per_pod, [len(level) for level in flavor.levels_by_depth])
    tolerations = list(ask.tolerations) + list(flavor.tolerations)
    pods = counts.pods
    for leaf in flavor.leaves:
        counts.stats.total += 1
        pods[leaf] = 0
        if flavor.by_host and not _node_admits(leaf.node, ask, tolerations, counts.stats):
            continue
        counts.feasible.add(leaf)
        taken = None if used is None else used.get(leaf.key)
        pods[leaf] = counts.count_leaf(leaf, _remaining(flavor.free[leaf.key], taken, assumed.get(leaf.key)))
    for depth in range(len(flavor.levels) - 2, -1, -1):
        for domain in flavor.levels_by_depth[depth].values():
            pods[domain] = sum(pods[child] for child in domain.children)
    counts.ordered = [sorted(pods[domain] * span + domain.rank for domain in level.values())
                      for level, span in zip(flavor.levels_by_depth, counts.spans)]
    counts.total = sum(pods[leaf] for leaf in flavor.leaves)
    return counts


def _node_admits(node, ask: PodSetAsk, tolerations: list, stats: Exclusions) -> bool:
    """Kueue's feasibility checker: taints first, then the node selector, then affinity."""
    taint = untolerated_taint(node, tolerations)
    if taint is not None:
        value = taint.get("value") or ""      # corev1.Taint.ToString: key[=value]:effect
        text = f"{taint.get('key', '')}{'=' + str(value) if value else ''}:{taint.get('effect')}"
        stats.taints[text] = stats.taints.get(text, 0) + 1
        return False
    if not selects(node, ask.node_selector):
        stats.selector += 1
        return False
    if not affinity_allows(node, ask.affinity_terms):
        stats.affinity += 1
        return False
    return True


def _remaining(free: dict[str, int], taken: dict[str, int] | None, assumed: dict[str, int] | None) -> dict[str, int]:
    if not taken and not assumed:
        return free
    left = dict(free)
    for amounts in (taken, assumed):
        for resource, amount in (amounts or {}).items():
            left[resource] = left.get(resource, 0) - amount
    return left
