"""The Kubernetes CEL library as plain Python, without any engine."""

from __future__ import annotations

import pytest

from kueuelint.cel import k8s_library as lib
from kueuelint.cel.k8s_library import LibraryError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", "1"),
        ("500m", "0.5"),
        ("1Ki", "1024"),
        ("1.5Gi", "1610612736"),
        ("1G", "1000000000"),
        ("1E", "1000000000000000000"),
        ("1e3", "1000"),
        ("1E-3", "0.001"),
        ("+.5", "0.5"),
        ("5.", "5"),
        ("-2k", "-2000"),
        ("1n", "0.000000001"),
        ("0", "0"),
        ("-0m", "0"),
    ],
)
def test_quantity_canonical_value(text, value):
    assert lib.quantity(text) == {lib.QUANTITY_KEY: value}


@pytest.mark.parametrize("text", ["", "1.5.5", "1 Gi", "1K", "Gi", "1Gi ", "1e", "0x10", "1mi", "--1"])
def test_invalid_quantities(text):
    assert not lib.is_quantity(text)
    with pytest.raises(LibraryError):
        lib.quantity(text)


def test_quantity_errors_are_value_errors():
    # cel-python only turns ValueError into an absorbable CEL error.
    assert issubclass(LibraryError, ValueError)
    with pytest.raises(ValueError):
        lib.quantity_sign({"not": "a quantity"})


def test_quantity_methods():
    one, half = lib.quantity("1"), lib.quantity("500m")
    assert lib.quantity_compare_to(half, one) == -1
    assert lib.quantity_is_less_than(half, one) and lib.quantity_is_greater_than(one, half)
    assert lib.quantity_add(half, half) == one
    assert lib.quantity_sub(one, 1) == lib.quantity("0")
    assert lib.quantity_as_integer(lib.quantity("2k")) == 2000
    assert not lib.quantity_is_integer(half)
    assert not lib.quantity_is_integer(lib.quantity("8Ei"))
    assert lib.quantity_as_approximate_float(half) == 0.5
    assert [lib.quantity_sign(lib.quantity(q)) for q in ("-1m", "0", "3")] == [-1, 0, 1]


def test_quantity_errors_explain_the_syntax():
    with pytest.raises(LibraryError, match="did you mean k or Ki"):
        lib.quantity("1K")
    with pytest.raises(LibraryError):
        lib.quantity("1e99999")  # a huge exponent is refused, not expanded


def test_cel_equal():
    assert lib.cel_equal(1, 1.0)
    assert not lib.cel_equal(True, 1)
    assert not lib.cel_equal("1", 1)
    assert lib.cel_equal([1, {"a": [2.0]}], [1.0, {"a": [2]}])
    assert not lib.cel_equal({"a": 1}, {"a": 1, "b": 2})
    assert not lib.cel_equal([1], [1, 1])


def test_kinds():
    assert [lib.kind_of(v) for v in (True, 1, 1.5, "s", b"b", [], {}, None)] == [
        "bool", "int", "double", "string", "bytes", "list", "map", "null",
    ]
    assert lib.kind_of(lib.quantity("1")) == "quantity"
    assert lib.kind_of(lib.url("https://x")) == "url"
    assert lib.kind_matches("map", lib.quantity("1")) and not lib.kind_matches("quantity", {})


def test_lists():
    assert lib.list_is_sorted([]) and lib.list_is_sorted([1, 1.5, 2])
    assert lib.list_sum([1, 2]) == 3 and lib.list_sum([]) == 0
    assert lib.list_min([2, 1.5]) == 1.5 and lib.list_max(["a", "c", "b"]) == "c"
    assert lib.list_index_of([1, True], True) == 1 and lib.list_last_index_of([1, 1], 1) == 1
    with pytest.raises(LibraryError):
        lib.list_sum([2**62, 2**62])
    with pytest.raises(LibraryError):
        lib.list_max([1, "a"])


def test_sets():
    assert lib.sets_contains([1, 2], []) and not lib.sets_contains([], [1])
    assert lib.sets_equivalent([1, 1, 2], [2, 1]) and not lib.sets_equivalent([1], [1, 2])
    assert lib.sets_intersects([1, 2], [2.0]) and not lib.sets_intersects([], [])


def test_regex():
    assert lib.regex_find_all("a1b2", "[0-9]", 0) == []
    assert lib.regex_find_all("a1b2", "[0-9]", -1) == ["1", "2"]
    with pytest.raises(LibraryError):
        lib.regex_find("x", "(")


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("https://example.com", True),
        ("/path/only", True),
        ("mailto:someone@example.com", True),
        ("not a url", False),
        ("example.com/path", False),
        ("https://exa mple.com", False),
        ("https://example.com:port/", False),
        ("", False),
    ],
)
def test_is_url(text, valid):
    assert lib.is_url(text) is valid


def test_url_parts():
    parsed = lib.url("https://user:pw@[::1]:8443/a%20b?x=1&y=")
    assert lib.url_scheme(parsed) == "https"
    assert lib.url_host(parsed) == "[::1]:8443"
    assert lib.url_hostname(parsed) == "::1"
    assert lib.url_port(parsed) == "8443"
    assert lib.url_escaped_path(parsed) == "/a%20b"
    assert lib.url_query(parsed) == {"x": ["1"], "y": [""]}
    assert lib.url_port(lib.url("http://example.com/")) == ""


def test_string_extension():
    assert lib.str_split("abc", "") == ["a", "b", "c"]
    assert lib.str_split("a-b-c", "-", 0) == []
    assert lib.str_split("abc", "", 2) == ["a", "bc"]
    assert lib.str_last_index_of("abcabc", "bc", 3) == 1
    assert lib.str_last_index_of("abc", "") == 3
    assert lib.str_char_at("abc", 3) == ""
    with pytest.raises(LibraryError):
        lib.str_char_at("abc", 4)
    assert lib.str_upper_ascii("aé") == "Aé"
    with pytest.raises(LibraryError):
        lib.list_join(["a", 1])


def test_spec_tables_are_consistent():
    specs = lib.KUBERNETES_FUNCTIONS + lib.SETS_FUNCTIONS + lib.STRING_EXT_FUNCTIONS
    ids = [spec.overload_id for spec in specs]
    assert len(ids) == len(set(ids))
    kinds = {"bool", "int", "double", "string", "list", "map", "dyn", "quantity", "url"}
    for spec in specs:
        assert set(spec.params) <= kinds and spec.result in kinds, spec
