"""One thin interface over the CEL engines kueuelint can run.

Engines are imported only when first asked for: importing this module costs
nothing, so commands that never evaluate CEL keep their start-up time.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import Any, Protocol

DEFAULT_ENGINE = "cel-expr-python"
FALLBACK_ENGINE = "cel-python"

# engine name -> (module that must be importable, adapter module in this package)
_ADAPTERS = {
    DEFAULT_ENGINE: ("cel_expr_python", "kueuelint.cel._cel_expr"),
    FALLBACK_ENGINE: ("celpy", "kueuelint.cel._celpy"),
}

# cel-go and cel-cpp both report "<input>:LINE:COLUMN: message", column 1-based.
_POSITION = re.compile(r"<input>:(\d+):(\d+): ([^\n]*)")


class CelCompileError(Exception):
    """A rule that does not parse or type-check. line and column are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1, details: str = "") -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column
        self.details = details or message

    @classmethod
    def from_report(cls, text: str) -> CelCompileError:
        """Build from a cel-go style report; the first error gives the position."""
        match = _POSITION.search(text)
        if not match:
            return cls(text.strip(), details=text)
        line, column, message = match.groups()
        message = re.sub(r"\s*\[[A-Z_]+\]$", "", message.strip())
        return cls(message, int(line), int(column), details=text)


class CelEvalError(Exception):
    """An expression that evaluated to a CEL error (missing field, bad overload...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Program(Protocol):
    source: str

    def evaluate(self, activation: Any) -> Any:
        """Plain Python result (bool, int, float, str, list, dict, None); raises CelEvalError."""
        ...


class Engine(Protocol):
    name: str
    version: str
    # Changes whenever declarations change, so cached compiled programs go stale.
    fingerprint: str

    def compile(self, source: str, variables: Sequence[str]) -> Program: ...

    def activation(self, values: dict[str, Any]) -> Any: ...

    def serialize(self, program: Program) -> bytes | None: ...

    def deserialize(self, source: str, variables: Sequence[str], blob: bytes) -> Program | None: ...


_engines: dict[str, Engine] = {}


def available_engines() -> list[str]:
    """Engines whose library is installed; finding a module does not import it."""
    import importlib.util  # ~8 ms, only needed here

    return [name for name, (module, _) in _ADAPTERS.items() if importlib.util.find_spec(module)]


def get_engine(name: str | None = None) -> Engine:
    """The engine called ``name``; None or "auto" picks the default, else the fallback."""
    key = name or "auto"
    if key not in _engines:
        _engines[key] = _auto_engine() if key == "auto" else _load(key)
    return _engines[key]


def _auto_engine() -> Engine:
    try:
        return get_engine(DEFAULT_ENGINE)
    except ImportError as default_error:
        try:
            return get_engine(FALLBACK_ENGINE)
        except ImportError:
            raise ImportError(
                f"no CEL engine installed: install {DEFAULT_ENGINE} or {FALLBACK_ENGINE}"
            ) from default_error


def _load(name: str) -> Engine:
    if name not in _ADAPTERS:
        choices = ", ".join(["auto", *_ADAPTERS])
        raise ValueError(f"unknown CEL engine {name!r}; choose one of: {choices}")
    library, adapter_module = _ADAPTERS[name]
    try:
        adapter = importlib.import_module(adapter_module)
    except ImportError as err:
        raise ImportError(f"CEL engine {name!r} cannot be used: {library} does not import ({err})") from err
    return adapter.create_engine()
