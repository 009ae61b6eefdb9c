"""The simulator's records and vocabularies: every field of a record a forked simulator sends
back survives pickling, and every preemption reason has its words."""

from __future__ import annotations

import ast
import os
import pickle
import re
import sys
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

import pytest

from kueuelint.admission.assignment import Assignment, PodSetResult
from kueuelint.admission.model import PREEMPTION_REASONS, Admitted, Pending, PreemptionReason, sent_fields
from kueuelint.admission.partition import _TreeResult
from kueuelint.admission.model import Target
from kueuelint.admission.scheduler import Outcome
from kueuelint.admission.tas import Placement

# What a child process sends back (partition._TreeResult), and the records inside it.
SENT_BACK = (_TreeResult, Outcome, Target, Admitted, Assignment, PodSetResult, Placement)
# Fields that deliberately stay in the process that made the record.
KEPT_HOME = {Admitted: {"pending", "_rank", "_order"}}
RECORDS = {cls.__name__: cls for cls in SENT_BACK}
REPORT = Path(__file__).resolve().parent.parent / "kueuelint" / "report"
KUEUE_PREEMPTION = "/work/ref/kueue-v0.19.2/pkg/scheduler/preemption/preemption.go"


def _sample(annotation: str, name: str, number: int, depth: int):
    """A value for a field, unlike its default, of the type its annotation names."""
    head = annotation.split("[")[0].split("|")[0].strip()
    if head in RECORDS:
        return _record(RECORDS[head], depth + 1)
    makers = {"str": lambda: f"{name}-{number}", "int": lambda: 100 + number, "float": lambda: 0.5 + number,
              "bool": lambda: True, "dict": lambda: {name: number}, "list": lambda: [name, number],
              "set": lambda: {name}, "tuple": lambda: (name, number), "Any": lambda: (name,)}
    return makers[head]()


def _annotations(cls) -> dict[str, str]:
    """A record's field annotations as its source writes them (the compiled build keeps only
    erased types, ``type`` for a union)."""
    module = sys.modules[cls.__module__]
    source = Path(module.__file__).with_name(cls.__module__.rsplit(".", 1)[-1] + ".py")
    tree = ast.parse(source.read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    return {s.target.id: ast.unparse(s.annotation) for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}


def _record(cls, depth: int = 0):
    annotations = _annotations(cls)
    values = {f.name: _sample(annotations[f.name], f.name, number + 10 * depth, depth)
              for number, f in enumerate(fields(cls)) if f.init and f.name not in KEPT_HOME.get(cls, ())}
    return cls(**values)


def _plain(value):
    """A record as nested plain data, without the fields it keeps home."""
    if is_dataclass(value) and not isinstance(value, type):
        kept = KEPT_HOME.get(type(value), set())
        return (type(value).__name__,
                {f.name: _plain(getattr(value, f.name)) for f in fields(value) if f.name not in kept})
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@pytest.mark.parametrize("cls", SENT_BACK, ids=lambda cls: cls.__name__)
def test_every_field_of_a_record_sent_back_survives_pickling(cls):
    record = _record(cls)
    for f in fields(cls):
        if f.init and f.name not in KEPT_HOME.get(cls, ()):
            assert getattr(record, f.name) != f.default, f"{cls.__name__}.{f.name} kept its default"
    assert _plain(pickle.loads(pickle.dumps(record))) == _plain(record)


@dataclass
class Forgetful:
    kept: str
    lost: str = "default"

    def __reduce__(self):
        return Forgetful, (self.kept,)


def test_the_round_trip_check_sees_a_field_left_behind():
    """A record whose ``__reduce__`` forgets a field fails the comparison above."""
    record = Forgetful("a", "b")
    assert _plain(pickle.loads(pickle.dumps(record))) != _plain(record)


def test_fields_not_sent_must_come_last():
    @dataclass
    class Misordered:
        first: str
        _cache: str = ""
        later: str = ""

    assert sent_fields(Admitted, kept_home=("pending",))[-1] == "evicted"
    with pytest.raises(TypeError, match="Misordered"):
        sent_fields(Misordered)


def test_a_holder_keeps_its_pending_record_home():
    pending = Pending("ns/a", "ns", "a", "lq", 0, 0.0, 0, "uid")
    holder = Admitted("ns/a", "cq", 1, {}, 2.0, pending=pending)
    assert pickle.loads(pickle.dumps(holder)).pending is None


def test_every_preemption_reason_has_kueue_words_and_a_gloss():
    assert set(PREEMPTION_REASONS) == set(PreemptionReason)
    for words in PREEMPTION_REASONS.values():
        assert words.kueue and words.gloss and words.kueue != words.gloss


@pytest.mark.skipif(not os.path.exists(KUEUE_PREEMPTION), reason="Kueue's source is not beside the checkout")
def test_kueue_words_are_kueues_own():
    with open(KUEUE_PREEMPTION) as handle:
        source = handle.read()
    table = source[source.index("HumanReadablePreemptionReasons = map"):]
    found = dict(re.findall(r"kueue\.(\w+)Reason:\s*\"([^\"]+)\"", table[:table.index("}")]))
    assert {reason.value: words.kueue for reason, words in PREEMPTION_REASONS.items()} == found


@pytest.mark.parametrize("module", ["admission_json", "admission_text"])
def test_the_admission_reports_only_format(module):
    """The reports import no simulator code at run time (type names aside): every figure they
    show comes from ``admission.explain``."""
    tree = ast.parse((REPORT / f"{module}.py").read_text())
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and getattr(block.test, "id", "") == "TYPE_CHECKING" for node in ast.walk(block)}
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and id(node) not in typing_only and node.module}
    assert {name for name in imported if name.startswith("kueuelint.admission")} <= {"kueuelint.admission.model"}


def _two_queue_tree():
    from kueuelint.accounting.quota import QuotaTree, ResourceQuota

    tree = QuotaTree()
    for name in ("a", "b"):
        tree.add_cluster_queue(name, "cohort", {("default", "cpu"): ResourceQuota(4000)})
    tree.finalize()
    tree.add_usage("a", {("default", "cpu"): 3000})
    return tree


def _usages(tree) -> list:
    """Every node's usage (a flavor/resource used up and given back reads as unused)."""
    return [{fr: amount for fr, amount in node.usage.items() if amount}
            for node in list(tree.queues.values()) + list(tree.cohorts.values())]


def test_a_ledger_restores_the_usage_it_changed():
    from kueuelint.admission.state import UsageLedger

    tree = _two_queue_tree()
    before = _usages(tree)
    ledger = UsageLedger(tree)
    ledger.remove("a", {("default", "cpu"): 3000})
    ledger.add("b", {("default", "cpu"): 5000})      # borrows from a's freed quota
    ledger.remove("b", {("default", "cpu"): 1000})
    assert tree.usage("b", ("default", "cpu")) == 4000 and tree.borrowed("b", ("default", "cpu")) == 0
    assert _usages(tree) != before
    ledger.restore()
    assert _usages(tree) == before and ledger.changes == []
