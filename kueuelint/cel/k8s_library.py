"""Kubernetes CEL library functions, written once in plain Python.

Each engine adapter registers the same ``FunctionSpec`` tables: cel-expr-python
as typed declarations inside one ``CelExtension``, cel-python as plain
callables that dispatch on the runtime kinds of their arguments.

Representations
---------------
Neither engine can hand an opaque Python object to CEL (cel-expr-python only
accepts CEL values), so the two Kubernetes object types are CEL maps with one
reserved key:

* ``quantity(s)`` -> ``{"__quantity__": "<exact decimal>"}``. The decimal is
  canonical, so ``quantity('1') == quantity('1000m')`` is true, as in
  Kubernetes. We rejected int milli-units: they overflow int64 above 8Pi, drop
  sub-milli precision (``1n``) and would let ``quantity('1') == 1000`` pass.
  Being a map, a quantity has no ``<``; cel-expr-python's type checker rejects
  ``quantity(a) < quantity(b)`` at compile time, as Kubernetes does.
* ``url(s)`` -> ``{"__url__": "<the string>"}``.

Quantity text is parsed by ``kueuelint.accounting.quantity``, the same parser
the quota checks use, so CEL rules and built-in checks agree on every value.

Errors raised here are ``LibraryError``, a ``ValueError``: cel-python only turns
``ValueError`` into a CEL error value (which ``||`` and ``&&`` can absorb), and
cel-expr-python turns any exception into an ERROR value.

Regular expressions (``find``, ``findAll``) run on Python ``re``, not RE2:
patterns using RE2-only syntax fail with an error, and some Python-only
syntax (lookaround, backreferences) is accepted where Kubernetes rejects it.

Support per engine
------------------
==========================================  ===============  ==========
function                                    cel-expr-python  cel-python
==========================================  ===============  ==========
has, all, exists, exists_one, map, filter   yes              yes
3-argument ``map(x, pred, expr)``           yes              NO (error)
``has()`` on a missing parent field         error (spec)     false
``size``, ``in``, ``?:``, ``matches``       yes              yes
startsWith, endsWith, contains              yes              yes
int/double comparison on data values        yes              NO (error)
``1 == 1.0`` written as literals            compile error    NO (error)
timestamp, duration and their getters       yes              yes
strings ext: charAt, indexOf, lastIndexOf,  yes (native)     yes (this
lowerAscii, upperAscii, replace, split,                      module)
substring, trim, join
strings ext: format, strings.quote,         yes (native)     NO
reverse
math ext ``math.*``, ``base64.*``           yes (native)     NO
``cel.bind``                                yes (native)     NO
optional syntax ``?.``, ``[?]``,            yes (native)     NO (parse
``optional.*``, ``orValue``                                  error)
quantity, isQuantity, and the quantity      yes              yes
methods isLessThan, isGreaterThan,
compareTo, add, sub, asInteger,
asApproximateFloat, isInteger, sign
lists: isSorted, sum, min, max, indexOf,    yes              yes
lastIndexOf
regex: find, findAll                        yes              yes
url, isURL, getScheme, getHost,             yes              yes
getHostname, getPort, getEscapedPath,
getQuery
sets.contains, sets.equivalent,             yes              NO (no dotted
sets.intersects                                              names)
two-variable ``all(k, v, ...)``             NO               NO
lists ext: distinct, flatten, sort,         NO               NO
slice, lists.range
Kubernetes ip, cidr, semver, authz,         NO               NO
``format.*`` named formats
==========================================  ===============  ==========

Typing: cel-expr-python type-checks every rule (variables are DYN), so
undeclared names, misspelt functions and wrong operand types are compile
errors with line:column. cel-python has no checker: the same mistakes are
evaluation errors, and only on the branch that runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache
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


# --- values and CEL semantics ----------------------------------------------


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


# --- regex ------------------------------------------------------------------


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as err:
        raise LibraryError(f"invalid regex {pattern!r}: {err}") from err


def regex_find(text: str, pattern: str) -> str:
    match = _regex(pattern).search(text)
    return match.group(0) if match else ""


def regex_find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    found = [m.group(0) for m in _regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


# --- quantity ---------------------------------------------------------------

def parse_quantity(text: str) -> Decimal:
    # Imported on first use: few rules call quantity(), and start-up time matters.
    from kueuelint.accounting.quantity import parse_quantity as parse

    try:
        return parse(text)
    except (ValueError, ArithmeticError) as err:
        raise LibraryError(str(err)) from err


def _exact():
    # The default 28 digits would round nano-units of exa-sized values.
    return localcontext(prec=200)


def _make_quantity(value: Decimal) -> dict[str, str]:
    # Canonical text makes map equality mean numeric equality.
    with _exact():
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
    with _exact():
        return _make_quantity(_amount(left) + _amount(right))


def quantity_sub(left: Any, right: Any) -> dict[str, str]:
    with _exact():
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


# --- url --------------------------------------------------------------------

# urllib.parse is imported inside the URL functions: it costs ~10 ms at start-up
# and most runs never call them.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def is_url(text: str) -> bool:
    """Accept what Go's url.ParseRequestURI accepts: an absolute URL or path."""
    if not text or any(c.isspace() or ord(c) < 0x20 for c in text):
        return False
    if not (text.startswith("/") or _SCHEME.match(text)):
        return False
    from urllib.parse import urlsplit

    try:
        urlsplit(text).port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return False
    return True


def url(text: str) -> dict[str, str]:
    if not is_url(text):
        raise LibraryError(f"invalid URL {text!r}")
    return {URL_KEY: text}


def _split(value: Any):
    from urllib.parse import urlsplit

    if kind_of(value) != "url":
        raise LibraryError("expected a URL")
    return urlsplit(value[URL_KEY])


def url_scheme(value: Any) -> str:
    return _split(value).scheme


def url_host(value: Any) -> str:
    return _split(value).netloc.rpartition("@")[2]


def url_hostname(value: Any) -> str:
    host = url_host(value)
    if host.startswith("["):
        return host[1 : host.find("]")]
    return host.rpartition(":")[0] if ":" in host else host


def url_port(value: Any) -> str:
    host = url_host(value)
    tail = host[host.find("]") + 1 :] if host.startswith("[") else host
    return tail.rpartition(":")[2] if ":" in tail else ""


def url_escaped_path(value: Any) -> str:
    return _split(value).path


def url_query(value: Any) -> dict[str, list[str]]:
    from urllib.parse import parse_qs

    return parse_qs(_split(value).query, keep_blank_values=True)


# --- strings extension, for engines that lack it ----------------------------


def _offset(text: str, offset: int) -> int:
    if not 0 <= offset <= len(text):
        raise LibraryError(f"index out of range: {offset}")
    return offset


def str_char_at(text: str, index: int) -> str:
    return text[_offset(text, index) : index + 1]


def str_index_of(text: str, sub: str, offset: int = 0) -> int:
    return text.find(sub, _offset(text, offset))


def str_last_index_of(text: str, sub: str, offset: int | None = None) -> int:
    end = len(text) if offset is None else _offset(text, offset) + len(sub)
    return text.rfind(sub, 0, end)


def str_lower_ascii(text: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in text)


def str_upper_ascii(text: str) -> str:
    return "".join(c.upper() if c.isascii() else c for c in text)


def str_replace(text: str, old: str, new: str, count: int = -1) -> str:
    return text.replace(old, new, count)


def str_split(text: str, sep: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    parts = list(text) if sep == "" else text.split(sep)
    if 0 < limit < len(parts):
        joiner = "" if sep == "" else sep
        parts = parts[: limit - 1] + [joiner.join(parts[limit - 1 :])]
    return parts


def str_substring(text: str, start: int, end: int | None = None) -> str:
    end = len(text) if end is None else end
    if start > end:
        raise LibraryError(f"invalid substring range: start {start} > end {end}")
    return text[_offset(text, start) : _offset(text, end)]


def str_trim(text: str) -> str:
    return text.strip()


def list_join(values: list, sep: str = "") -> str:
    if any(kind_of(v) != "string" for v in values):
        raise LibraryError("join() needs a list of strings")
    return sep.join(values)


# --- declaration tables -----------------------------------------------------


def _spec(name, oid, params, result, impl, member=True) -> FunctionSpec:
    return FunctionSpec(name, "k8s_" + oid, tuple(params.split()), result, member, impl)


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

LIST_FUNCTIONS = (
    _spec("isSorted", "list_is_sorted", "list", "bool", list_is_sorted),
    _spec("sum", "list_sum", "list", "dyn", list_sum),
    _spec("min", "list_min", "list", "dyn", list_min),
    _spec("max", "list_max", "list", "dyn", list_max),
    _spec("indexOf", "list_index_of", "list dyn", "int", list_index_of),
    _spec("lastIndexOf", "list_last_index_of", "list dyn", "int", list_last_index_of),
)

REGEX_FUNCTIONS = (
    _spec("find", "string_find", "string string", "string", regex_find),
    _spec("findAll", "string_find_all", "string string", "list", regex_find_all),
    _spec("findAll", "string_find_all_limit", "string string int", "list", regex_find_all),
)

URL_FUNCTIONS = (
    _spec("url", "url_string", "string", "url", url, member=False),
    _spec("isURL", "is_url_string", "string", "bool", is_url, member=False),
    _spec("getScheme", "url_scheme", "url", "string", url_scheme),
    _spec("getHost", "url_host", "url", "string", url_host),
    _spec("getHostname", "url_hostname", "url", "string", url_hostname),
    _spec("getPort", "url_port", "url", "string", url_port),
    _spec("getEscapedPath", "url_escaped_path", "url", "string", url_escaped_path),
    _spec("getQuery", "url_query", "url", "map", url_query),
)

# Dotted names: only engines that resolve qualified function names can take these.
SETS_FUNCTIONS = (
    _spec("sets.contains", "sets_contains", "list list", "bool", sets_contains, member=False),
    _spec("sets.equivalent", "sets_equivalent", "list list", "bool", sets_equivalent, member=False),
    _spec("sets.intersects", "sets_intersects", "list list", "bool", sets_intersects, member=False),
)

# The CEL strings extension in Python, for engines without a native one.
STRING_EXT_FUNCTIONS = (
    _spec("charAt", "string_char_at", "string int", "string", str_char_at),
    _spec("indexOf", "string_index_of", "string string", "int", str_index_of),
    _spec("indexOf", "string_index_of_offset", "string string int", "int", str_index_of),
    _spec("lastIndexOf", "string_last_index_of", "string string", "int", str_last_index_of),
    _spec("lastIndexOf", "string_last_index_of_offset", "string string int", "int", str_last_index_of),
    _spec("lowerAscii", "string_lower_ascii", "string", "string", str_lower_ascii),
    _spec("upperAscii", "string_upper_ascii", "string", "string", str_upper_ascii),
    _spec("replace", "string_replace", "string string string", "string", str_replace),
    _spec("replace", "string_replace_n", "string string string int", "string", str_replace),
    _spec("split", "string_split", "string string", "list", str_split),
    _spec("split", "string_split_n", "string string int", "list", str_split),
    _spec("substring", "string_substring", "string int", "string", str_substring),
    _spec("substring", "string_substring_range", "string int int", "string", str_substring),
    _spec("trim", "string_trim", "string", "string", str_trim),
    _spec("join", "list_join", "list", "string", list_join),
    _spec("join", "list_join_sep", "list string", "string", list_join),
)

KUBERNETES_FUNCTIONS = QUANTITY_FUNCTIONS + LIST_FUNCTIONS + REGEX_FUNCTIONS + URL_FUNCTIONS
