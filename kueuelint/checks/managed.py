"""Whether Kueue manages an object at all, and how: a queue label, the namespace's default
LocalQueue, or ``manageJobsWithoutQueueName``.  Unmanaged samples get no integration or TAS
findings; the rules of both read this."""

from __future__ import annotations

from typing import NamedTuple

from kueuelint.checks.api import RuleContext
from kueuelint.identify.objects import KObject
from kueuelint.index.inventory import QUEUE_LABEL, explicit_namespace
from kueuelint.index.selectors import NAME_LABEL, matches
from kueuelint.kueue.facts import ObjectFact
from kueuelint.kueue.labels import home_label, metadata_path

ELASTIC = "kueue.x-k8s.io/elastic-job"
ELASTIC_GATE_ON = (0, 18)            # ElasticJobsViaWorkloadSlices: Beta, on


class Managed(NamedTuple):
    queue: str | None
    path: tuple | None       # the queue label, when there is one
    why: str                 # "queued to 'user-queue'", for messages


def managed(obj: KObject, ctx: RuleContext) -> Managed | None:
    """How Kueue comes to manage ``obj``, or None when it leaves the object alone."""
    return MANAGED.of(obj, ctx)


def _managed(obj: KObject, ctx: RuleContext) -> Managed | None:
    value, path = home_label(obj, QUEUE_LABEL)
    if isinstance(value, str) and value:
        return Managed(value, path, f"is queued to {value!r}")
    if explicit_namespace(obj) is None or not _namespace_managed(obj.namespace, ctx):
        return None  # where a namespace-less object lands, and whether Kueue manages it, is unknown
    if ctx.inventory.kueue("LocalQueue", "default", obj.namespace) is not None:
        # Kueue's webhook labels it with the namespace's default LocalQueue.
        return Managed("default", None, "gets the namespace's default LocalQueue 'default'")
    config = ctx.inventory.kueue_configuration() or {}
    if config.get("manageJobsWithoutQueueName") is True:
        return Managed(None, None, "is managed by Kueue (manageJobsWithoutQueueName is true)")
    return None


MANAGED: ObjectFact[Managed | None] = ObjectFact("managed-by-kueue", _managed)


def _namespace_managed(namespace: str, ctx: RuleContext) -> bool:
    """Does managedJobsNamespaceSelector select the namespace? False when it cannot be told,
    so an unlabelled object is never claimed for Kueue on a guess."""
    config = ctx.inventory.kueue_configuration() or {}
    selector = config.get("managedJobsNamespaceSelector")
    if not isinstance(selector, dict):
        own = config.get("namespace") if isinstance(config.get("namespace"), str) else "kueue-system"
        selector = {"matchExpressions": [{"key": NAME_LABEL, "operator": "NotIn",
                                          "values": ["kube-system", own]}]}
    found = ctx.inventory.get("Namespace", namespace)
    labels = {NAME_LABEL: namespace}
    if found is not None:
        labels.update({k: str(v) for k, v in found.labels.items()})
    else:
        keys = set((selector.get("matchLabels") or {}).keys()) | {
            e.get("key") for e in selector.get("matchExpressions") or () if isinstance(e, dict)}
        if keys - {NAME_LABEL}:
            return False
    return matches(selector, labels)


def elastic(obj: KObject, ctx: RuleContext) -> bool:
    return (ctx.kueue_version >= ELASTIC_GATE_ON
            and obj.get(*metadata_path(obj), "annotations", ELASTIC) == "true")
