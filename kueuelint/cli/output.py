"""Where reports go, whether to colour them, and the progress line for long runs."""

from __future__ import annotations

import os
import sys
import time

from kueuelint.cli import UsageError


def open_outputs(formats: list[str], outputs: list[str]):
    """Pair each --format with the --output at the same position; the rest go to stdout."""
    if len(outputs) > len(formats):
        raise UsageError("more --output files than --format options")
    pairs = []
    stdout_users = 0
    for index, name in enumerate(formats):
        if index < len(outputs) and outputs[index] != "-":
            try:
                stream = open(outputs[index], "w", encoding="utf-8", newline="\n", errors=UNENCODABLE)
            except OSError as exc:
                raise UsageError(f"cannot write {outputs[index]}: {exc.strerror}") from None
            pairs.append((name, stream, False))
        else:
            stdout_users += 1
            _tolerant(sys.stdout)
            pairs.append((name, sys.stdout, True))
    if stdout_users > 1:
        raise UsageError("only one --format can go to standard output; give the others an --output FILE")
    return pairs


# File names that are not UTF-8 reach us as surrogate escapes, and a terminal may only take
# ASCII: show what cannot be encoded as an escape rather than fail while writing the report.
UNENCODABLE = "backslashreplace"


def _tolerant(stream) -> None:
    try:
        stream.reconfigure(errors=UNENCODABLE)
    except (AttributeError, ValueError):
        pass  # not a text file we can reconfigure (e.g. replaced by a test); leave it


def want_color(mode: str, stream) -> bool:
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty() and os.environ.get("TERM") != "dumb"


def progress_printer(stream, min_files: int = 50, interval: float = 0.1):
    """A callback drawing ``checking 120/4000 files`` in place; ``(0, 0)`` clears it."""
    status = status_printer(stream, interval)

    def show(done: int, total: int) -> None:
        if total == 0:
            status(None)
        elif total >= min_files:
            status(f"checking {done}/{total} files", force=done == total)

    return show


def status_printer(stream, interval: float = 0.1):
    """A callback drawing one status line in place (``reading snapshot.yaml``), at most once per
    ``interval`` unless forced; None clears it. Callers use it only for runs that surely take
    a while, so that quick runs never flicker."""
    # The first line is always drawn: the monotonic clock may start near zero (a machine up
    # for less than ``interval``), so no made-up "last drawn" time may throttle it.
    state: dict = {"last": None, "shown": False}

    def show(text: str | None, force: bool = False) -> None:
        if text is None:
            if state["shown"]:
                stream.write("\r\x1b[K")
                stream.flush()
                state["shown"] = False
            return
        now = time.monotonic()
        last = state["last"]
        if last is not None and now - last < interval and not force:
            return
        state["last"], state["shown"] = now, True
        stream.write(f"\r\x1b[K{text}")
        stream.flush()

    return show


def write_text(text: str, output: str | None) -> None:
    """Write a command's whole output to OUTPUT, or to standard output for None or '-'."""
    if output in (None, "-"):
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror}") from None
