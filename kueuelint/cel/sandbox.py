"""Running one CEL evaluation within kueuelint's time and memory bounds.

Used by the CEL rules of ``checks`` and by the CRD validation rules of ``schema``, so it lives
with the engine, below both.
"""

from __future__ import annotations

import os
import re
import select
import time
from typing import Any, Callable


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
