"""The order in which the minimal-set search reads preemption candidates: whatever shortcut
makes them, it must be Kueue's order, a stable sort of every source's candidates by
(evicted first, hierarchical / other queues / own queue, priority, newest, UID)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kueuelint.admission.model import Admitted, ClusterQueue, Pending, Preemption
from kueuelint.admission.preemption import _candidates_in_order, _from_source, _order_key

# (priority, reserved at, evicted) of one holder
holder = st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans())
source = st.tuples(st.booleans(), st.lists(holder, max_size=6))     # (hierarchical, holders)
policy = st.sampled_from([("Never", None), ("LowerPriority", None), ("LowerPriority", 1)])


def _holders(queue: str, specs: list, evicted: bool) -> list[Admitted]:
    # UIDs repeat across queues: equal keys in two sources must keep the sources' order.
    made = [Admitted(f"ns/{queue}-{i}", queue, priority, {}, float(at), 0.0, f"u{i % 2}",
                     evicted=evicted and gone)
            for i, (priority, at, gone) in enumerate(specs)]
    return sorted(made, key=Admitted.preemption_rank)      # as State.holders_in_order lists them


@settings(max_examples=300, deadline=None)
@given(st.lists(holder, max_size=6), st.lists(source, max_size=4), policy, st.integers(0, 4), st.booleans(),
       st.booleans())
def test_candidates_come_in_kueues_order(own, sources, borrow, priority, allow_borrowing, evicted):
    cq = ClusterQueue("mine", preemption=Preemption(borrow_policy=borrow[0], borrow_threshold=borrow[1]))
    preemptor = Pending("ns/p", "ns", "p", None, priority, 0.0, 0, "p")
    same = _holders("mine", own, evicted)
    others = [(fits, _holders(f"other{n}", specs, evicted), {}) for n, (fits, specs) in enumerate(sources)]
    listed = list(_from_source(cq, preemptor, same, None, allow_borrowing)) if same else []
    for fits, holders, _ in others:
        listed += _from_source(cq, preemptor, holders, fits, allow_borrowing)
    expected = sorted(listed, key=lambda c: _order_key(c, cq))
    found = list(_candidates_in_order(cq, preemptor, same, others, allow_borrowing))
    assert [(c.workload.key, c.kind) for c in found] == [(c.workload.key, c.kind) for c in expected]
