"""CEL values for the Kubernetes library: kinds, equality, errors and the overload record."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

QUANTITY_KEY = "__quantity__"
URL_KEY = "__url__"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class LibraryError(ValueError):
    """A CEL evaluation error raised by a library function."""


class FunctionSpec(NamedTuple):
    """One overload. For a member function the first param is the receiver.

    Kinds: bool, int, double, string, list, map, dyn, quantity, url.
    """

    name: str
    overload_id: str
    params: tuple[str, ...]
    result: str
    member: bool
    impl: Callable[..., Any]

    def signature(self) -> str:
        return f"{self.overload_id}:{','.join(self.params)}->{self.result}:{self.member}"


def kind_of(value: Any) -> str:
    """The CEL kind of a plain Python value (bool before int: bool is an int)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return _map_kind(value)
    return "null" if value is None else "other"


def _map_kind(value: dict) -> str:
    if len(value) == 1:
        if QUANTITY_KEY in value:
            return "quantity"
        if URL_KEY in value:
            return "url"
    return "map"


def kind_matches(param: str, value: Any) -> bool:
    kind = kind_of(value)
    if param == "dyn" or param == kind:
        return True
    return param == "map" and kind in ("quantity", "url")


def cel_equal(left: Any, right: Any) -> bool:
    """CEL equality: numbers compare across int/double, bool never equals a number."""
    lk, rk = kind_of(left), kind_of(right)
    numeric = ("int", "double")
    if lk != rk and not (lk in numeric and rk in numeric):
        return False
    if lk == "list":
        return len(left) == len(right) and all(map(cel_equal, left, right))
    if lk in ("map", "quantity", "url"):
        return left.keys() == right.keys() and all(cel_equal(left[k], right[k]) for k in left)
    return left == right


def _order_kind(values: list) -> str | None:
    """The one orderable kind shared by all values; mixed kinds have no order."""
    kinds = {"number" if k in ("int", "double") else k for k in map(kind_of, values)}
    if len(kinds) > 1 or not kinds <= {"number", "string", "bool", "bytes"}:
        raise LibraryError(f"no ordering for list elements of kinds {sorted(kinds)}")
    return kinds.pop() if kinds else None


def _check_int64(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise LibraryError("integer overflow")
    return value


def _spec(name, oid, params, result, impl, member=True) -> FunctionSpec:
    return FunctionSpec(name, "k8s_" + oid, tuple(params.split()), result, member, impl)
