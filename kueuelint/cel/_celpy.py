"""The cel-python (celpy) engine: pure Python, slower, used when cel-expr-python is missing.

Known gaps are listed in k8s_library's docstring. Creating the Environment
builds Lark parser tables (about 0.3 s) and raises the process recursion limit
to 2500; both happen only when this engine is asked for.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from typing import Any

import celpy
from celpy import celtypes

from kueuelint.cel import k8s_library as lib
from kueuelint.cel._versions import fingerprint, installed_version
from kueuelint.cel.engine import CelCompileError, CelEvalError

NAME = "cel-python"
_SPECS = lib.KUBERNETES_FUNCTIONS + lib.STRING_EXT_FUNCTIONS
# celpy appends a dump of the whole activation to some messages: drop it.
_ACTIVATION_DUMP = re.compile(r"\s*\(in activation .*", re.DOTALL)


def to_plain(value: Any) -> Any:
    """celtypes -> plain Python (BoolType first: it subclasses int)."""
    if value is None or isinstance(value, (datetime.datetime, datetime.timedelta)):
        return value
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, (celtypes.IntType, celtypes.UintType)):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.BytesType):
        return bytes(value)
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {to_plain(k): to_plain(v) for k, v in value.items()}
    return value


def _dispatcher(name: str, specs: list[lib.FunctionSpec]) -> Callable[..., Any]:
    """One celpy function per name, choosing the overload by argument kinds."""

    def call(*args: Any) -> Any:
        plain = [to_plain(a) for a in args]
        for spec in specs:
            if len(spec.params) == len(plain) and all(map(lib.kind_matches, spec.params, plain)):
                return celpy.json_to_cel(spec.impl(*plain))
        kinds = ", ".join(lib.kind_of(a) for a in plain)
        raise lib.LibraryError(f"found no matching overload for '{name}' applied to ({kinds})")

    return call


def _functions() -> dict[str, Callable[..., Any]]:
    by_name: dict[str, list[lib.FunctionSpec]] = {}
    for spec in _SPECS:
        by_name.setdefault(spec.name, []).append(spec)
    return {name: _dispatcher(name, specs) for name, specs in by_name.items()}


def _eval_message(err: celpy.CELEvalError) -> str:
    message, *rest = err.args or ("evaluation error",)
    if message == "return error for overflow" and len(rest) >= 2 and rest[1]:
        message = str(rest[1][0])  # celpy's label for any ValueError: show the real one
    return _ACTIVATION_DUMP.sub("", str(message))


def _compile_error(err: celpy.CELParseError) -> CelCompileError:
    cause = err.__context__
    token = getattr(cause, "token", None)
    char = getattr(cause, "char", None)
    if token is not None and token.value:
        message = f"Syntax error: unexpected {token.value!r}"
    elif token is not None:
        message = "Syntax error: unexpected end of expression"
    elif char is not None:
        message = f"Syntax error: unexpected character {char!r}"
    else:
        message = "Syntax error"
    return CelCompileError(message, err.line or 1, err.column or 1, details=str(err.args[0]))


class CelpyProgram:
    __slots__ = ("source", "_runner")

    def __init__(self, source: str, runner: celpy.Runner) -> None:
        self.source = source
        self._runner = runner

    def evaluate(self, activation: Any) -> Any:
        try:
            value = self._runner.evaluate(activation)
        except celpy.CELEvalError as err:
            raise CelEvalError(_eval_message(err)) from err
        except Exception as err:  # celpy bugs (e.g. 3-argument map) must not crash the linter
            raise CelEvalError(f"{type(err).__name__}: {err}") from err
        if isinstance(value, celpy.CELEvalError):
            raise CelEvalError(_eval_message(value))
        return to_plain(value)


class CelpyEngine:
    name = NAME

    def __init__(self) -> None:
        self.version = installed_version(celpy.__file__, NAME)
        self._env = celpy.Environment()
        self._functions = _functions()
        self.fingerprint = fingerprint([NAME, self.version, *(s.signature() for s in _SPECS)])

    def compile(self, source: str, variables: Sequence[str]) -> CelpyProgram:
        # celpy has no declarations: undeclared names fail at evaluation.
        try:
            ast = self._env.compile(source)
        except celpy.CELParseError as err:
            raise _compile_error(err) from err
        return CelpyProgram(source, self._env.program(ast, functions=self._functions))

    def activation(self, values: dict[str, Any]) -> dict[str, Any]:
        try:
            return {name: celpy.json_to_cel(value) for name, value in values.items()}
        except (TypeError, ValueError) as err:
            raise CelEvalError(f"cannot pass values to CEL: {err}") from err

    def serialize(self, program: CelpyProgram) -> bytes | None:
        return None  # only pickle could store a Lark tree; not worth the risk

    def deserialize(self, source: str, variables: Sequence[str], blob: bytes) -> CelpyProgram | None:
        return None


def create_engine() -> CelpyEngine:
    return CelpyEngine()
