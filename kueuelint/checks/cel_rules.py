"""Evaluate rules written in CEL.

A CEL rule works like a ValidatingAdmissionPolicy: ``validations`` are boolean expressions
that must hold (each with a message or messageExpression and an optional fieldPath), and
``violations`` is an expression returning a list of messages or ``{message, path}`` maps,
for rules that point at many places.  ``match`` is an optional precondition.
"""

from __future__ import annotations

import os
import re
import select
import time
from typing import Any, Callable

from kueuelint.checks.api import RuleContext, Violation
from kueuelint.checks.registry import RuleDef
from kueuelint.identify.objects import KObject

VARIABLES = ("object", "workloads", "localQueue", "clusterQueue", "kueueConfig", "kueueVersion")
_PATH_PART = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]|\[['\"]([^'\"]+)['\"]\]")


class CelRuleError(Exception):
    """The rule itself is broken (compile error, evaluation error, wrong result type)."""


# --- bounding what one evaluation may cost ----------------------------------------------
#
# CEL has no loops or recursion of its own, and the engine already bounds what it can: at most
# 100,000 code points and 32 levels of nesting per expression, and a shared budget of
# comprehension iterations per evaluation.  What it does not bound is values that grow
# geometrically -- ``cel.bind`` or ``map`` chains that double a list or string at every step,
# ``replace`` calls that multiply a string -- and cel-cpp holds the GIL while it runs, so no
# signal or thread can interrupt it.  Expressions that could grow like that are therefore
# evaluated in a forked child that is killed after CEL_TIME_LIMIT seconds (and may use at most
# CEL_MEMORY_LIMIT more bytes); every other expression runs in-process, and one that ever takes
# longer than the limit is sandboxed from then on.
# ``object.<field>`` not followed by a call; any other use of ``object`` (indexing, a macro,
# optional selection, passing it to a function, the word in a string) may read all of it.
_OBJECT_FIELD = re.compile(r"\bobject\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()")
_OBJECT = re.compile(r"\bobject\b")

CEL_TIME_LIMIT = 2.0
CEL_MEMORY_LIMIT = 1 << 30
_GROWTH = re.compile(r"\bcel\s*\.\s*bind\b|\.\s*(?:replace|format|join|repeat)\s*\(")
_MACRO = re.compile(r"\.\s*(?:map|filter|all|exists|exists_one|transformList|transformMap)\s*\(")
_STRING = re.compile("|".join((r"[rRbB]*('''|\"\"\")(?:.|\n)*?\1", r"[rRbB]*'(?:\\.|[^'\\\n])*'",
                                  r'[rRbB]*"(?:\\.|[^"\\\n])*"')))


class CelLimitExceeded(CelRuleError):
    """An evaluation ran past the time or memory limit and was stopped."""


def may_grow(source: str) -> bool:
    """Whether an expression could build values that grow geometrically (see above)."""
    code = _STRING.sub("''", source)
    return bool(_GROWTH.search(code)) or len(_MACRO.findall(code)) >= 2


def sandbox_available() -> bool:
    return hasattr(os, "fork") and hasattr(select, "poll")


def run_bounded(func: Callable[[], Any], seconds: float = CEL_TIME_LIMIT) -> Any:
    """``func()`` in a forked child, stopped after ``seconds``; its exceptions are re-raised
    here as CelRuleError, and its result must pickle."""
    import pickle  # the sandbox is rare: a one-file run does not pay for these imports
    import signal

    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(reader)
        _child(func, writer)
    os.close(writer)
    try:
        data = _read_until(reader, time.monotonic() + seconds)
    finally:
        os.close(reader)
        if data is None:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if data is None:
        raise CelLimitExceeded(f"CEL evaluation stopped after {seconds:g} s (kueuelint's time limit)")
    if not data:
        raise CelLimitExceeded("CEL evaluation ended the process (out of memory?) and was stopped")
    status, value = pickle.loads(data)
    if status == "limit":
        raise CelLimitExceeded(value)
    if status == "error":
        raise CelRuleError(value)
    return value


def _child(func: Callable[[], Any], writer: int) -> None:  # pragma: no cover - runs after fork
    import pickle

    try:
        import resource

        used = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        with open("/proc/self/statm") as handle:
            used = max(used, int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE"))
        resource.setrlimit(resource.RLIMIT_AS, (used + CEL_MEMORY_LIMIT, resource.RLIM_INFINITY))
    except (ImportError, OSError, ValueError):
        pass  # no memory bound on this platform; the time bound still holds
    try:
        try:
            result = ("ok", func())
        except MemoryError:  # cel-cpp's std::bad_alloc under the address-space limit
            result = ("limit", f"CEL evaluation stopped at {CEL_MEMORY_LIMIT >> 20} MiB "
                      "(kueuelint's memory limit)")
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
            text = str(exc) if isinstance(exc, CelRuleError) else f"{type(exc).__name__}: {exc}"
            result = ("error", text)
        payload = pickle.dumps(result)
        view = memoryview(payload)
        while view:
            view = view[os.write(writer, view):]
    finally:
        os._exit(0)


def _read_until(fd: int, deadline: float) -> bytes | None:
    """Everything the child writes, or None when the deadline passes first."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    chunks = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(remaining * 1000):
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def parse_field_path(text: str) -> tuple:
    """``spec.resourceGroups[0].flavors`` or ``metadata.labels['a/b']`` as a path tuple."""
    parts: list = []
    for match in _PATH_PART.finditer(text or ""):
        name, index, quoted = match.groups()
        parts.append(int(index) if index is not None else (quoted if quoted is not None else name))
    return tuple(parts)


class CelRule:
    def __init__(self, rule: RuleDef, engine) -> None:
        self.rule = rule
        self.engine = engine
        self.spec = rule.cel or {}
        self._programs: dict[str, Any] = {}
        sources = " ".join(str(v) for v in _all_sources(self.spec))
        self.needs = {name for name in VARIABLES if name in sources}
        self.object_fields = object_fields(sources)
        self.bounded = may_grow(sources) and sandbox_available()
        self.stopped: str | None = None

    def program(self, source: str):
        program = self._programs.get(source)
        if program is None:
            from kueuelint.cel.cache import compile_cached
            from kueuelint.cel.engine import CelCompileError

            try:
                program = compile_cached(source, VARIABLES, self.engine)
            except CelCompileError as exc:
                raise CelRuleError(f"CEL compile error at {exc.line}:{exc.column}: {exc.message}") from None
            self._programs[source] = program
        return program

    def evaluate(self, activation) -> list[Violation]:
        if self.stopped:
            raise CelLimitExceeded(self.stopped)
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
            found.extend(self._listed_violations(activation))
        return found

    def _eval(self, source: str, activation):
        from kueuelint.cel.engine import CelEvalError

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

    def _listed_violations(self, activation) -> list[Violation]:
        items = self._eval(self.spec["violations"], activation)
        if not isinstance(items, list):
            raise CelRuleError("'violations' must return a list")
        found = []
        for item in items:
            if isinstance(item, dict):
                found.append(Violation(message=item.get("message"),
                                       path=parse_field_path(str(item.get("path", "")))))
            else:
                found.append(Violation(message=str(item)))
        return found


def _all_sources(spec: dict):
    yield spec.get("match") or ""
    yield spec.get("violations") or ""
    for validation in spec.get("validations") or ():
        yield validation.get("expression", "")
        yield validation.get("messageExpression", "")


def object_fields(sources: str) -> frozenset[str] | None:
    """The top-level fields of ``object`` that the expressions read, or None when they may
    read the whole object.  CEL converts a variable's whole value on first access, and for
    a rule that looks only at the metadata of a large manifest that was most of its cost."""
    fields = _OBJECT_FIELD.findall(sources)
    if len(fields) != len(_OBJECT.findall(sources)):
        return None
    return frozenset(fields)


def activation_values(obj: KObject, ctx: RuleContext, needs: set[str],
                      fields: frozenset[str] | None = None) -> dict[str, Any]:
    """The variables CEL rules see; only the ones some rule uses are computed, and of
    ``object`` only the top-level ``fields`` when the rules read no others."""
    values: dict[str, Any] = {name: None for name in VARIABLES}
    data = obj.data
    if fields is not None and isinstance(data, dict):
        data = {key: data[key] for key in fields if key in data}
    values["object"] = data
    values["kueueVersion"] = {"major": ctx.kueue_version[0], "minor": ctx.kueue_version[1]}
    if needs & {"workloads", "localQueue", "clusterQueue"}:
        workloads = ctx.workloads(obj)
        values["workloads"] = [_workload_value(w) for w in workloads]
        queue = next((w.queue_name for w in workloads if w.queue_name), None)
        local_queue = ctx.inventory.local_queue_for(obj, queue)
        cluster_queue = ctx.inventory.cluster_queue_of(local_queue)
        values["localQueue"] = local_queue.data if local_queue else None
        values["clusterQueue"] = cluster_queue.data if cluster_queue else None
    if "kueueConfig" in needs:
        values["kueueConfig"] = ctx.inventory.kueue_configuration()
    return values


def _workload_value(workload) -> dict:
    return {
        "name": workload.name,
        "queueName": workload.queue_name,
        "priorityClass": workload.priority_class,
        "podSets": [{"name": ps.name, "count": ps.count, "minCount": ps.min_count,
                     "requests": dict(ps.requests)} for ps in workload.pod_sets],
    }
