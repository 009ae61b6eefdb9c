"""The pending queue of one ClusterQueue (kueue-scheduler.md §4.1-4.2).

Workloads are ordered by priority, then queue-order time. A workload that issued preemptions
stays at the head ("sticky") until it is admitted. Under BestEffortFIFO a workload that cannot be
admitted is parked as inadmissible, together with every queued workload of the same scheduling
shape (equivalence hashing); parked workloads return when quota is released in the cohort.
"""

from __future__ import annotations

import heapq

from kueuelint.admission.model import Pending

STRICT = "StrictFIFO"


# Each scheduling shape gets a number the first time it is seen: queues key their buckets by
# it, as hashing the nested shape again at every push and pop cost more than the heap itself.
_SHAPE_NUMBERS: dict[tuple, int] = {}


def shape_of(workload: Pending) -> int:
    """What makes two workloads equivalent for scheduling (plus priority, to stay safe), as the
    number of that shape."""
    cached = workload._shape
    if cached is None:
        parts = tuple(
            (ps.name, ps.count, ps.min_count, tuple(sorted(ps.per_pod.items())),
             repr(ps.tolerations), repr(sorted(ps.node_selector.items(), key=_by_key_text)),
             repr(ps.affinity_terms))
            for ps in workload.pod_sets)
        cached = workload._shape = _SHAPE_NUMBERS.setdefault((workload.priority, parts), len(_SHAPE_NUMBERS))
    return cached


def _by_key_text(item: tuple) -> str:
    # Hand-written YAML may mix keys of several types (``0: x``), which do not compare.
    return str(item[0])


class WorkloadQueue:
    def __init__(self, strategy: str = "BestEffortFIFO") -> None:
        self.strategy = strategy
        self._heap: list[tuple[tuple, Pending]] = []
        self.queued: dict[str, Pending] = {}
        # The queued workloads again, by scheduling shape: equivalence hashing looks them up
        # at every failed head, and scanning the whole queue each time was quadratic.
        self._by_shape: dict[int, dict[str, Pending]] = {}
        self.inadmissible: dict[str, Pending] = {}
        self.sticky: Pending | None = None

    def __len__(self) -> int:
        return len(self.queued) + (1 if self.sticky else 0)

    def push(self, workload: Pending) -> None:
        self.inadmissible.pop(workload.key, None)
        replaced = self.queued.get(workload.key)
        if replaced is workload:
            return
        if replaced is not None:
            self._unshape(replaced)
        self.queued[workload.key] = workload
        self._by_shape.setdefault(shape_of(workload), {})[workload.key] = workload
        heapq.heappush(self._heap, (workload.order_key(), workload))

    def _unshape(self, workload: Pending) -> None:
        same = self._by_shape.get(shape_of(workload))
        if same is not None and same.get(workload.key) is workload:
            del same[workload.key]

    def pop(self) -> Pending | None:
        if self.sticky is not None:
            head, self.sticky = self.sticky, None
            return head
        while self._heap:
            _, workload = heapq.heappop(self._heap)
            if self.queued.get(workload.key) is workload:
                del self.queued[workload.key]
                self._unshape(workload)
                return workload
        return None

    def requeue_failed(self, workload: Pending, namespace_mismatch: bool = False) -> list[Pending]:
        """Put back a head that was not admitted; returns workloads bypassed along with it."""
        if self.strategy == STRICT and not namespace_mismatch:
            self.push(workload)
            return []
        self.inadmissible[workload.key] = workload
        return [] if namespace_mismatch else self._bypass_equivalent(workload)

    def _bypass_equivalent(self, workload: Pending) -> list[Pending]:
        bucket = self._by_shape.get(shape_of(workload), {})
        same = list(bucket.values())
        bucket.clear()
        for other in same:
            del self.queued[other.key]
            self.inadmissible[other.key] = other
        return same

    def wake_inadmissible(self) -> int:
        """Quota was released nearby: every parked workload gets another chance."""
        parked = list(self.inadmissible.values())
        self.inadmissible.clear()
        for workload in parked:
            self.push(workload)
        return len(parked)
