"""Make untrusted values safe for UTF-8 JSON, in the file and on the wire.

A lone surrogate (half of a UTF-16 pair, which a model or a browser can send
as ``"\\ud83d"``) cannot be encoded as UTF-8; an integer past 2**53 - 1 is
read wrongly by JavaScript and one past Python's int-to-text limit cannot be
written at all; NaN and infinities are not JSON. Any of them in a thread once
made every save and every widget update raise. So values are cleaned where
they come in (model deltas, user text, tool results, loaded files), and the
savers fall back to :func:`json_safe` if something got in another way.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer JavaScript (and so the widget) reads exactly."""

REPLACEMENT = "\ufffd"

_MAX_DEPTH = 200
"""Deeper nesting is shown as text: JSON encoders and browsers recurse too."""

_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _join_or_replace(match: re.Match[str]) -> str:
    pair = match.group()
    if len(pair) == 2:  # both halves of one character, e.g. split across two deltas
        return chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00))
    return REPLACEMENT


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (pairs joined).

    Cheap for the common case: an ASCII check is O(1) in CPython, and a
    UTF-8 encode runs in C; the regex runs only on text that failed both.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub(_join_or_replace, text)
    return text


def int_text(value: int) -> str:
    """An integer as text: all its digits, or a summary past Python's
    int-to-text limit (converting a huge integer to decimal is quadratic)."""
    try:
        return str(value)
    except ValueError:
        pass
    magnitude = abs(value)
    log = math.log10(magnitude)
    exponent = int(log)
    if 10**exponent > magnitude:  # the float log rounded up
        exponent -= 1
    elif 10 ** (exponent + 1) <= magnitude:  # or down
        exponent += 1
    mantissa = min(10 ** (log - exponent), 9.999999)
    sign = "-" if value < 0 else ""
    return f"{sign}{mantissa:.6f}e+{exponent} (an integer of {exponent + 1} digits)"


def _float_text(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


_LONG_INT = re.compile(r"(?<![.\d])\d{16,}")
"""16 digits or more, not after a decimal point: maybe an integer past 2**53
(or digits in a string: then the slow path runs for nothing, still right)."""


def _already_safe(value: list[Any] | dict[Any, Any]) -> bool:
    """A C-speed check of a JSON container: encodes, as UTF-8, with no NaN and
    no integer JavaScript would misread. False may be a false alarm."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (ValueError, TypeError, RecursionError):
        return False
    return _LONG_INT.search(text) is None


def json_safe(value: Any, _depth: int = 0, _seen: frozenset[int] = frozenset()) -> Any:
    """``value`` as UTF-8 JSON a browser reads exactly (a copy where needed).

    Strings lose lone surrogates, integers beyond ``MAX_SAFE_INTEGER`` and
    NaN / infinities become text, mapping keys become text, tuples and sets
    lists; anything else (and cycles or very deep nesting) its text form.
    A list or dict that needs none of this is returned as it is.
    """
    if _depth == 0 and isinstance(value, list | dict) and _already_safe(value):
        return value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, int):
        value = int(value)  # an int subclass (an IntEnum) as a plain int
        return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else int_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else _float_text(value)
    if _depth >= _MAX_DEPTH or id(value) in _seen:
        return "…" if id(value) not in _seen else "<cycle>"
    if isinstance(value, Mapping):
        seen = _seen | {id(value)}
        return {_key(k): json_safe(v, _depth + 1, seen) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        seen = _seen | {id(value)}
        return [json_safe(v, _depth + 1, seen) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model (a thread, a message)
        try:
            return json_safe(dump(mode="python"), _depth + 1, _seen | {id(value)})
        except Exception:
            pass
    return clean_text(_text_form(value))


def _key(key: Any) -> str:
    if isinstance(key, str):
        return clean_text(key)
    if isinstance(key, int) and not isinstance(key, bool):
        return int_text(key)
    return clean_text(_text_form(key))


def _text_form(value: Any) -> str:
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__}>"
