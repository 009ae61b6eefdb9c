"""The Kubernetes CEL regex functions (find, findAll) and the CEL strings extension in Python."""

from __future__ import annotations

import re
from functools import lru_cache

from kueuelint.cel.k8s_values import LibraryError, _spec, kind_of


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


REGEX_FUNCTIONS = (
    _spec("find", "string_find", "string string", "string", regex_find),
    _spec("findAll", "string_find_all", "string string", "list", regex_find_all),
    _spec("findAll", "string_find_all_limit", "string string int", "list", regex_find_all),
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
