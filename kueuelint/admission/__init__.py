"""Dry admission: simulate Kueue's scheduler on a snapshot and explain each decision."""

from __future__ import annotations


def admit(snapshot_objects: list, incoming_objects: list, max_cycles: int | None = None):
    """Simulate admitting ``incoming_objects`` into the snapshot; returns (Result, JSON dict)."""
    from kueuelint.admission.report import to_json
    from kueuelint.admission.run import simulate
    from kueuelint.derive import workloads_of
    from kueuelint.index.inventory import Inventory

    inventory = Inventory(list(snapshot_objects) + list(incoming_objects))
    incoming = [obj for obj in incoming_objects if workloads_of(obj, inventory)]
    result = simulate(inventory, incoming, max_cycles)
    return result, to_json(result)
