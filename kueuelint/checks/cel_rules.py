"""Evaluate rules written in CEL.

A CEL rule works like a ValidatingAdmissionPolicy: ``validations`` are boolean expressions
that must hold (each with a message or messageExpression and an optional fieldPath), and
``violations`` is an expression returning a list of messages or ``{message, path}`` maps,
for rules that point at many places.  ``match`` is an optional precondition.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

# imported here, not in the functions that need them: an import statement costs as much as
# a small rule's evaluation, and these run once per object and rule
from kueuelint.cel.engine import CelCompileError, CelEvalError
from kueuelint.cel.sandbox import (  # noqa: F401 - re-exported: rules and tests name them here
    CEL_MEMORY_LIMIT,
    CEL_TIME_LIMIT,
    CelLimitExceeded,
    CelRuleError,
    may_grow,
    run_bounded,
    sandbox_available,
)
from kueuelint.checks.api import RuleContext, Violation
from kueuelint.checks.registry import RuleDef, builtin_rules_dir
from kueuelint.findings import Severity, format_path
from kueuelint.identify.objects import KObject

VARIABLES = ("object", "workloads", "localQueue", "clusterQueue", "kueueConfig", "kueueVersion", "params")
_PATH_PART = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]|\[['\"]([^'\"]+)['\"]\]")


def parse_field_path(text: str) -> tuple:
    """``spec.resourceGroups[0].flavors`` or ``metadata.labels['a/b']`` as a path tuple."""
    parts: list = []
    for match in _PATH_PART.finditer(text or ""):
        name, index, quoted = match.groups()
        parts.append(int(index) if index is not None else (quoted if quoted is not None else name))
    return tuple(parts)


class CelRule:
    def __init__(self, rule: RuleDef, engine, params: dict[str, Any] | None = None) -> None:
        self.rule = rule
        self.engine = engine
        self.spec = rule.cel or {}
        self._programs: dict[str, Any] = {}
        sources = " ".join(str(v) for v in _all_sources(self.spec))
        self.needs = {name for name in VARIABLES if name in sources}
        # the rule's options; they differ per rule, so such rules get an activation of their own
        self.params = dict(params or {}) if "params" in self.needs else None
        self.object_paths = rule.cel_object_paths   # worked out when the rule file was parsed
        # the sources to compile: an engine with cel.bind gets only the risky bindings rewritten
        self.expanded = rule.cel_expanded_computed if getattr(engine, "has_bind", False) else rule.cel_expanded
        # Built-in rules are reviewed and tested on their fixtures: their nested macros walk the
        # pod sets of one object, which cannot grow geometrically, and a fork per object would
        # cost more than the whole rule.  The time limit below still applies to them.
        self.bounded = may_grow(sources) and sandbox_available() and not _is_builtin(rule)
        self.stopped: str | None = None

    def program(self, source: str):
        program = self._programs.get(source)
        if program is None:
            try:
                program = _compile_without_binds(source, self.expanded, self.engine)
            except CelCompileError as exc:
                raise CelRuleError(f"CEL compile error at {exc.line}:{exc.column}: {exc.message}") from None
            self._programs[source] = program
        return program

    def evaluate(self, activation, values: dict[str, Any] | None = None) -> list[Violation]:
        """Violations of the rule; ``values`` are the activation's variables, needed only by a
        rule that reads ``params``."""
        if self.stopped:
            raise CelLimitExceeded(self.stopped)
        if self.params is not None:
            activation = self.engine.activation({**(values or {}), "params": self.params})
        if self.bounded:
            for source in _all_sources(self.spec):
                if source:
                    self.program(source)  # compile here, so the child need not and the cache keeps it
            try:
                return run_bounded(lambda: self._evaluate(activation))
            except CelLimitExceeded as exc:
                # one stop per rule and run: a thousand objects must not cost a thousand limits
                self.stopped = f"{exc}; the rule is not run again in this run"
                raise CelLimitExceeded(self.stopped) from None
        started = time.monotonic()
        found = self._evaluate(activation)
        if time.monotonic() - started > CEL_TIME_LIMIT and sandbox_available():
            self.bounded = True  # slow on this input: never again without the time limit
        return found

    def _evaluate(self, activation) -> list[Violation]:
        match = self.spec.get("match")
        if match and not self._eval_bool(match, activation):
            return []
        found: list[Violation] = []
        for validation in self.spec.get("validations") or ():
            if not self._eval_bool(validation["expression"], activation):
                found.append(self._validation_violation(validation, activation))
        if self.spec.get("violations"):
            found.extend(self._listed_violations(self._eval(self.spec["violations"], activation)))
        return found

    def part_source(self) -> str | None:
        """The rule as one expression for a CelRuleGroup: null when ``match`` is false, else
        the list of its validations' values followed by its ``violations`` (or []); None for a
        rule that must be evaluated alone."""
        if self.params is not None or self.bounded or self.stopped:
            return None
        written = self.expanded
        parts = [f"dyn(\n{written.get(v['expression'], v['expression'])}\n)"
                 for v in self.spec.get("validations") or ()]
        listed = self.spec.get("violations")
        parts.append(f"dyn(\n{written.get(listed, listed)}\n)" if listed else "dyn([])")
        body = "[" + ", ".join(parts) + "]"
        match = self.spec.get("match")
        return f"dyn((\n{written.get(match, match)}\n) ? {body} : null)" if match else f"dyn({body})"

    def violations_of(self, part, activation: _Deferred) -> list[Violation]:
        """The violations this rule's part of a CelRuleGroup's result means; raises what
        evaluating the rule alone would (then the caller does that, for the rule's own error)."""
        if part is None:
            return []
        *checks, listed = part
        found: list[Violation] = []
        for validation, holds in zip(self.spec.get("validations") or (), checks):
            if not isinstance(holds, bool):
                raise CelRuleError("a validation must return a bool")
            if not holds:
                said = activation.get() if validation.get("messageExpression") else None
                found.append(self._validation_violation(validation, said))
        if self.spec.get("violations"):
            found.extend(self._listed_violations(listed))
        return found

    def _eval(self, source: str, activation):
        try:
            return self.program(source).evaluate(activation)
        except CelEvalError as exc:
            raise CelRuleError(f"CEL evaluation error in {source!r}: {exc}") from None

    def _eval_bool(self, source: str, activation) -> bool:
        value = self._eval(source, activation)
        if not isinstance(value, bool):
            raise CelRuleError(f"expression {source!r} must return a bool, got {type(value).__name__}")
        return value

    def _validation_violation(self, validation: dict, activation) -> Violation:
        message = validation.get("message")
        if validation.get("messageExpression"):
            message = str(self._eval(validation["messageExpression"], activation))
        return Violation(message=message, path=parse_field_path(validation.get("fieldPath", "")))

    def _listed_violations(self, items) -> list[Violation]:
        if not isinstance(items, list):
            raise CelRuleError("'violations' must return a list")
        found, seen = [], set()
        for item in _flattened(items):
            violation = _listed_violation(item)
            key = (violation.message, violation.path, repr(violation.args))
            if key not in seen:   # pod sets sharing one template (LWS) must not say it twice
                seen.add(key)
                found.append(violation)
        return found


class CelRuleGroup:
    """The CEL rules of one kind as one program, evaluated once per object: the engine is
    entered, and the activation read, once instead of once per rule.  A rule's part means what
    the rule alone means; when the whole fails (an error in any part) or a part is not what the
    rule should return, the answer leaves those rules out and the caller evaluates them alone,
    so each still reports its own error (KQ009)."""

    def __init__(self, rules: list[CelRule], engine) -> None:
        self.engine = engine
        sources = {rule: rule.part_source() for rule in rules}
        self.rules = [rule for rule, source in sources.items() if source is not None]
        self.program = None
        if len(self.rules) > 1:
            combined = "[\n" + ",\n".join(sources[rule] for rule in self.rules) + "\n]"
            try:
                self.program = _compile(combined, engine)
            except CelCompileError:
                self.program = None   # each rule alone, as written

    def evaluate(self, values: dict[str, Any]) -> dict[str, list[Violation]]:
        """Violations by rule code, for the rules the group could answer for; ``values`` are
        the variables (an activation is made only for a message expression)."""
        if self.program is None:
            return {}
        if any(rule.bounded for rule in self.rules):
            self.program = None    # one proved slow alone: it runs under its limit from now on
            return {}
        started = time.monotonic()
        try:
            parts = self._parts(values)
        except CelEvalError:
            return {}
        if time.monotonic() - started > CEL_TIME_LIMIT and sandbox_available():
            self.program = None    # slow on this input: from now on each rule under its own limit
        found = {}
        activation = _Deferred(self.engine, values)
        for rule, part in zip(self.rules, parts):
            try:
                found[rule.rule.meta.code] = rule.violations_of(part, activation)
            except Exception:   # noqa: BLE001 - the rule alone raises it again, as its own error
                continue
        return found

    def _parts(self, values: dict[str, Any]) -> list:
        evaluate_values = getattr(self.program, "evaluate_values", None)
        if evaluate_values is not None:
            return evaluate_values(values)
        return self.program.evaluate(self.engine.activation(values))


class _Deferred:
    """An activation made when first needed: most objects need none after the group's program."""

    __slots__ = ("engine", "values", "_made")

    def __init__(self, engine, values: dict[str, Any]) -> None:
        self.engine, self.values, self._made = engine, values, None

    def get(self):
        if self._made is None:
            self._made = self.engine.activation(self.values)
        return self._made


def _compile(source: str, engine):
    from kueuelint.cel.cache import compile_cached

    return compile_cached(source, VARIABLES, engine)


def _compile_without_binds(source: str, expanded_sources: dict[str, str], engine):
    """The program of ``source`` with cel.bind written as ``[value].map(name, body)[0]``
    (``CelRule.expanded``, made when the rule file was parsed), which means the same: every
    binding for an engine without cel.bind (cel-python); for cel-expr-python those whose value
    is a comprehension: 0.1.3 evaluates a binding lazily and has been seen to give such a
    binding another comprehension's value (KQ801 got a map where it bound a list;
    tests/test_cel_bind_rewrite.py).  The rewrite nests deeper and costs time on every object,
    so there bindings of plain values stay as written.  When the rewrite does not compile, the
    source as written."""
    from kueuelint.cel.cache import compile_cached

    expanded = expanded_sources.get(source)
    if expanded is not None:
        try:
            return compile_cached(expanded, VARIABLES, engine)
        except CelCompileError:
            pass
    return compile_cached(source, VARIABLES, engine)


def _is_builtin(rule: RuleDef) -> bool:
    return Path(rule.meta.source).resolve().is_relative_to(builtin_rules_dir().resolve())


def _flattened(items: list):
    """The items of ``violations``, with nested lists (one per workload or pod set) opened."""
    for item in items:
        if isinstance(item, list):
            yield from _flattened(item)
        else:
            yield item


def _listed_violation(item) -> Violation:
    """One item of ``violations``: a message, or a map with ``message`` or ``args`` (values for
    the rule's message template), ``path``, and optionally ``atValue`` (point at the value, not
    the key) and ``severity`` (this finding's, when not the rule's)."""
    if not isinstance(item, dict):
        return Violation(message=str(item))
    args = item.get("args")
    if args is not None and not isinstance(args, dict):
        raise CelRuleError("'args' of a violation must be a map")
    message = item.get("message")
    return Violation(message=None if message is None else str(message),
                     path=parse_field_path(str(item.get("path", ""))),
                     at_value=item.get("atValue") is True, severity=_severity(item.get("severity")),
                     args={str(k): v for k, v in (args or {}).items()})


def _severity(value) -> Severity | None:
    if value is None:
        return None
    try:
        return Severity.parse(str(value))
    except ValueError as exc:
        raise CelRuleError(f"violation severity: {exc}") from None


def _all_sources(spec: dict):
    yield spec.get("match") or ""
    yield spec.get("violations") or ""
    for validation in spec.get("validations") or ():
        yield validation.get("expression", "")
        yield validation.get("messageExpression", "")


def merged_paths(one: dict | None, other: dict | None) -> dict | None:
    """The parts of ``object`` read by the rules of ``one`` and of ``other`` (trees as
    kueuelint.cel.text.object_paths gives them)."""
    if one is None or other is None:
        return None
    merged = dict(one)
    for name, below in other.items():
        merged[name] = merged_paths(merged[name], below) if name in merged else below
    return merged


def pruned(value: Any, paths: dict | None) -> Any:
    """``value`` with only the parts in ``paths``; what is no mapping is kept as it is."""
    if paths is None or not isinstance(value, dict):
        return value
    kept = {}   # a loop, not a comprehension: this runs for every object, at every level
    for name, below in paths.items():
        if name in value:
            kept[name] = value[name] if below is None else pruned(value[name], below)
    return kept


_QUEUE_VARIABLES = frozenset({"workloads", "localQueue", "clusterQueue"})


def activation_values(obj: KObject, ctx: RuleContext, needs: set[str],
                      paths: dict | None = None) -> dict[str, Any]:
    """The variables the CEL rules use (``needs``: the names their sources mention), and of
    ``object`` only the ``paths`` the rules read (see kueuelint.cel.text.object_paths).  The
    others are left out: each variable costs the engine a conversion, used or not."""
    values: dict[str, Any] = {}
    if "object" in needs:
        values["object"] = pruned(obj.data, paths)
    if "kueueVersion" in needs:
        values["kueueVersion"] = {"major": ctx.kueue_version[0], "minor": ctx.kueue_version[1]}
    if not needs.isdisjoint(_QUEUE_VARIABLES):
        workloads = ctx.workloads(obj)
        values["workloads"] = [_workload_value(w) for w in workloads]
        queue = next((w.queue_name for w in workloads if w.queue_name), None)
        local_queue, cluster_queue = _queues(obj, queue, ctx)
        values["localQueue"] = _as_stored(local_queue)
        values["clusterQueue"] = _as_stored(cluster_queue)
    if "kueueConfig" in needs:
        values["kueueConfig"] = ctx.inventory.kueue_configuration()
    return values


def _queues(obj: KObject, queue: str | None, ctx: RuleContext) -> tuple[KObject | None, KObject | None]:
    """The LocalQueue and ClusterQueue behind ``queue``; neither when the run defines one of them
    twice, differently (which one the cluster holds is unknown: say nothing)."""
    from kueuelint.kueue.flavor_candidates import ambiguous

    local_queue = ctx.inventory.local_queue_for(obj, queue)
    cluster_queue = ctx.inventory.cluster_queue_of(local_queue)
    if any(q is not None and ambiguous(ctx.inventory, q) for q in (local_queue, cluster_queue)):
        return None, None
    return local_queue, cluster_queue


def _as_stored(obj: KObject | None) -> dict | None:
    """The object's data with the namespace it is stored in, written or defaulted."""
    if obj is None:
        return None
    metadata = obj.data.get("metadata")
    if obj.namespace and isinstance(metadata, dict) and not metadata.get("namespace"):
        return {**obj.data, "metadata": {**metadata, "namespace": obj.namespace}}
    return obj.data


def _workload_value(workload) -> dict:
    return {
        "name": workload.name,
        "queueName": workload.queue_name,
        "queueNamePath": format_path(workload.queue_name_path) or "",
        "priorityClass": workload.priority_class,
        "podSets": [_pod_set_value(ps) for ps in workload.pod_sets],
    }


def _pod_set_value(pod_set) -> dict:
    spec = pod_set.template.get("spec") if isinstance(pod_set.template, dict) else None
    return {"name": pod_set.name, "count": pod_set.count, "minCount": pod_set.min_count,
            "requests": dict(pod_set.requests), "spec": spec,
            "specPath": format_path(pod_set.spec_path) or ""}
