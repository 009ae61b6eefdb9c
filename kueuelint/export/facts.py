"""Facts about other objects that an exported policy takes as parameters.

The API server shows a ValidatingAdmissionPolicy one object at a time, so a rule that needs the
LocalQueue, ClusterQueue and ResourceFlavors behind a job is exported with what the run knows of
them written into its params ConfigMap.  A rule file names the facts it needs (``vap.facts``);
each fact is a set of ConfigMap entries worked out from one inventory.

ConfigMap keys may hold only letters, digits, ``-``, ``_`` and ``.``, so a LocalQueue is keyed
``<namespace>_<name>``: neither part can contain ``_``, so the key is unambiguous, and the suffix
after the name (``.clusterQueue``) is matched whole.  A queue the run cannot tell about (its
ClusterQueue or a flavor missing, or defined twice differently) gets no entry, and the policy
does not judge the jobs sent to it.
"""

from __future__ import annotations

from typing import Callable

MAX_KEY = 253


def queue_key(namespace: str, name: str) -> str:
    return f"{namespace}_{name}"


def flavor_node_label_keys(inventory) -> dict[str, str]:
    """Per LocalQueue: its ClusterQueue's name (``.clusterQueue``) and the ``spec.nodeLabels``
    keys of every flavor of that ClusterQueue, one a line (``.nodeLabelKeys``)."""
    from kueuelint.index.inventory import explicit_namespace

    data = {}
    for local_queue in inventory.kueue_of_kind("LocalQueue"):
        namespace = explicit_namespace(local_queue)
        cluster_queue = inventory.cluster_queue_of(local_queue)
        keys = _flavor_label_keys(cluster_queue, inventory) if cluster_queue is not None else None
        base = queue_key(namespace or "", local_queue.name)
        if namespace is None or keys is None or _ambiguous(inventory, local_queue, cluster_queue) \
                or len(base) + len(".nodeLabelKeys") > MAX_KEY:
            continue
        data[base + ".clusterQueue"] = cluster_queue.name
        data[base + ".nodeLabelKeys"] = "\n".join(sorted(keys))
    return data


def _ambiguous(inventory, *objects) -> bool:
    from kueuelint.kueue.flavor_candidates import ambiguous

    return any(ambiguous(inventory, obj) for obj in objects)


def _flavor_label_keys(cluster_queue, inventory) -> set[str] | None:
    """Every flavor's nodeLabels keys over all resource groups; None when a flavor is not in the
    run or a key cannot be written one a line."""
    from kueuelint.kueue.flavor_candidates import resource_groups

    keys: set[str] = set()
    for group in resource_groups(cluster_queue):
        entries = group.get("flavors") if isinstance(group.get("flavors"), list) else []
        for entry in entries:
            name = entry.get("name") if isinstance(entry, dict) else None
            flavor = inventory.kueue("ResourceFlavor", name) if isinstance(name, str) else None
            if flavor is None:
                return None
            labels = flavor.spec.get("nodeLabels")
            keys.update(labels if isinstance(labels, dict) else ())
    if not all(isinstance(key, str) and key and "\n" not in key for key in keys):
        return None
    return keys


FACTS: dict[str, Callable] = {"flavor-node-label-keys": flavor_node_label_keys}


def facts_data(names: list[str], inventories: list) -> dict[str, str]:
    """The entries of ``names`` over every inventory (one per scope); an entry two scopes give
    differently is left out, as the cluster it is applied to cannot be told."""
    merged: dict[str, str] = {}
    conflicting: set[str] = set()
    for inventory in inventories:
        for name in names:
            for key, value in FACTS[name](inventory).items():
                if merged.setdefault(key, value) != value:
                    conflicting.add(key)
    dropped = {key.rpartition(".")[0] for key in conflicting}   # every entry of such a queue
    return {key: value for key, value in sorted(merged.items()) if key.rpartition(".")[0] not in dropped}
