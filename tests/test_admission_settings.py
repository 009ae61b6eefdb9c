"""What the Kueue Configuration changes in the simulated scheduler (kueuelint.admission.settings)."""

from __future__ import annotations

import pytest

from kueuelint.admission.settings import GATE_DEFAULTS, fair_sharing_enabled, feature_gates

V1BETA1 = "config.kueue.x-k8s.io/v1beta1"
V1BETA2 = "config.kueue.x-k8s.io/v1beta2"


def test_gates_default_as_kueue_v0_19_2():
    assert feature_gates({}) == {"FlavorFungibilityPreserveScanProgress": True}
    assert feature_gates({}) is not GATE_DEFAULTS


def test_a_gate_the_configuration_names_wins_and_others_are_left_alone():
    gates = feature_gates({"featureGates": {"FlavorFungibilityPreserveScanProgress": False, "TopologyAwareScheduling": True}})
    assert gates == {"FlavorFungibilityPreserveScanProgress": False}


@pytest.mark.parametrize("value", ["false", 0, None])
def test_a_gate_value_that_is_not_a_boolean_keeps_the_default(value):
    assert feature_gates({"featureGates": {"FlavorFungibilityPreserveScanProgress": value}})[
        "FlavorFungibilityPreserveScanProgress"] is True


@pytest.mark.parametrize(("config", "enabled"), [
    ({"apiVersion": V1BETA2, "fairSharing": {}}, True),
    ({"apiVersion": V1BETA2, "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare"]}}, True),
    ({"apiVersion": V1BETA2}, False),
    ({"apiVersion": V1BETA1, "fairSharing": {}}, False),
    ({"apiVersion": V1BETA1, "fairSharing": {"enable": True}}, True),
    ({"apiVersion": V1BETA1, "fairSharing": {"enable": False}}, False),
    ({"fairSharing": {"enable": True}}, True),
    ({"fairSharing": {}}, False),
    ({"apiVersion": V1BETA2, "fairSharing": "yes"}, False),
])
def test_fair_sharing_follows_the_configuration_version(config, enabled):
    assert fair_sharing_enabled(config) is enabled
