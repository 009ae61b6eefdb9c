"""What the snapshot's Kueue Configuration changes in the scheduler's decisions.

Feature gates default as Kueue v0.19.2 sets them (pkg/features/kube_features.go, the
``defaultVersionedFeatureGates`` table at that tag); a gate the Configuration names wins.
"""

from __future__ import annotations

# Gates that change what the simulated scheduler decides, with their v0.19.2 defaults.
GATE_DEFAULTS = {
    # Beta since 0.19, on: the flavor scan resumes where the previous cycle left it.
    "FlavorFungibilityPreserveScanProgress": True,
}


def feature_gates(config: dict) -> dict[str, bool]:
    """The gates the simulator follows: Kueue's defaults, overridden by ``featureGates``."""
    gates = dict(GATE_DEFAULTS)
    stated = config.get("featureGates")
    if isinstance(stated, dict):
        for name, value in stated.items():
            if name in gates and isinstance(value, bool):
                gates[name] = value
    return gates


def fair_sharing_enabled(config: dict) -> bool:
    """v1beta2 turns fair sharing on by the mere presence of ``fairSharing``
    (preemption/fairsharing/strategy.go ``Enabled``); v1beta1, or a Configuration that does
    not say its version, needs ``enable: true`` (the v1beta1 to v1beta2 conversion drops a
    section whose ``enable`` is false)."""
    fair = config.get("fairSharing")
    if not isinstance(fair, dict):
        return False
    if str(config.get("apiVersion", "")).endswith("/v1beta2"):
        return True
    return fair.get("enable") is True
