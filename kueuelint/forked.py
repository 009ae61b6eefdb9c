"""Work done in a forked process, its result sent back pickled through a pipe.

Used where a large run splits into independent parts (cohort trees, halves of a large
snapshot file). A child that cannot be started or fails gives None, and the caller does the
work itself: forking only ever saves time.
"""

from __future__ import annotations

import os
import pickle
import signal
from typing import Any, Callable

from kueuelint import collector


class Child:
    """A forked process doing ``work``; ``result`` waits for what it returns."""

    def __init__(self, pid: int, reader: int) -> None:
        self.pid, self.reader = pid, reader

    @classmethod
    def start(cls, work: Callable[[], object]) -> Child | None:
        """None when no process could be started (the caller then does the work itself)."""
        try:
            reader, writer = os.pipe()
            pid = os.fork()
        except OSError:
            return None
        if pid == 0:        # pragma: no cover - runs in the child, which never returns
            os.close(reader)
            _child_main(work, writer)
        os.close(writer)
        return cls(pid, reader)

    def result(self, then: Callable[[Any], Any] | None = None) -> Any:
        """What ``work`` returned, None if the child failed; passed through ``then`` if given.
        The child is reaped last: one that touched a large heap takes a while to exit (25 ms
        for 200 MB), which goes by while its result is unpickled and ``then`` runs."""
        with os.fdopen(self.reader, "rb") as stream:
            data = stream.read()
        try:
            value = unpickled(data)
            return value if then is None else then(value)
        finally:
            os.waitpid(self.pid, 0)

    def stop(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.reader)


def unpickled(data: bytes):
    """What a child pickled into ``data``; None if it cannot be read (a child killed halfway
    leaves a truncated stream)."""
    # Results are many fresh containers without cycles: collector passes over them while
    # they are read would take most of the time (0.9 s instead of 0.2 s for 30,000 objects).
    with collector.paused():
        try:
            return pickle.loads(data) if data else None
        except Exception:
            return None


def _child_main(work: Callable[[], object], writer: int) -> None:  # pragma: no cover - after fork
    code = 1
    try:
        data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(writer, "wb") as stream:
            stream.write(data)
        code = 0
    except BaseException:
        pass
    finally:
        os._exit(code)
