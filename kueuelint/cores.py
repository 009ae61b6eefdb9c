"""How many processes a run should use: the cores that are not already busy."""

from __future__ import annotations

import os


def default_jobs() -> int:
    """The cores not already busy.  A worker on a core other work is using only competes with
    it: the run then costs half as much CPU again and finishes no sooner (measured on two cores
    at a load average of 1.5 to 2)."""
    cores = _cores()
    busy = _busy_now()
    if busy is None:
        return cores
    return max(1, min(cores, int(cores - busy + 0.5)))


PROC_LOADAVG = "/proc/loadavg"


def _busy_now() -> float | None:
    """How many other threads want a core right now.  The load average trails by a minute:
    just after a build step or an earlier run it still counts that finished work, and a run on
    an idle machine would stay on one core.  Linux says what is runnable at this moment."""
    try:
        with open(PROC_LOADAVG, encoding="ascii") as handle:
            runnable = handle.read().split()[3].split("/")[0]
        return max(0, int(runnable) - 1)   # this process is one of them
    except (OSError, IndexError, ValueError):
        pass
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)
