"""The cyclic garbage collector paused while many long-lived, acyclic objects are built.

Parsed values, typed records and simulation state are trees of fresh containers with hardly
any reference cycles. Each collection pass scans all of them again, which costs a third to
three quarters of the time of building them; reference counting still frees what is dropped.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused(freeze: bool = False):
    """No collection inside; ``freeze``: afterwards, leave what survived out of later passes
    (or the first pass after the pause would scan it all at once)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if freeze:
                gc.freeze()
            gc.enable()
