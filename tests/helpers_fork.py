"""Ways a forked child can fail, for tests of the work it takes over."""

from __future__ import annotations

import os

from kueuelint import forked

FAILURES = ["child dies", "no fork"]


def make_the_child_fail(monkeypatch, failure: str) -> None:
    if failure == "child dies":
        monkeypatch.setattr(forked, "_child_main", lambda work, writer: os._exit(3))
    else:
        def no_fork():
            raise OSError("fork: resource temporarily unavailable")
        monkeypatch.setattr(forked.os, "fork", no_fork)
