"""Output formats. Each lives in its own module, imported only when chosen, so that start-up
stays fast; every module exposes ``render(result, stream, options) -> None``."""

from __future__ import annotations

import importlib
import sys
from typing import Callable, Iterable, TextIO

from kueuelint.findings import RunResult
from kueuelint.report.options import ReportOptions

FORMATS = ("text", "json", "sarif", "junit", "github", "gitlab")

# Module names differ from format names where the format name would shadow a stdlib module.
_MODULES = {
    "text": "text",
    "json": "json_report",
    "sarif": "sarif",
    "junit": "junit",
    "github": "github",
    "gitlab": "gitlab",
}

Reporter = Callable[[RunResult, TextIO, ReportOptions], None]

__all__ = ["FORMATS", "ReportOptions", "Reporter", "get_reporter", "write_reports"]


def get_reporter(name: str) -> Reporter:
    """The ``render`` function of the format ``name``; ValueError for an unknown name."""
    if name not in _MODULES:
        raise ValueError(f"unknown output format {name!r} (choose from {', '.join(FORMATS)})")
    module = importlib.import_module(f"kueuelint.report.{_MODULES[name]}")
    return module.render


Output = tuple[str, TextIO, bool]   # (format, stream, whether the stream is the terminal)


def write_reports(result: RunResult, outputs: Iterable[Output],
                  options_for: Callable[[TextIO, bool], ReportOptions]) -> None:
    """Render ``result`` in every format to its stream, closing the files.  An internal error
    no report went to standard output with is still said, on standard error."""
    outputs = list(outputs)
    for name, stream, to_terminal in outputs:
        try:
            get_reporter(name)(result, stream, options_for(stream, to_terminal))
        finally:
            if stream is not sys.stdout:
                stream.close()
    if result.internal_error and not any(stream is sys.stdout for _, stream, _ in outputs):
        print(f"kueuelint: {result.internal_error}", file=sys.stderr)
