"""The Kubernetes CEL lists library (isSorted, sum, min, max, indexOf, lastIndexOf) and sets.*."""

from __future__ import annotations

from typing import Any

from kueuelint.cel.k8s_values import LibraryError, _check_int64, _order_kind, _spec, cel_equal


# --- lists ------------------------------------------------------------------


def list_is_sorted(values: list) -> bool:
    _order_kind(values)
    return all(a <= b for a, b in zip(values, values[1:], strict=False))


def list_sum(values: list) -> int | float:
    if _order_kind(values) not in (None, "number"):
        raise LibraryError("sum() needs a list of numbers")
    total = sum(values)
    return _check_int64(total) if isinstance(total, int) else total


def list_min(values: list) -> Any:
    if not values:
        raise LibraryError("min() of an empty list")
    _order_kind(values)
    return min(values)


def list_max(values: list) -> Any:
    if not values:
        raise LibraryError("max() of an empty list")
    _order_kind(values)
    return max(values)


def list_index_of(values: list, item: Any) -> int:
    return next((i for i, v in enumerate(values) if cel_equal(v, item)), -1)


def list_last_index_of(values: list, item: Any) -> int:
    matches = [i for i, v in enumerate(values) if cel_equal(v, item)]
    return matches[-1] if matches else -1


# --- sets -------------------------------------------------------------------


def sets_contains(values: list, wanted: list) -> bool:
    return all(list_index_of(values, w) >= 0 for w in wanted)


def sets_equivalent(left: list, right: list) -> bool:
    return sets_contains(left, right) and sets_contains(right, left)


def sets_intersects(left: list, right: list) -> bool:
    return any(list_index_of(left, r) >= 0 for r in right)


LIST_FUNCTIONS = (
    _spec("isSorted", "list_is_sorted", "list", "bool", list_is_sorted),
    _spec("sum", "list_sum", "list", "dyn", list_sum),
    _spec("min", "list_min", "list", "dyn", list_min),
    _spec("max", "list_max", "list", "dyn", list_max),
    _spec("indexOf", "list_index_of", "list dyn", "int", list_index_of),
    _spec("lastIndexOf", "list_last_index_of", "list dyn", "int", list_last_index_of),
)

# Dotted names: only engines that resolve qualified function names can take these.
SETS_FUNCTIONS = (
    _spec("sets.contains", "sets_contains", "list list", "bool", sets_contains, member=False),
    _spec("sets.equivalent", "sets_equivalent", "list list", "bool", sets_equivalent, member=False),
    _spec("sets.intersects", "sets_intersects", "list list", "bool", sets_intersects, member=False),
)
