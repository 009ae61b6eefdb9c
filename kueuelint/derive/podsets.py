"""The workloads and pod sets Kueue would create for each kind of job (kueue-scheduler.md §1.1,
formats.md §1c-1d).

The derivers live in one ``kinds_*`` module per workload family, on the machinery of
``derivation``; each kind's ``KindSpec`` (``kueuelint.kueue.kinds``) names its deriver, which
this module looks up (and imports) the first time that kind is derived.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache

from kueuelint.derive.derivation import (
    DEFAULT_POD_SET,
    _Derivation,
    _Subject,
    resources_config,  # noqa: F401 - imported from here by the checks
)
from kueuelint.derive.model import Workload
from kueuelint.kueue.kinds import COMPUTE_CONFIG_DERIVER, SPECS


def derive_workloads(obj, inventory) -> list[Workload]:
    """The Workloads Kueue would create for ``obj`` ([] for kinds Kueue does not queue)."""
    if obj.key in _COMPUTE_CONFIG_KEYS:
        return _compute_config_workloads(obj, inventory)
    subject = _Subject(obj.data if isinstance(obj.data, dict) else {}, obj.key, obj.name, obj.namespace)
    return derive_subject(subject, inventory, depth=0)


def derive_subject(subject: _Subject, inventory, depth: int) -> list[Workload]:
    deriver = _DERIVERS.get(subject.key, False)
    if deriver is False:
        deriver = _DERIVERS[subject.key] = _deriver_for(subject.key)
    if deriver is None:
        return []
    derivation = _Derivation(subject, inventory, depth)
    try:
        workloads = deriver(derivation)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as error:
        # A bug here must not stop the run; the problem says what happened.
        workloads = [derivation.workload([])]
        derivation.problems.append(((), f"could not derive pod sets ({type(error).__name__}: {error})"))
    return derivation.finish(workloads)


_COMPUTE_CONFIG_KEYS = frozenset(key for key, spec in SPECS.items() if spec.deriver == COMPUTE_CONFIG_DERIVER)
# Kind key -> its deriver, or None for kinds Kueue does not queue; filled on first sight of a kind.
_DERIVERS: dict[str, Callable[[_Derivation], list[Workload]] | None] = {}


def _deriver_for(key: str) -> Callable[[_Derivation], list[Workload]] | None:
    spec = SPECS.get(key)
    return deriver_of(spec.deriver) if spec is not None and key not in _COMPUTE_CONFIG_KEYS else None


def _compute_config_workloads(obj, inventory) -> list[Workload]:
    """Anyscale and SkyPilot files are derived by their own module, when it is installed."""
    try:
        from kueuelint.derive.compute_configs import derive_compute_config_workloads
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("kueuelint.derive."):
            raise
        return []
    return derive_compute_config_workloads(obj, inventory)


# --- Kueue's own Workload --------------------------------------------------------------------

def _derive_kueue_workload(d: _Derivation) -> list[Workload]:
    drafts = []
    for index, entry in enumerate(d.sequence(("spec", "podSets"))):
        path = ("spec", "podSets", index)
        if not isinstance(entry, dict):
            d.problems.append((path, "pod set is not a mapping"))
            continue
        name = entry.get("name") if isinstance(entry.get("name"), str) else DEFAULT_POD_SET
        count = d.integer(path + ("count",), 1)
        min_count = d.integer(path + ("minCount",), None)
        drafts.append(d.draft(name, count, path + ("template",), min_count=min_count))
    workload = d.workload(drafts, label_paths=())
    queue = d.subject.get("spec", "queueName")
    if isinstance(queue, str) and queue:
        workload.queue_name, workload.queue_name_path = queue, ("spec", "queueName")
    priority = d.subject.get("spec", "priorityClassName")
    workload.priority_class = priority if isinstance(priority, str) and priority else None
    return [workload]


@lru_cache(maxsize=None)
def deriver_of(name: str) -> Callable[[_Derivation], list[Workload]]:
    """The function a KindSpec's ``deriver`` (``module:function`` under kueuelint.derive) names."""
    module_name, _, function = name.partition(":")
    return getattr(importlib.import_module(f"kueuelint.derive.{module_name}"), function)
