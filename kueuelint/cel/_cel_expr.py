"""The cel-expr-python (cel-cpp) engine, kueuelint's default."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_encoders, ext_math, ext_optional, ext_strings

from kueuelint.cel import k8s_library as lib
from kueuelint.cel._versions import fingerprint, installed_version
from kueuelint.cel.engine import CelCompileError, CelEvalError

NAME = "cel-expr-python"

# Programs are type-checked, with every variable declared DYN. On dynamic data
# the checker cannot narrow anything, so results equal unchecked evaluation;
# what it adds is compile-time errors with line:column for typos
# ("startswith"), wrong arity and impossible operand types, instead of an
# error only on the branch that happens to run. It also rejects mixed numeric
# *literals* such as `1 == 1.0`: the Kubernetes API server's checker does the
# same, so a rule that passes here is not rejected there for this reason.
# The price (about 2x compile time) is paid once: the disk cache stores the
# checked program.
TYPE_CHECK = True

_T = cel.Type
_KIND_TYPES = {
    "bool": _T.BOOL,
    "int": _T.INT,
    "double": _T.DOUBLE,
    "string": _T.STRING,
    "list": _T.LIST,
    "map": _T.MAP,
    "dyn": _T.DYN,
    "quantity": _T.MAP,
    "url": _T.MAP,
}
_ERROR = _T.ERROR
_SPECS = lib.KUBERNETES_FUNCTIONS + lib.SETS_FUNCTIONS


def _extensions() -> list[cel.CelExtensionBase]:
    # Our extension must come after ExtStrings: it adds list overloads to
    # indexOf/lastIndexOf, which ExtStrings declares first (else ALREADY_EXISTS).
    return [
        ext_strings.ExtStrings(),
        ext_math.ExtMath(),
        ext_optional.ExtOptional(),
        ext_bindings.ExtBindings(),
        ext_encoders.ExtEncoders(),
        _kubernetes_extension(),
    ]


def _kubernetes_extension() -> cel.CelExtension:
    by_name: dict[str, list[cel.Overload]] = {}
    for spec in _SPECS:
        by_name.setdefault(spec.name, []).append(_overload(spec))
    # Declared inside a CelExtension: list-typed member overloads passed via
    # NewEnv(functions=...) compile but never match at run time.
    decls = [cel.FunctionDecl(name, overloads) for name, overloads in by_name.items()]
    return cel.CelExtension("kueuelint_kubernetes", decls)


def _overload(spec: lib.FunctionSpec) -> cel.Overload:
    return cel.Overload(
        spec.overload_id,
        _KIND_TYPES[spec.result],
        [_KIND_TYPES[p] for p in spec.params],
        is_member=spec.member,
        impl=spec.impl,
    )


def _plain(value: Any) -> Any:
    # bytes come back as bytearray; callers expect immutable bytes.
    return bytes(value) if isinstance(value, bytearray) else value


class CelExprProgram:
    __slots__ = ("source", "_expression")

    def __init__(self, source: str, expression: cel.Expression) -> None:
        self.source = source
        self._expression = expression

    def evaluate(self, activation: Any) -> Any:
        try:
            value = self._expression.eval(activation)
        except (RuntimeError, TypeError, ValueError) as err:
            raise CelEvalError(str(err)) from err
        # cel-cpp reports evaluation errors as ERROR values instead of raising.
        if value.type() == _ERROR:
            raise CelEvalError(str(value.value()))
        return _plain(value.plain_value())


class CelExprEngine:
    name = NAME

    def __init__(self) -> None:
        self.version = installed_version(cel.__file__, NAME)
        self._extensions = _extensions()
        self._envs: dict[tuple[str, ...], cel.Env] = {}
        declarations = [f"check={TYPE_CHECK}", *(s.signature() for s in _SPECS)]
        self.fingerprint = fingerprint([NAME, self.version, *declarations], [cel.__file__])

    def _env(self, variables: Sequence[str]) -> cel.Env:
        key = tuple(sorted(set(variables)))
        env = self._envs.get(key)
        if env is None:
            declared = {name: _T.DYN for name in key}
            env = cel.NewEnv(variables=declared, extensions=self._extensions)
            self._envs[key] = env
        return env

    def compile(self, source: str, variables: Sequence[str]) -> CelExprProgram:
        try:
            expression = self._env(variables).compile(source, disable_check=not TYPE_CHECK)
        except RuntimeError as err:
            raise CelCompileError.from_report(str(err)) from err
        return CelExprProgram(source, expression)

    def activation(self, values: dict[str, Any]) -> Any:
        # An activation from any env works with programs of every env; it
        # converts the Python values lazily, on first access.
        try:
            return self._env(()).Activation(values)
        except (RuntimeError, TypeError, ValueError) as err:
            raise CelEvalError(f"cannot pass values to CEL: {err}") from err

    def serialize(self, program: CelExprProgram) -> bytes | None:
        try:
            return bytes(program._expression.serialize())
        except (RuntimeError, AttributeError):
            return None

    def deserialize(self, source: str, variables: Sequence[str], blob: bytes) -> CelExprProgram | None:
        try:
            return CelExprProgram(source, self._env(variables).deserialize(blob))
        except Exception:  # a stale or corrupt blob must only cost a recompile
            return None


def create_engine() -> CelExprEngine:
    return CelExprEngine()
