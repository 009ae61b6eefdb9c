"""The cel-expr-python (cel-cpp) engine, kueuelint's default."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from cel_expr_python import cel

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

# Expressions that call only standard CEL get an environment without the
# extension libraries and the Kubernetes functions: importing those costs about
# 20 ms, a seventh of a one-file run, and the built-in rules need none of them.
# A call to anything else, a namespace (sets., math., ...) or optional syntax
# asks for the full environment; a wrong guess only fails to type-check in the
# core one and is compiled again with everything.
_CORE_CALLS = frozenset({
    "has", "all", "exists", "exists_one", "map", "filter", "size", "type", "int", "uint",
    "double", "string", "bytes", "bool", "dyn", "duration", "timestamp", "matches", "contains",
    "startsWith", "endsWith", "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth",
    "getDate", "getDayOfWeek", "getHours", "getMinutes", "getSeconds", "getMilliseconds",
})
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_NAMESPACE = re.compile(r"\b(?:sets|math|base64|cel|optional|strings)\s*\.")
# Between the two: expressions whose only extras are cel.bind and the string functions
# (KQ204's kind) get just those two extensions, about 10 ms less to build per process than
# the full set. Names the Kubernetes library overloads as well (indexOf on lists) are left
# out: with DYN variables the checker could not tell which overload a call needs.
_STRING_CALLS = frozenset({
    "bind", "charAt", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
    "join", "quote", "format", "reverse",
})
_BIND = re.compile(r"\bcel\s*\.\s*bind\s*\(")
# cel-cpp compiles the regular expression of `matches` on every call (13 us, a third of
# KQ204's time per object, though queue names repeat).  Programs are evaluated with
# `text.kueuelintMatches(pattern)` instead, which asks the engine's own `matches` once per
# text and pattern and remembers the answer or the error: the same results and messages.
# The source as written is still what is type-checked, so compile errors do not change.
_MATCHES = re.compile(r"\.(\s*)matches(\s*\()")
_MATCHES_HELPER = "kueuelintMatches"
_LIBRARY, _STRINGS, _CORE = b"L", b"S", b"C"     # which environment a serialized program needs
_TAGS = (_CORE, _STRINGS, _LIBRARY)
_LEVELS = {tag: level for level, tag in enumerate(_TAGS)}


def _level(source: str) -> int:
    """0: standard CEL is enough; 1: cel.bind and the string functions; 2: everything."""
    if "?." in source or "[?" in source:
        return 2
    calls = set(_CALL.findall(source)) - _CORE_CALLS
    if not calls and not _NAMESPACE.search(source):
        return 0
    unbound = _BIND.sub("(", source)
    if calls <= _STRING_CALLS and not _NAMESPACE.search(unbound) and \
            ("bind" not in calls or "bind" not in set(_CALL.findall(unbound))):
        return 1
    return 2


def _with_matches_helper(source: str) -> str:
    """``source`` with each ``.matches(`` outside string literals calling the helper; a
    source that calls the helper itself is refused (it is no CEL function)."""
    if "atches" not in source:
        return source
    from kueuelint.cel.text import code_spans

    spans = code_spans(source)
    if any(is_code and _MATCHES_HELPER in source[start:end] for start, end, is_code in spans):
        raise CelCompileError(f"undeclared reference to '{_MATCHES_HELPER}' (kueuelint's own "
                              f"function: call matches)")
    return "".join(_MATCHES.sub(rf".\1{_MATCHES_HELPER}\2", source[start:end]) if is_code
                   else source[start:end] for start, end, is_code in spans)


class _RememberedMatches:
    """``text.matches(pattern)`` as the engine answers it, once per text and pattern."""

    MAX_ANSWERS = 10_000    # distinct (text, pattern) pairs kept; then it starts over
    # cel-expr-python turns an exception raised by a Python function into an error whose text
    # is "<status>: <message>", the status chosen by the exception's type.
    _RAISED_AS = {"INVALID_ARGUMENT": TypeError, "OUT_OF_RANGE": ValueError,
                  "NOT_FOUND": LookupError, "UNIMPLEMENTED": NotImplementedError,
                  "RESOURCE_EXHAUSTED": MemoryError}

    # The global form of the function: a member call would be rewritten to call this helper.
    NATIVE_SOURCE = "matches(text, pattern)"

    def __init__(self, native_program) -> None:
        self._answers: dict[tuple[str, str], bool | tuple[str, str]] = {}
        # gives the compiled NATIVE_SOURCE, through the disk cache: parsing it costs ~1 ms
        self._native_program = native_program
        self._native = None     # (env, expression) of the engine's own `matches`

    def __call__(self, text: str, pattern: str) -> bool:
        answer = self._answers.get((text, pattern))
        if answer is None:
            if len(self._answers) >= self.MAX_ANSWERS:
                self._answers.clear()
            answer = self._answers[(text, pattern)] = self._ask(text, pattern)
        return self._raise_or_return(answer)

    def _ask(self, text: str, pattern: str) -> bool | tuple[str, str]:
        """The native answer, or its error as (status, message)."""
        if self._native is None:
            self._native = self._native_program()
        env, expression = self._native
        value = expression.eval(env.Activation({"text": text, "pattern": pattern}))
        if value.type() != _ERROR:
            return value.value()
        status, _, message = str(value.value()).partition(": ")
        return status, message

    def _raise_or_return(self, answer: bool | tuple[str, str]) -> bool:
        if isinstance(answer, bool):
            return answer
        status, message = answer
        raise self._RAISED_AS.get(status, RuntimeError)(message)


def _matches_extension(matches: _RememberedMatches) -> cel.CelExtension:
    # Other operand types find no overload, as with `matches`; the error says `matches` again
    # (CelExprProgram.evaluate).
    overload = cel.Overload("kueuelint_matches_string", _T.BOOL, [_T.STRING, _T.STRING],
                            is_member=True, impl=matches)
    return cel.CelExtension("kueuelint_matches", [cel.FunctionDecl(_MATCHES_HELPER, [overload])])


def _library_files() -> list[str]:
    # The Kubernetes functions' declarations live in these files; their stats stand in for
    # the declaration text, which would mean importing the library on every start.
    folder = os.path.dirname(os.path.abspath(__file__))
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.startswith("k8s_") and name.endswith(".py"))


def _extensions(level: int) -> list[cel.CelExtensionBase]:
    if level == 0:
        return []
    from cel_expr_python.ext import ext_bindings, ext_strings

    if level == 1:
        return [ext_strings.ExtStrings(), ext_bindings.ExtBindings()]
    from cel_expr_python.ext import ext_encoders, ext_math, ext_optional

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
    from kueuelint.cel import k8s_library as lib

    by_name: dict[str, list[cel.Overload]] = {}
    for spec in lib.KUBERNETES_FUNCTIONS + lib.SETS_FUNCTIONS:
        by_name.setdefault(spec.name, []).append(_overload(spec))
    # Declared inside a CelExtension: list-typed member overloads passed via
    # NewEnv(functions=...) compile but never match at run time.
    decls = [cel.FunctionDecl(name, overloads) for name, overloads in by_name.items()]
    return cel.CelExtension("kueuelint_kubernetes", decls)


def _overload(spec) -> cel.Overload:
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
    __slots__ = ("source", "_expression", "level")

    def __init__(self, source: str, expression: cel.Expression, level: int) -> None:
        self.source = source
        self._expression = expression
        self.level = level      # the environment it was compiled in (see _level)

    def evaluate(self, activation: Any) -> Any:
        try:
            value = self._expression.eval(activation)
        except (RuntimeError, TypeError, ValueError) as err:
            raise CelEvalError(str(err)) from err
        return _result(value)

    def evaluate_values(self, values: dict[str, Any]) -> Any:
        """``evaluate`` with an activation of ``values`` made by the engine itself: cheaper
        than an Activation object when only one program reads them."""
        try:
            value = self._expression.eval(data=values)
        except (RuntimeError, TypeError, ValueError) as err:
            raise CelEvalError(str(err)) from err
        return _result(value)


def _result(value) -> Any:
    # cel-cpp reports evaluation errors as ERROR values instead of raising; their plain value
    # is the message, so only a string result needs the (two-call) type test
    plain = value.plain_value()
    if plain.__class__ is str and value.type() == _ERROR:
        raise CelEvalError(plain.replace(_MATCHES_HELPER, "matches"))
    return _plain(plain)


class CelExprEngine:
    name = NAME
    has_bind = True     # cel.bind needs no rewrite (kueuelint.checks.cel_rules._compile_without_binds)

    def __init__(self) -> None:
        self.version = installed_version(cel.__file__, NAME)
        self._envs: dict[tuple[int, tuple[str, ...]], cel.Env] = {}
        self._matches = _RememberedMatches(self._native_matches)
        self._activation_env: cel.Env | None = None
        # "matches=1": programs cached before they called the remembering `matches` are
        # compiled again.
        self.fingerprint = fingerprint([NAME, self.version, f"check={TYPE_CHECK}", "envs=3",
                                        "matches=1"], [cel.__file__, *_library_files()])

    def _env(self, variables: Sequence[str], level: int) -> cel.Env:
        key = (level, tuple(sorted(set(variables))))
        env = self._envs.get(key)
        if env is None:
            declared = {name: _T.DYN for name in key[1]}
            extensions = [*_extensions(level), _matches_extension(self._matches)]
            env = cel.NewEnv(variables=declared, extensions=extensions)
            self._envs[key] = env
        return env

    def _native_matches(self) -> tuple[cel.Env, cel.Expression]:
        from kueuelint.cel.cache import compile_cached

        variables = ("pattern", "text")
        program = compile_cached(_RememberedMatches.NATIVE_SOURCE, variables, self)
        return self._env(variables, program.level), program._expression

    def compile(self, source: str, variables: Sequence[str]) -> CelExprProgram:
        level = _level(source)
        if level == 2:
            return self._compile_in(source, variables, level)
        try:
            return self._compile_in(source, variables, level)
        except CelCompileError:     # the guess missed a library function: it is there in full
            return self._compile_in(source, variables, 2)

    def _compile_in(self, source: str, variables: Sequence[str], level: int) -> CelExprProgram:
        env = self._env(variables, level)
        try:
            expression = env.compile(source, disable_check=not TYPE_CHECK)
        except RuntimeError as err:
            raise CelCompileError.from_report(str(err)) from err
        evaluated = _with_matches_helper(source)
        if evaluated != source:
            try:
                expression = env.compile(evaluated, disable_check=not TYPE_CHECK)
            except RuntimeError:    # cannot happen, as far as we know: then as written
                pass
        return CelExprProgram(source, expression, level)

    def activation(self, values: dict[str, Any]) -> Any:
        # An activation from any env works with programs of every env; it
        # converts the Python values lazily, on first access.
        if self._activation_env is None:
            self._activation_env = self._env((), 0)
        try:
            return self._activation_env.Activation(values)
        except (RuntimeError, TypeError, ValueError) as err:
            raise CelEvalError(f"cannot pass values to CEL: {err}") from err

    def serialize(self, program: CelExprProgram) -> bytes | None:
        try:
            body = bytes(program._expression.serialize())
        except (RuntimeError, AttributeError):
            return None
        return _TAGS[program.level] + body

    def deserialize(self, source: str, variables: Sequence[str], blob: bytes) -> CelExprProgram | None:
        level = _LEVELS.get(blob[:1])
        if level is None:
            return None     # written before programs said which environment they need
        try:
            return CelExprProgram(source, self._env(variables, level).deserialize(blob[1:]), level)
        except Exception:  # a stale or corrupt blob must only cost a recompile
            return None


def create_engine() -> CelExprEngine:
    return CelExprEngine()
