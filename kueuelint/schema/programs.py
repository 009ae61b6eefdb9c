"""Compiled CEL programs for one CRD, on one engine, memoised per rule text.

Compile failures are remembered as the reason the rule cannot run (reported as KQ113, never a
silent pass). Evaluation returns ``(value, None)`` or ``(None, error text)`` because the API
server treats an evaluation error as a rejection, so callers need the text, not an exception.
"""

from __future__ import annotations

from typing import Any

VARIABLES = ("self", "oldSelf")


class Programs:
    def __init__(self, engine_name: str | None, digest: str) -> None:
        from kueuelint.cel.engine import get_engine

        self.engine = get_engine(engine_name)
        self.digest = digest
        self._compiled: dict[str, tuple[Any, str | None]] = {}
        self._stopped: dict[str, str] = {}

    def get(self, source: str) -> tuple[Any, str | None]:
        """(program, None) or (None, why it cannot be compiled)."""
        if source not in self._compiled:
            self._compiled[source] = self._compile(source)
        return self._compiled[source]

    def _compile(self, source: str) -> tuple[Any, str | None]:
        from kueuelint.cel.engine import CelCompileError

        try:
            return _compile_cached(self.engine, source, self.digest), None
        except CelCompileError as exc:
            return None, f"{_engine_name(self.engine)}: {_first_line(exc)}"

    def evaluate(self, program, bindings: dict) -> tuple[Any, str | None]:
        from kueuelint.cel.engine import CelEvalError
        from kueuelint.cel.sandbox import CelRuleError, may_grow, run_bounded, sandbox_available

        try:
            activation = self.engine.activation(bindings)
            if sandbox_available() and may_grow(program.source):
                # rules come from CRDs in the scanned tree: bounded like users' own CEL rules
                if program.source in self._stopped:
                    return None, self._stopped[program.source]
                return run_bounded(lambda: program.evaluate(activation)), None
            return program.evaluate(activation), None
        except CelEvalError as exc:
            return None, _first_line(exc)
        except CelRuleError as exc:
            from kueuelint.cel.sandbox import CelLimitExceeded

            if isinstance(exc, CelLimitExceeded):  # stopped once, not again for every object
                self._stopped[program.source] = _first_line(exc)
            return None, _first_line(exc).removeprefix("CelEvalError: ")


def _compile_cached(engine, source: str, digest: str):
    """Compile through the shared program cache (memory + disk, keyed by engine and source,
    so identical rules in several CRDs or CRD versions compile once)."""
    from kueuelint.cel.cache import compile_cached

    return compile_cached(source, VARIABLES, engine)


def _engine_name(engine) -> str:
    return str(getattr(engine, "name", type(engine).__name__))


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
