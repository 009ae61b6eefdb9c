"""The Kubernetes CEL quantity type: quantity(), isQuantity() and the quantity methods."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from kueuelint.accounting.quantity import exact_arithmetic, parse_quantity as parse_kubernetes_quantity
from kueuelint.cel.k8s_values import (
    INT64_MAX,
    INT64_MIN,
    QUANTITY_KEY,
    LibraryError,
    _spec,
    kind_of,
)


def parse_quantity(text: str) -> Decimal:
    try:
        return parse_kubernetes_quantity(text)
    except (ValueError, ArithmeticError) as err:
        raise LibraryError(str(err)) from err


def _make_quantity(value: Decimal) -> dict[str, str]:
    # Canonical text makes map equality mean numeric equality.
    with exact_arithmetic():
        canonical = "0" if value.is_zero() else format(value.normalize(), "f")
    return {QUANTITY_KEY: canonical}


def _amount(value: Any) -> Decimal:
    """The number inside a quantity map, or an int operand of add/sub."""
    kind = kind_of(value)
    if kind == "int":
        return Decimal(value)
    if kind != "quantity":
        raise LibraryError(f"expected a quantity, got {kind}")
    try:
        return Decimal(value[QUANTITY_KEY])
    except InvalidOperation as err:
        raise LibraryError("malformed quantity value") from err


def quantity(text: str) -> dict[str, str]:
    return _make_quantity(parse_quantity(text))


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except LibraryError:
        return False
    return True


def quantity_compare_to(left: Any, right: Any) -> int:
    a, b = _amount(left), _amount(right)
    return (a > b) - (a < b)


def quantity_is_less_than(left: Any, right: Any) -> bool:
    return _amount(left) < _amount(right)


def quantity_is_greater_than(left: Any, right: Any) -> bool:
    return _amount(left) > _amount(right)


def quantity_add(left: Any, right: Any) -> dict[str, str]:
    with exact_arithmetic():
        return _make_quantity(_amount(left) + _amount(right))


def quantity_sub(left: Any, right: Any) -> dict[str, str]:
    with exact_arithmetic():
        return _make_quantity(_amount(left) - _amount(right))


def quantity_is_integer(value: Any) -> bool:
    amount = _amount(value)
    return amount == amount.to_integral_value() and INT64_MIN <= amount <= INT64_MAX


def quantity_as_integer(value: Any) -> int:
    if not quantity_is_integer(value):
        raise LibraryError("quantity is not an int64 integer")
    return int(_amount(value))


def quantity_as_approximate_float(value: Any) -> float:
    return float(_amount(value))


def quantity_sign(value: Any) -> int:
    amount = _amount(value)
    return (amount > 0) - (amount < 0)


QUANTITY_FUNCTIONS = (
    _spec("quantity", "quantity_string", "string", "quantity", quantity, member=False),
    _spec("isQuantity", "is_quantity_string", "string", "bool", is_quantity, member=False),
    _spec("compareTo", "quantity_compare_to", "quantity quantity", "int", quantity_compare_to),
    _spec("isLessThan", "quantity_less", "quantity quantity", "bool", quantity_is_less_than),
    _spec("isGreaterThan", "quantity_greater", "quantity quantity", "bool", quantity_is_greater_than),
    _spec("add", "quantity_add_quantity", "quantity quantity", "quantity", quantity_add),
    _spec("add", "quantity_add_int", "quantity int", "quantity", quantity_add),
    _spec("sub", "quantity_sub_quantity", "quantity quantity", "quantity", quantity_sub),
    _spec("sub", "quantity_sub_int", "quantity int", "quantity", quantity_sub),
    _spec("isInteger", "quantity_is_integer", "quantity", "bool", quantity_is_integer),
    _spec("asInteger", "quantity_as_integer", "quantity", "int", quantity_as_integer),
    _spec("asApproximateFloat", "quantity_as_float", "quantity", "double", quantity_as_approximate_float),
    _spec("sign", "quantity_sign", "quantity", "int", quantity_sign),
)
