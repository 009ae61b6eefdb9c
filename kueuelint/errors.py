"""Messages for kueuelint's own failures, shared by every layer (so it imports nothing of ours)."""

from __future__ import annotations


def internal_error_message(exc: BaseException, where: str) -> str:
    """One line naming the failure, what was being done, and the innermost kueuelint frame."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "kueuelint" in f.filename]
    at = f" at {frames[-1].filename.rsplit('kueuelint', 1)[-1].lstrip('/')}:{frames[-1].lineno}" \
        if frames else ""
    return f"internal error, please report: {type(exc).__name__}: {exc} (while {where}{at})"
