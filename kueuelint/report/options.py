"""Options every reporter accepts; kept apart so the CLI can build them without importing a reporter."""

from __future__ import annotations

from typing import NamedTuple

from kueuelint import __version__


class ReportOptions(NamedTuple):    # made with keywords
    color: bool = False
    show_source: bool = True
    statistics: bool = False
    quiet: bool = False
    tool_version: str = __version__
    # Directory that SARIF and GitHub paths are made relative to (usually the repository root);
    # None keeps paths as the findings carry them.
    cwd_for_uris: str | None = None
