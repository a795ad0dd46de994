"""How deep JSON nests, measured without recursion: a hostile text or value
nested 100,000 levels deep is refused by its depth, never by a
RecursionError from the parser or a walk over it.

``json_depth`` counts a text's brackets (those inside strings do not count);
``value_depth`` walks a parsed value with a stack and stops once past a limit.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import Any

__all__ = ["json_depth", "value_depth"]

# A JSON string, escapes included (the unrolled form, linear in its length).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_BRACKET_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def json_depth(body: bytes | str) -> int:
    """How deep arrays and objects nest in ``body``, counted without parsing
    it (so without recursion): brackets inside strings do not count."""
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", raw))
    steps = array("b", brackets.translate(_BRACKET_STEP))  # +1 per opening, -1 per closing
    return max(accumulate(steps), default=0)


def value_depth(value: Any, limit: int) -> int:
    """How deep lists and dicts nest in ``value`` (a scalar: 0), walked with a
    stack; once past ``limit`` the walk stops and returns ``limit + 1``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, above = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth = above + 1
        if depth > limit:
            return limit + 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest
