"""The Kubernetes CEL URL type: url(), isURL() and the URL getters."""

from __future__ import annotations

import re
from typing import Any

from kueuelint.cel.k8s_values import URL_KEY, LibraryError, _spec, kind_of

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
