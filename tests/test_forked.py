"""A forked child's result, passed through what the caller does with it before the child is reaped."""

from __future__ import annotations

import os

import pytest

from kueuelint.forked import Child
from helpers_fork import make_the_child_fail


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_result_goes_through_then_and_the_child_is_reaped():
    seen = []

    def then(value):
        seen.append(value)
        return value + 1

    child = Child.start(lambda: 41)
    assert child is not None
    assert child.result(then) == 42
    assert seen == [41] and _reaped(child.pid)


def test_without_then_the_result_is_what_the_child_returned():
    child = Child.start(lambda: {"trees": [1, 2]})
    assert child is not None and child.result() == {"trees": [1, 2]}
    assert _reaped(child.pid)


def test_a_failed_child_gives_then_none_and_is_reaped(monkeypatch):
    make_the_child_fail(monkeypatch, "child dies")
    child = Child.start(lambda: 41)
    assert child is not None
    assert child.result(lambda value: ("got", value)) == ("got", None)
    assert _reaped(child.pid)


def test_the_child_is_reaped_when_then_fails():
    child = Child.start(lambda: 41)
    assert child is not None

    def then(value):
        raise ValueError("caller's bug")

    with pytest.raises(ValueError):
        child.result(then)
    assert _reaped(child.pid)
