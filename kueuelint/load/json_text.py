"""JSON files (``kubectl get -o json``, JSON manifests) read by the json module.

The YAML reader accepts JSON too, but composing a node per value in Python makes it about
seven times slower than the json module's C decoder, which a cluster snapshot of tens of
thousands of Workloads feels. Positions are not lost: where the object (or each item of a
``kind: List``) starts is found while decoding, and a finding inside an object composes
that file again, as it does for YAML.

Anything the json module does not read exactly as the API server would is left to the YAML
reader, which then reports it with its position: text that is not strict JSON (``{a: 1}`` is
YAML), ``NaN`` and ``Infinity``, and, in files that are checked, duplicate keys.
"""

from __future__ import annotations

import json
from json.decoder import WHITESPACE


class NotPlainJson(ValueError):
    """The text is not JSON the json module reads as the API server would."""


def looks_like_json(text: str) -> bool:
    start = WHITESPACE.match(text).end()
    return text.startswith(("{", "["), start)


def decode_json(text: str, strict_keys: bool) -> tuple[object, int, list[int] | None]:
    """(value, offset where it starts, offset of each element of a top-level object's
    ``items`` array or None). Raises NotPlainJson. ``strict_keys``: refuse duplicate keys."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys if strict_keys else None,
                               parse_constant=_refuse_constant)
    start = WHITESPACE.match(text).end()
    try:
        if text.startswith("{", start):
            value, end, item_offsets = _decode_top_object(decoder, text, start, strict_keys)
        else:
            value, end = decoder.raw_decode(text, start)
            item_offsets = None
    except (ValueError, RecursionError) as exc:     # JSONDecodeError is a ValueError
        raise NotPlainJson(str(exc)) from None
    if WHITESPACE.match(text, end).end() != len(text):
        raise NotPlainJson("more than one JSON value")
    return value, start, item_offsets


def _decode_top_object(decoder, text: str, index: int, strict_keys: bool):
    """The top-level object decoded key by key, so that the offset of every element of its
    ``items`` array is known; everything below is decoded by the json module."""
    result: dict = {}
    item_offsets = None
    index = _skip(text, index + 1)
    if text.startswith("}", index):
        return result, index + 1, None
    while True:
        if not text.startswith('"', index):
            raise NotPlainJson("object key is not a string")
        key, index = decoder.raw_decode(text, index)
        index = _skip(text, index)
        if not text.startswith(":", index):
            raise NotPlainJson("':' expected")
        index = _skip(text, index + 1)
        if key == "items" and text.startswith("[", index):
            value, index, item_offsets = _decode_array(decoder, text, index)
        else:
            value, index = decoder.raw_decode(text, index)
        if strict_keys and key in result:
            raise NotPlainJson(f"duplicate key {key!r}")
        result[key] = value
        index, done = _next_member(text, index, "}")
        if done:
            return result, index, item_offsets


def _decode_array(decoder, text: str, index: int) -> tuple[list, int, list[int]]:
    values, offsets = [], []
    index = _skip(text, index + 1)
    if text.startswith("]", index):
        return values, index + 1, offsets
    while True:
        offsets.append(index)
        value, index = decoder.raw_decode(text, index)
        values.append(value)
        index, done = _next_member(text, index, "]")
        if done:
            return values, index, offsets


def _next_member(text: str, index: int, closer: str) -> tuple[int, bool]:
    """After a member: (where the next one starts, False), or (past ``closer``, True)."""
    index = _skip(text, index)
    if text.startswith(",", index):
        return _skip(text, index + 1), False
    if text.startswith(closer, index):
        return index + 1, True
    raise NotPlainJson(f"',' or '{closer}' expected")


def _skip(text: str, index: int) -> int:
    return WHITESPACE.match(text, index).end()


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise NotPlainJson("duplicate key")
    return result


def _refuse_constant(name: str):
    raise NotPlainJson(f"{name} is not JSON")
