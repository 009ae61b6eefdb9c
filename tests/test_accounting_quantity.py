from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueuelint.accounting.quantity import (
    INT64_MAX,
    QuantityError,
    format_decimal,
    format_quantity,
    is_quantity,
    parse_quantity,
    safe_parse,
    to_kueue_units,
)


@pytest.mark.parametrize("text, expected", [
    ("1.5Gi", Decimal(1610612736)),          # 1.5 * 2**30
    ("100m", Decimal("0.1")),
    ("1e3", Decimal(1000)),
    ("1E3", Decimal(1000)),
    ("2e-3", Decimal("0.002")),
    ("1E", Decimal(10) ** 18),               # a lone E is the exa suffix, not an exponent
    ("1Mi", Decimal(1048576)),
    ("1Ki", Decimal(1024)),
    ("3Ti", Decimal(3 * 2**40)),
    ("1k", Decimal(1000)),
    ("1M", Decimal(1000000)),
    ("500u", Decimal("0.0005")),
    ("7n", Decimal("0.000000007")),
    ("+.5", Decimal("0.5")),
    ("5.", Decimal(5)),
    ("-2", Decimal(-2)),
    ("0", Decimal(0)),
    ("123456789012345678901234567890", Decimal("123456789012345678901234567890")),
])
def test_parses_kubernetes_quantities_exactly(text, expected):
    assert parse_quantity(text) == expected


def test_yaml_numbers_are_taken_as_written():
    assert parse_quantity(2) == 2
    # 0.1 as a binary float is 0.1000000000000000055...; the user wrote 0.1.
    assert parse_quantity(0.1) == Decimal("0.1")
    assert parse_quantity(1.5) == Decimal("1.5")


@pytest.mark.parametrize("value, fragment", [
    ("1.2.3", "malformed number"),
    ("10Gb", "did you mean Gi or G?"),
    ("1K", "did you mean k or Ki?"),
    ("2GB", "did you mean Gi or G?"),
    ("1Mi+", "unknown suffix 'Mi+'"),
    ("1e", "unknown suffix 'e'"),
    ("", "empty"),
    (" 1", "expected a number"),
    ("1 Gi", "contains spaces"),
    ("abc", "expected a number"),
    ("1e99999", "exponent out of range"),
    ("9" * 200, "longer than"),
    (True, "a boolean is not a quantity"),
    (None, "got NoneType"),
    ([1], "got list"),
    (float("nan"), "not a finite number"),
    (float("inf"), "not a finite number"),
])
def test_rejects_invalid_quantities_with_a_clear_message(value, fragment):
    with pytest.raises(QuantityError) as caught:
        parse_quantity(value)
    message = str(caught.value)
    assert fragment in message
    assert isinstance(caught.value, ValueError)
    assert not is_quantity(value)


def test_message_names_the_text_and_the_expected_form():
    with pytest.raises(QuantityError, match=r"invalid quantity '10Gb'.*e\.g\. '500m', '1\.5Gi'"):
        parse_quantity("10Gb")


def test_safe_parse_returns_a_message_instead_of_raising():
    assert safe_parse("250m") == (Decimal("0.25"), None)
    amount, message = safe_parse("1.2.3")
    assert amount is None and "'1.2.3'" in message


@pytest.mark.parametrize("resource, text, units", [
    ("cpu", 0.1, 100),                 # 0.1 cpu -> 100m
    ("cpu", "100m", 100),
    ("cpu", "2", 2000),
    ("cpu", "1n", 1),                  # rounds up to one milli-cpu
    ("cpu", "1500001u", 1501),         # 1500.001m -> 1501m
    ("memory", "1.5Gi", 1610612736),
    ("memory", "1Mi", 1048576),
    ("memory", "0.5", 1),              # half a byte rounds up
    ("memory", "1e3", 1000),
    ("nvidia.com/gpu", "1", 1),
    ("nvidia.com/gpu", "100m", 1),     # whole units for everything but cpu
    ("cpu", "-1", 0),                  # negatives are floored
    ("memory", "1e9999", INT64_MAX),   # saturates like Kueue
])
def test_kueue_units_round_up(resource, text, units):
    assert to_kueue_units(resource, parse_quantity(text)) == units


@pytest.mark.parametrize("resource, units, text", [
    ("cpu", 2000, "2"),
    ("cpu", 500, "500m"),
    ("cpu", 1500, "1500m"),
    ("cpu", 0, "0"),
    ("memory", 2**30, "1Gi"),
    ("memory", 512 * 2**20, "512Mi"),
    ("memory", 1536 * 2**20, "1536Mi"),     # 1.5Gi: largest suffix that divides exactly
    ("memory", 1000, "1000"),
    ("memory", 0, "0"),
    ("ephemeral-storage", 10 * 2**30, "10Gi"),
    ("hugepages-2Mi", 4 * 2**20, "4Mi"),
    ("nvidia.com/gpu", 3, "3"),
    ("pods", 1024, "1024"),
])
def test_format_quantity_in_kubernetes_canonical_form(resource, units, text):
    assert format_quantity(resource, units) == text


@pytest.mark.parametrize("text, canonical, binary", [
    ("1000", "1k", "1000"),
    ("1500", "1500", "1500"),
    ("1.5", "1500m", "1500m"),
    ("0.0015", "1500u", "1500u"),
    ("1e-12", "1n", "1n"),              # below a nano-unit rounds up, as Kubernetes does
    ("-2k", "-2k", "-2000"),
    ("1.5Gi", "1610612736", "1536Mi"),
    ("0", "0", "0"),
])
def test_format_decimal(text, canonical, binary):
    assert format_decimal(parse_quantity(text)) == canonical
    assert format_decimal(parse_quantity(text), binary=True) == binary


@given(st.integers(min_value=0, max_value=2**62))
def test_cpu_format_parse_round_trip(units):
    assert to_kueue_units("cpu", parse_quantity(format_quantity("cpu", units))) == units


@given(st.integers(min_value=0, max_value=2**62))
def test_memory_format_parse_round_trip(units):
    assert to_kueue_units("memory", parse_quantity(format_quantity("memory", units))) == units


@given(st.text(max_size=12))
def test_arbitrary_text_never_raises_anything_but_quantity_error(text):
    try:
        parse_quantity(text)
    except QuantityError:
        pass
