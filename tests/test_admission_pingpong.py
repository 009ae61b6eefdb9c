"""A preemption ping-pong stops its cohort tree, as the recording of Kueue's decisions does.

fixtures/admission/golden/fair-s1406 (see its SOURCES.md) holds one: ns3/wl4 reclaims quota
from ns1/wl14, which wins it back in the next cycle, again and again. Kueue would go on forever;
the simulation stops the tree after the cycle of the fourth preemption, with the preemptor still
waiting for its victim, and says so.
"""

from __future__ import annotations

import os

from test_admission_golden import GOLDEN, admit

PING_PONG = os.path.join(GOLDEN, "fair-s1406")


def test_the_tree_stops_after_the_fourth_preemption():
    data = admit(PING_PONG, [])
    assert data["warnings"] == ["ns1/wl14 was preempted 4 times (preemption ping-pong); "
                                "the simulation of its cohort tree stops after this cycle"]
    outcome = {entry["workload"]: entry for entry in data["workloads"]}
    assert (outcome["ns3/wl4"]["result"], outcome["ns3/wl4"]["cycle"]) == ("preempting", data["cycles"])
    assert outcome["ns1/wl14"]["reason"] == "Preempted"


def test_fewer_cycles_than_the_loop_needs_stop_nothing():
    data = admit(PING_PONG, ["--cycles", "20"])
    assert not data.get("warnings")
    assert data["cycles"] == 20
