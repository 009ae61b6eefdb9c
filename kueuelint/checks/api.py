"""What a Python rule sees and returns.

A Python rule is a plain function ``check(obj, ctx) -> Iterable[Violation]`` registered with
``@rule("KQ123")``; its metadata (name, severity, kinds, message, docs) lives in the rule's
YAML file under ``rules/`` exactly as for CEL rules, so every rule is documented the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from kueuelint.derive import WORKLOADS
from kueuelint.findings import RunStatistics, Severity
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import Fact, FactStore
from kueuelint.index.inventory import Inventory


@dataclass
class Violation:
    """One thing a rule found wrong in one object."""

    message: str | None = None       # full text; when None the rule's message template is used
    path: tuple = ()                 # field path the user must change (finding points there)
    at_value: bool = False           # point at the value instead of the key
    args: dict[str, Any] = field(default_factory=dict)   # values for the message template
    severity: Severity | None = None # override, e.g. escalate a warning to an error
    fix: str | None = None
    obj: KObject | None = None       # report on another object than the one being checked
    # Findings this one stands for: ((code, path), ...) of other rules on the same object, e.g. a
    # semantic rule that explains a schema error better. One mistake, one finding.
    replaces: tuple = ()


@dataclass
class RuleContext:
    inventory: Inventory
    kueue_version: tuple[int, int]
    options: dict[str, Any] = field(default_factory=dict)  # per-rule options from config
    crds: tuple[str, ...] = ()          # CRD files/directories given with --crd or `crds`
    cel_engine: str | None = None       # None: the default engine
    stats: RunStatistics = field(default_factory=RunStatistics)   # shared by the rules' copies
    # the inventory's facts: a rule's fact is computed once per inventory, not per rule
    facts: FactStore = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.facts = self.inventory.facts

    def workloads(self, obj: KObject):
        """Derived workloads (pod sets and per-pod requests) of ``obj`` in this inventory."""
        return WORKLOADS.of(obj, self.inventory)


def unless_complete(inventory: Inventory) -> Severity | None:
    """The severity of "not found": certain only in a scope declared complete (require-complete),
    otherwise a warning, since the target may live in files the run did not read."""
    return None if inventory.require_complete else Severity.WARNING


def incomplete_note(inventory: Inventory | None, kinds: str) -> str:
    """What would make a "not found" certain, for messages; empty once it is."""
    if inventory is not None and inventory.require_complete:
        return ""
    return (f"; the run may not hold all the {kinds} of the cluster: declare the scope complete "
            "(require-complete) to make this certain")


RuleFunc = Callable[[KObject, RuleContext], Iterable[Violation]]
PYTHON_RULES: dict[str, RuleFunc] = {}


class RunTable(Fact):
    """A fact some rules build from every object of the run.

    In a parallel run (-j) each worker builds ``part`` from the objects it loaded itself, and
    the merged parts are provided to every worker's inventory: no worker derives every object
    of the run again.  A serial run builds it from all objects the first time a rule asks.
    """

    __slots__ = ("codes", "part", "merge")

    def __init__(self, name: str, codes: tuple[str, ...],
                 part: Callable[[list[KObject], RuleContext], Any],
                 merge: Callable[[list[Any]], Any]) -> None:
        super().__init__(name, lambda ctx: part(ctx.inventory.objects, ctx))
        self.codes = codes     # the rules that read it: built only when one of them runs
        self.part = part
        self.merge = merge


RUN_TABLES: dict[str, RunTable] = {}


def run_table(name: str, codes: tuple[str, ...], merge: Callable[[list[Any]], Any]):
    """Register ``part(objects, ctx)`` as the builder of the run table ``name``."""

    def register(part: Callable[[list[KObject], RuleContext], Any]) -> RunTable:
        table = RUN_TABLES[name] = RunTable(name, codes, part, merge)
        return table

    return register


def rule(code: str) -> Callable[[RuleFunc], RuleFunc]:
    """Register ``func`` as the implementation of the rule ``code`` described in ``rules/``."""

    def register(func: RuleFunc) -> RuleFunc:
        if code in PYTHON_RULES and PYTHON_RULES[code] is not func:
            raise ValueError(f"rule {code} is implemented twice")
        PYTHON_RULES[code] = func
        return func

    return register
