"""Step 3: an index of every object of the run (checked files and context) for cross-references."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from kueuelint.identify.kinds import KUEUE_CONFIG_GROUP, KUEUE_GROUP
from kueuelint.identify.objects import KObject
from kueuelint.identify.placeholders import is_placeholder
from kueuelint.kueue.facts import Fact, FactStore

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_CONFIGMAP_NAMES = ("kueue-manager-config",)


class Inventory:
    """All objects by ``group/Kind``, namespace and name.

    Lookups are dictionary hits so cross-object rules stay linear in the number of objects.
    ``has_kind`` tells a rule whether the run could have held a target at all: a missing
    ClusterQueue is only worth reporting when the run saw ClusterQueues (or the user said the
    inputs are complete).
    """

    def __init__(self, objects: Iterable[KObject] = (), require_complete: bool = False) -> None:
        self.require_complete = require_complete
        self.objects: list[KObject] = []
        self._by_kind: dict[str, list[KObject]] = defaultdict(list)
        self._by_name: dict[tuple[str, str | None, str], KObject] = {}
        self._all_named: dict[tuple[str, str | None, str], list[KObject]] = defaultdict(list)
        self._position: dict[int, int] = {}
        self.facts = FactStore()   # what is computed from these objects, dropped by ``add``
        for obj in objects:
            self.add(obj)

    def add(self, obj: KObject) -> None:
        self._position[id(obj)] = len(self.objects)
        self.objects.append(obj)
        self._by_kind[obj.key].append(obj)
        self._by_name.setdefault((obj.key, obj.namespace, obj.name), obj)
        self._all_named[(obj.key, obj.namespace, obj.name)].append(obj)
        self.facts.clear()

    def of_kind(self, key: str) -> list[KObject]:
        return self._by_kind.get(key, [])

    def get(self, key: str, name: str, namespace: str | None = None) -> KObject | None:
        return self._by_name.get((key, namespace, name))

    def named(self, key: str, name: object, namespace: str | None = None) -> list[KObject]:
        """Every definition of ``name`` in run order: a name may be defined more than once
        (a kustomize base and its overlay, samples side by side)."""
        return self._all_named.get((key, namespace, name), []) if isinstance(name, str) else []

    def named_any(self, key: str, names, namespace: str | None = None) -> list[KObject]:
        """Every definition of any of ``names``, in run order."""
        found = [obj for name in set(names) for obj in self.named(key, name, namespace)]
        return sorted(found, key=lambda obj: self._position[id(obj)]) if len(found) > 1 else found

    def has_kind(self, key: str) -> bool:
        return self.require_complete or bool(self._by_kind.get(key))

    def kueue(self, kind: str, name: str, namespace: str | None = None) -> KObject | None:
        return self.get(f"{KUEUE_GROUP}/{kind}", name, namespace)

    def kueue_named(self, kind: str, name: object, namespace: str | None = None) -> list[KObject]:
        return self.named(f"{KUEUE_GROUP}/{kind}", name, namespace)

    def kueue_of_kind(self, kind: str) -> list[KObject]:
        return self.of_kind(f"{KUEUE_GROUP}/{kind}")

    # --- resolution helpers shared by rules and the admission solver -----------------------

    def local_queue_for(self, obj: KObject, queue_name: str | None) -> KObject | None:
        """The LocalQueue ``obj`` is sent to. Without a namespace of its own the object lands
        wherever it is applied, so a LocalQueue of that name in any namespace is the one when it
        is the only one; with several the target is not known."""
        if queue_name is None:
            return None
        if explicit_namespace(obj) is not None:
            return self.kueue("LocalQueue", queue_name, obj.namespace)
        found = self.local_queues_named(queue_name)
        return found[0] if len(found) == 1 else None

    def local_queues_named(self, name: str) -> list[KObject]:
        """LocalQueues called ``name`` in any namespace, in run order."""
        return LOCAL_QUEUES_BY_NAME.of(self).get(name, [])

    def cluster_queue_of(self, local_queue: KObject | None) -> KObject | None:
        name = cluster_queue_name(local_queue) if local_queue is not None else None
        return self.kueue("ClusterQueue", name) if name is not None else None

    def limit_ranges(self, namespace: str | None) -> list[KObject]:
        """The namespace's LimitRanges (a new list); asked for every pod set derived."""
        return list(LIMIT_RANGES_BY_NAMESPACE.of(self).get(namespace, ()))

    def runtime_class(self, name: str) -> KObject | None:
        return self.get("node.k8s.io/RuntimeClass", name)

    def kueue_configuration(self) -> dict | None:
        """The Kueue Configuration that applies to the run's objects, as a plain dict; None when
        it is not known: none is in the run, or several different ones are (say a kustomize
        base and an overlay, or two clusters), and picking one would be a guess."""
        found = self.kueue_configurations()
        return found[0] if len(found) == 1 else None

    def kueue_configurations(self) -> list[dict]:
        """Every distinct Kueue Configuration of the run, in run order."""
        return KUEUE_CONFIGURATIONS.of(self)


def _local_queues_by_name(inventory: Inventory) -> dict[str, list[KObject]]:
    by_name: dict[str, list[KObject]] = defaultdict(list)
    for queue in inventory.kueue_of_kind("LocalQueue"):
        by_name[queue.name].append(queue)
    return by_name


def _limit_ranges_by_namespace(inventory: Inventory) -> dict[str | None, list[KObject]]:
    by_namespace: dict[str | None, list[KObject]] = defaultdict(list)
    for limit_range in inventory.of_kind("LimitRange"):
        by_namespace[limit_range.namespace].append(limit_range)
    return by_namespace


def _find_kueue_configurations(inventory: Inventory) -> list[dict]:
    found: list[dict] = []
    for obj in inventory.of_kind(f"{KUEUE_CONFIG_GROUP}/Configuration"):
        if isinstance(obj.data, dict) and obj.data not in found:
            found.append(obj.data)
    for obj in inventory.of_kind("ConfigMap"):
        if obj.name in KUEUE_CONFIGMAP_NAMES or obj.name.endswith("-manager-config"):
            parsed = _configuration_from_configmap(obj)
            if parsed is not None and parsed not in found:
                found.append(parsed)
    return found


LOCAL_QUEUES_BY_NAME = Fact("local-queues-by-name", _local_queues_by_name)
LIMIT_RANGES_BY_NAMESPACE = Fact("limit-ranges-by-namespace", _limit_ranges_by_namespace)
KUEUE_CONFIGURATIONS = Fact("kueue-configurations", _find_kueue_configurations)


def explicit_namespace(obj: KObject) -> str | None:
    """The namespace the manifest itself sets; None when it sets none (or a placeholder): then
    ``kubectl apply -n``, kustomize or Argo CD decides, and the object is not "in default"."""
    namespace = obj.metadata.get("namespace")
    if not isinstance(namespace, str) or not namespace or is_placeholder(namespace):
        return None
    return namespace


def cluster_queue_name(local_queue: KObject) -> str | None:
    """The ClusterQueue a LocalQueue names; None when it names none (anything but a string is
    the schema's finding)."""
    name = local_queue.spec.get("clusterQueue")
    return name if isinstance(name, str) else None


def _configuration_from_configmap(obj: KObject) -> dict | None:
    import yaml  # the value is YAML text inside the ConfigMap

    data = obj.get("data")
    text = data.get("controller_manager_config.yaml") if isinstance(data, dict) else None
    if not isinstance(text, str):
        return None
    try:
        parsed = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    if not isinstance(parsed, dict):
        return None
    # JobSet and LWS ship "*-manager-config" ConfigMaps under the same key: only Kueue's counts
    api_version = parsed.get("apiVersion")
    if isinstance(api_version, str) and not api_version.startswith(KUEUE_CONFIG_GROUP + "/"):
        return None
    return parsed
