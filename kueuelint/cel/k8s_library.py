"""Kubernetes CEL library functions, written once in plain Python.

Each engine adapter registers the same ``FunctionSpec`` tables: cel-expr-python
as typed declarations inside one ``CelExtension``, cel-python as plain
callables that dispatch on the runtime kinds of their arguments.

The functions live in one module per group (``k8s_values``: kinds, equality
and the overload record; ``k8s_quantity``; ``k8s_lists``: lists and sets;
``k8s_strings``: regex and the strings extension; ``k8s_url``). This module
assembles their tables and re-exports their names.

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

Errors raised by the library are ``LibraryError``, a ``ValueError``:
cel-python only turns ``ValueError`` into a CEL error value (which ``||`` and
``&&`` can absorb), and cel-expr-python turns any exception into an ERROR value.

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

from kueuelint.cel.k8s_lists import (
    LIST_FUNCTIONS,
    SETS_FUNCTIONS,
    list_index_of,
    list_is_sorted,
    list_last_index_of,
    list_max,
    list_min,
    list_sum,
    sets_contains,
    sets_equivalent,
    sets_intersects,
)
from kueuelint.cel.k8s_quantity import (
    QUANTITY_FUNCTIONS,
    is_quantity,
    parse_quantity,
    quantity,
    quantity_add,
    quantity_as_approximate_float,
    quantity_as_integer,
    quantity_compare_to,
    quantity_is_greater_than,
    quantity_is_integer,
    quantity_is_less_than,
    quantity_sign,
    quantity_sub,
)
from kueuelint.cel.k8s_strings import (
    REGEX_FUNCTIONS,
    STRING_EXT_FUNCTIONS,
    list_join,
    regex_find,
    regex_find_all,
    str_char_at,
    str_index_of,
    str_last_index_of,
    str_lower_ascii,
    str_replace,
    str_split,
    str_substring,
    str_trim,
    str_upper_ascii,
)
from kueuelint.cel.k8s_url import (
    URL_FUNCTIONS,
    is_url,
    url,
    url_escaped_path,
    url_host,
    url_hostname,
    url_port,
    url_query,
    url_scheme,
)
from kueuelint.cel.k8s_values import (
    INT64_MAX,
    INT64_MIN,
    QUANTITY_KEY,
    URL_KEY,
    FunctionSpec,
    LibraryError,
    cel_equal,
    kind_matches,
    kind_of,
)

KUBERNETES_FUNCTIONS = QUANTITY_FUNCTIONS + LIST_FUNCTIONS + REGEX_FUNCTIONS + URL_FUNCTIONS

__all__ = [
    "INT64_MAX", "INT64_MIN", "KUBERNETES_FUNCTIONS", "LIST_FUNCTIONS", "QUANTITY_FUNCTIONS",
    "QUANTITY_KEY", "REGEX_FUNCTIONS", "SETS_FUNCTIONS", "STRING_EXT_FUNCTIONS", "URL_FUNCTIONS",
    "URL_KEY", "FunctionSpec", "LibraryError", "cel_equal", "is_quantity", "is_url", "kind_matches",
    "kind_of", "list_index_of", "list_is_sorted", "list_join", "list_last_index_of", "list_max",
    "list_min", "list_sum", "parse_quantity", "quantity", "quantity_add",
    "quantity_as_approximate_float", "quantity_as_integer", "quantity_compare_to",
    "quantity_is_greater_than", "quantity_is_integer", "quantity_is_less_than", "quantity_sign",
    "quantity_sub", "regex_find", "regex_find_all", "sets_contains", "sets_equivalent",
    "sets_intersects", "str_char_at", "str_index_of", "str_last_index_of", "str_lower_ascii",
    "str_replace", "str_split", "str_substring", "str_trim", "str_upper_ascii", "url",
    "url_escaped_path", "url_host", "url_hostname", "url_port", "url_query", "url_scheme",
]
