"""Output formats. Each lives in its own module, imported only when chosen, so that start-up
stays fast; every module exposes ``render(result, stream, options) -> None``."""

from __future__ import annotations

import importlib
from typing import Callable, TextIO

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

__all__ = ["FORMATS", "ReportOptions", "Reporter", "get_reporter"]


def get_reporter(name: str) -> Reporter:
    """The ``render`` function of the format ``name``; ValueError for an unknown name."""
    if name not in _MODULES:
        raise ValueError(f"unknown output format {name!r} (choose from {', '.join(FORMATS)})")
    module = importlib.import_module(f"kueuelint.report.{_MODULES[name]}")
    return module.render
