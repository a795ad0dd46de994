"""What never reaches a cassette: keys, tokens, passwords, credentials in URLs.

The secrets are gathered before a step is written: the values you name,
every environment variable whose name says it holds one (``*_API_KEY``,
``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``), and every string attribute of
the model (and of what it holds, a few levels down: its client, its
options) whose name says so. Each occurrence in the written entry becomes
``[redacted]``; a URL loses its user, password and query.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"key|token|secret|password|passwd|authorization|credential", re.I)
_MIN_SECRET = 6
"""A shorter value is no secret worth the name (and would redact common words)."""
_DEPTH = 4


def _from_object(value: Any, depth: int, seen: set[int], found: set[str]) -> None:
    if depth > _DEPTH or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        items: Iterable[tuple[Any, Any]] = value.items()
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        items = vars(value).items()
    else:
        return
    for name, item in list(items)[:200]:
        if isinstance(item, str):
            if _SECRET_NAME.search(str(name)) and len(item) >= _MIN_SECRET:
                found.add(item)
        elif not isinstance(item, int | float | bool | bytes | type(None)):
            _from_object(item, depth + 1, seen, found)


def secrets_of(model: Any, extra: Iterable[str] = ()) -> set[str]:
    found = {s for s in extra if isinstance(s, str) and s}
    found.update(
        value
        for name, value in os.environ.items()
        if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET
    )
    _from_object(model, 0, set(), found)
    return found


def clean_url(url: str) -> str:
    """``url`` without its user, password, query and fragment."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s\"'<>]+", re.I)


def redact(value: Any, secrets: set[str]) -> Any:
    """``value`` with every secret replaced, every string a dict key names as a
    secret replaced whole, and credentials taken out of URLs."""
    ordered = sorted(secrets, key=len, reverse=True)

    def text(item: str) -> str:
        for secret in ordered:
            if secret in item:
                item = item.replace(secret, REDACTED)
        if "@" in item or "?" in item:
            item = _URL.sub(lambda m: clean_url(m.group(0)), item)
        return item

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return text(item)
        if isinstance(item, dict):
            return {
                k: REDACTED
                if isinstance(v, str) and _SECRET_NAME.search(str(k)) and k != "max_tokens"
                else walk(v)
                for k, v in item.items()
            }
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        return item

    return walk(value)
