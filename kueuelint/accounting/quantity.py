"""Kubernetes resource quantities, parsed exactly.

Quantities are kept as ``Decimal`` all the way: floats would turn ``0.1`` CPU into
``0.1000000000000000055`` and a sum of such values can tip a quota check by one milli-unit.
Kueue itself counts in integers (cpu in milli-units, everything else in whole units), so
``to_kueue_units`` is the only place where rounding happens, and it rounds up like Kueue does.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation, localcontext
from functools import lru_cache

INT64_MAX = 2**63 - 1

DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

# Hostile or mistyped input must not make us build numbers with millions of digits.
MAX_TEXT_LENGTH = 100
MAX_EXPONENT_DIGITS = 4

EXPECTED_FORM = ("expected a number with an optional suffix (n, u, m, k, M, G, T, P, E, "
                 "Ki, Mi, Gi, Ti, Pi, Ei) or exponent, e.g. '500m', '1.5Gi', '2' or '1e3'")

_NUMBER = re.compile(r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)", re.DOTALL)
_EXPONENT = re.compile(r"[eE]([+-]?\d+)")

# Suffixes people write by habit from other tools, with the Kubernetes spelling they meant.
_SUFFIX_HINTS = {
    "kb": "Ki or k", "mb": "Mi or M", "gb": "Gi or G", "tb": "Ti or T", "pb": "Pi or P",
    "eb": "Ei or E", "K": "k or Ki", "g": "G or Gi", "t": "T or Ti", "p": "P or Pi",
    "kib": "Ki", "mib": "Mi", "gib": "Gi", "tib": "Ti", "pib": "Pi", "eib": "Ei",
}

_BYTE_RESOURCES = frozenset({"memory", "ephemeral-storage", "storage"})


def exact_arithmetic():
    """A context in which sums and products of quantities never round.

    The default 28 digits are not enough once nano-units meet int64-sized values.
    """
    return localcontext(prec=200)


class QuantityError(ValueError):
    """A value that Kubernetes would reject as a resource quantity."""

    def __init__(self, value: object, reason: str) -> None:
        self.value = value
        self.reason = reason
        super().__init__(f"invalid quantity {value!r}: {reason}")


def parse_quantity(value: object) -> Decimal:
    """The exact value of a quantity given as YAML text, int or float."""
    if isinstance(value, bool):
        raise QuantityError(value, "a boolean is not a quantity; " + EXPECTED_FORM)
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return _parse_float(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise QuantityError(value, "not a finite number")
        return value
    if not isinstance(value, str):
        raise QuantityError(value, f"expected a string or number, got {type(value).__name__}")
    return _parse_text(value)


def is_quantity(value: object) -> bool:
    try:
        parse_quantity(value)
    except QuantityError:
        return False
    return True


def _parse_float(value: float) -> Decimal:
    if not math.isfinite(value):
        raise QuantityError(value, "not a finite number")
    # repr gives the shortest text that round-trips, i.e. what the user wrote in YAML.
    return Decimal(repr(value))


# Manifests repeat a handful of quantities ("500m", "1Gi") thousands of times, and an exact
# Decimal context costs more than the parse itself; Decimals are immutable, so share them.
@lru_cache(maxsize=4096)
def _parse_text(text: str) -> Decimal:
    if not text:
        raise QuantityError(text, "empty; " + EXPECTED_FORM)
    if len(text) > MAX_TEXT_LENGTH:
        raise QuantityError(text[:20] + "...", f"longer than {MAX_TEXT_LENGTH} characters")
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise QuantityError(text, EXPECTED_FORM)
    sign, number, suffix = match.groups()
    with exact_arithmetic():
        magnitude = Decimal(number) * _suffix_multiplier(text, suffix)
    return -magnitude if sign == "-" else magnitude


def _suffix_multiplier(text: str, suffix: str) -> Decimal:
    if suffix in DECIMAL_SUFFIXES:
        return Decimal(1).scaleb(DECIMAL_SUFFIXES[suffix])
    if suffix in BINARY_SUFFIXES:
        return Decimal(2 ** BINARY_SUFFIXES[suffix])
    exponent = _EXPONENT.fullmatch(suffix)
    if exponent is not None:
        digits = exponent.group(1).lstrip("+-")
        if len(digits.lstrip("0")) > MAX_EXPONENT_DIGITS:
            raise QuantityError(text, "exponent out of range")
        return Decimal(1).scaleb(int(exponent.group(1)))
    raise QuantityError(text, _suffix_reason(suffix))


def _suffix_reason(suffix: str) -> str:
    if suffix.strip() != suffix:
        return "contains spaces; " + EXPECTED_FORM
    if suffix[:1] in ".0123456789":
        return "malformed number; " + EXPECTED_FORM
    hint = _SUFFIX_HINTS.get(suffix) or _SUFFIX_HINTS.get(suffix.lower())
    if hint:
        return f"unknown suffix {suffix!r} (did you mean {hint}?); " + EXPECTED_FORM
    return f"unknown suffix {suffix!r}; " + EXPECTED_FORM


# --- Kueue's integer units -------------------------------------------------------------------

@lru_cache(maxsize=4096)
def to_kueue_units(resource: str, quantity: Decimal) -> int:
    """Kueue's integer for ``quantity``: cpu in milli-units, anything else in whole units.

    Fractions round up, negatives become 0 and values beyond int64 saturate, as in Kueue.
    """
    with exact_arithmetic():
        scaled = quantity * 1000 if resource == "cpu" else quantity
    if scaled <= 0:
        return 0
    if scaled >= INT64_MAX:
        return INT64_MAX
    return int(scaled.to_integral_value(rounding=ROUND_CEILING))


def from_kueue_units(resource: str, units: int) -> Decimal:
    return Decimal(units).scaleb(-3) if resource == "cpu" else Decimal(units)


def is_byte_resource(resource: str) -> bool:
    return resource in _BYTE_RESOURCES or resource.startswith("hugepages-")


def is_extended_resource(resource: str) -> bool:
    """Kubernetes' extended resources (e.g. ``nvidia.com/gpu``): domain-prefixed names outside
    ``kubernetes.io/``; the API server wants them in whole units."""
    return "/" in resource and "kubernetes.io/" not in resource and not resource.startswith("requests.")


def pod_value_problem(resource: str, quantity: Decimal) -> str | None:
    """Why the API server refuses ``quantity`` in a pod's requests, limits or overhead."""
    if quantity < 0:
        return "must be greater than or equal to 0"
    if is_extended_resource(resource) and quantity != quantity.to_integral_value():
        return "an extended resource must be a whole number"
    return None


def format_quantity(resource: str, units: int) -> str:
    """Kubernetes' canonical text for an amount given in Kueue units (``1Gi``, ``500m``, ``2``)."""
    if resource == "cpu":
        return format_decimal(Decimal(units).scaleb(-3))
    if is_byte_resource(resource):
        return _format_binary(units)
    return str(units)


def _format_binary(amount: int) -> str:
    sign, magnitude = ("-" if amount < 0 else ""), abs(amount)
    if magnitude:
        for suffix, power in sorted(BINARY_SUFFIXES.items(), key=lambda item: -item[1]):
            if magnitude % (1 << power) == 0:
                return f"{sign}{magnitude >> power}{suffix}"
    return str(amount)


def format_decimal(quantity: Decimal, *, binary: bool = False) -> str:
    """Canonical Kubernetes text for an exact value.

    Decimal form uses the largest SI suffix that keeps an integer mantissa (``1k``, ``1500``,
    ``500m``); values finer than a nano-unit round up to ``1n`` as Kubernetes does.
    ``binary=True`` prefers ``Ki``..``Ei`` for whole numbers that they divide exactly.
    """
    if not quantity.is_finite():
        raise QuantityError(quantity, "not a finite number")
    if binary and quantity == quantity.to_integral_value():
        return _format_binary(int(quantity))
    with exact_arithmetic():
        return _format_decimal_si(quantity)


def _format_decimal_si(quantity: Decimal) -> str:
    if quantity == 0:
        return "0"
    sign = "-" if quantity < 0 else ""
    nanos = abs(quantity).scaleb(9).to_integral_value(rounding=ROUND_CEILING)
    mantissa, exponent = int(nanos), -9
    while mantissa % 1000 == 0 and exponent < 18:
        mantissa //= 1000
        exponent += 3
    suffix = next(name for name, power in DECIMAL_SUFFIXES.items() if power == exponent)
    return f"{sign}{mantissa}{suffix}"


def safe_parse(value: object) -> tuple[Decimal | None, str | None]:
    """``(quantity, None)`` or ``(None, message)``; for callers that collect problems."""
    try:
        return parse_quantity(value), None
    except QuantityError as error:
        return None, str(error)
    except (InvalidOperation, OverflowError) as error:  # belt and braces for odd Decimals
        return None, f"invalid quantity {value!r}: {error}"
