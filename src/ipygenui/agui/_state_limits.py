"""The shared state an agent sends, kept within a size and a depth.

An agent's ``STATE_SNAPSHOT`` and ``STATE_DELTA`` (JSON Patch) are
untrusted. Each JSON Patch ``copy`` can double the state (twenty make a
million lists from a few hundred bytes), and a state nested a few hundred
levels deep can no longer be serialized for the agent's next run. So:

- a snapshot is measured before it is taken;
- a patch is applied one operation at a time, to a copy of the state, and
  what each operation adds (its value, a copy's source) is measured *before*
  it runs: the state never grows past the limit, not even for one
  operation. A patch that would is refused whole and the state stays as it
  was. The copies of one patch may write at most ``max_bytes`` in all.

Sizes are of the state as compact JSON (``json.dumps`` with ``","`` and
``":"``, ASCII-escaped); the depth counts nested objects and arrays
(``{"a": [1]}`` is 2 deep). Measuring stops once past the limit, so a huge
value costs no more than the limit to refuse.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from typing import Any

from ._sse_reader import megabytes

__all__ = [
    "DEFAULT_MAX_STATE_BYTES",
    "DEFAULT_MAX_STATE_DEPTH",
    "StateLimitError",
    "StateLimits",
]

DEFAULT_MAX_STATE_BYTES = 1_000_000
DEFAULT_MAX_STATE_DEPTH = 64
"""Well below what the AG-UI input's serializer manages (about 250 levels)."""


class StateLimitError(ValueError):
    """A snapshot or patch would break a limit; the message says which
    ("sent a ..."), to follow the sender's name."""


@dataclass(frozen=True)
class StateLimits:
    max_bytes: int = DEFAULT_MAX_STATE_BYTES
    max_depth: int = DEFAULT_MAX_STATE_DEPTH

    def check(self, state: Any, what: str) -> tuple[int, int]:
        """``state``'s (size, depth), or ``StateLimitError`` naming ``what``."""
        try:
            size, depth = measure(state, self.max_bytes, self.max_depth)
        except TypeError as exc:
            raise StateLimitError(f"{what} that is not JSON ({exc})") from exc
        self._within(size, depth, what)
        return size, depth

    def _within(self, size: int, depth: int, what: str) -> None:
        if size > self.max_bytes:
            raise StateLimitError(
                f"{what} of more than {megabytes(self.max_bytes)}, over the "
                f"{megabytes(self.max_bytes)} limit (max_state_bytes)"
            )
        if depth > self.max_depth:
            raise StateLimitError(
                f"{what} nested more than {self.max_depth} levels deep, over the limit "
                f"(max_state_depth)"
            )

    def patch(self, state: Any, ops: list[dict[str, Any]], depth: int) -> tuple[Any, int]:
        """``state`` with ``ops`` applied (a new object; ``state`` is left as it
        is) and its depth bound, given ``depth``, a bound on ``state``'s.

        Raises ``StateLimitError``, or ``jsonpatch``'s errors for an operation
        that does not apply."""
        import jsonpatch
        import jsonpointer

        working, size = _copy(state)
        copied = 0
        for number, op in enumerate(ops, 1):
            if not isinstance(op, dict) or not isinstance(op.get("path"), str):
                raise jsonpatch.InvalidJsonPatch(
                    f"operation {number} is not a JSON Patch operation"
                )
            kind = op.get("op")
            what = f"a STATE_DELTA whose operation {number} ({kind}) makes a state"
            target = jsonpointer.JsonPointer(op["path"])
            levels = len(target.parts)
            if kind in ("add", "replace", "copy"):
                if kind == "copy":
                    value = jsonpointer.JsonPointer(str(op.get("from", ""))).resolve(working)
                else:
                    value = op.get("value")
                # a copy into a list inserts, as an add does
                removed = _removed(working, target, kind.replace("copy", "add")) if levels else size
                room = self.max_bytes - size + removed
                try:
                    added, value_depth = measure(value, room, self.max_depth - levels)
                except TypeError as exc:
                    raise StateLimitError(f"{what} that is not JSON ({exc})") from exc
                self._within(0, levels + value_depth, what)
                if kind == "copy":
                    copied += added
                    if copied > self.max_bytes:
                        raise StateLimitError(
                            f"a STATE_DELTA that copies more than "
                            f"{megabytes(self.max_bytes)} (operation {number}), over the "
                            f"limit (max_state_bytes)"
                        )
                if levels == 0:
                    size, depth = added, value_depth
                else:
                    size += added + _key_size(target.parts[-1]) + 2 - removed
                    depth = max(depth, levels + value_depth)
            elif kind == "move":
                source = jsonpointer.JsonPointer(str(op.get("from", "")))
                if levels == 0:
                    depth -= len(source.parts)
                else:
                    size += _key_size(target.parts[-1]) + 2 - _removed(working, target, "add")
                    moved_bound = depth - len(source.parts)
                    if levels + moved_bound > self.max_depth:  # measure the moved value itself
                        _, moved_bound = measure(source.resolve(working), math.inf, self.max_depth)
                    depth = max(depth, levels + moved_bound)
            elif kind == "remove":
                size -= _removed(working, target, kind)
            self._within(size, depth, what)
            working = jsonpatch.JsonPatch([op]).apply(working, in_place=True)
        return working, max(depth, 0)


def _copy(state: Any) -> tuple[Any, int]:
    """A copy of ``state`` and its size (a JSON round trip: the fastest copy
    of JSON data; other values are deep-copied)."""
    try:
        text = json.dumps(state, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        try:
            size = measure(state, math.inf, math.inf)[0]
        except TypeError as exc:
            raise StateLimitError(
                f"a STATE_DELTA to a shared state that is not JSON ({exc})"
            ) from exc
        return copy.deepcopy(state), size
    return json.loads(text), len(text)


def _removed(working: Any, target: Any, kind: str) -> int:
    """The size of the value an operation at ``target`` replaces or removes (0: none)."""
    parent, part = target.to_last(working)
    if isinstance(parent, dict):
        if part not in parent:
            return 0
        old = parent[part]
    elif (
        isinstance(parent, list) and kind != "add" and isinstance(part, int) and part < len(parent)
    ):
        old = parent[part]  # an add to a list inserts: nothing goes
    else:
        return 0
    return measure(old, math.inf, math.inf)[0]


def _key_size(key: Any) -> int:
    return _string_size(key if isinstance(key, str) else str(key))


def _string_size(text: str) -> int:
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return len(text) + 2
    return len(json.dumps(text))


_INT_DIGITS_EXACT = 10_000
"""Bits up to which an int's digits are counted exactly (beyond, ``str`` refuses)."""


def measure(value: Any, max_bytes: float, max_depth: float) -> tuple[int, int]:
    """``value``'s (size, depth) as JSON; stops early, with a figure past the
    limit, once either is over. Raises ``TypeError`` for a value that is not JSON."""
    size = 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, above = stack.pop()
        if isinstance(item, dict):
            depth = above + 1
            size += 2 * len(item) + 1 if item else 2
            for key, child in item.items():
                size += _key_size(key)
                stack.append((child, depth))
        elif isinstance(item, list | tuple):
            depth = above + 1
            size += len(item) + 1 if item else 2
            stack.extend((child, depth) for child in item)
        else:
            size += _scalar_size(item)
            continue
        if depth > deepest:
            deepest = depth
            if deepest > max_depth:
                return size, deepest
        if size > max_bytes:
            return size, deepest
    return size, deepest


def _scalar_size(item: Any) -> int:
    if isinstance(item, str):
        return _string_size(item)
    if item is None or item is True:
        return 4
    if item is False:
        return 5
    if isinstance(item, int):
        if item.bit_length() > _INT_DIGITS_EXACT:
            return int(item.bit_length() * 0.30103) + 2
        return len(str(item))
    if isinstance(item, float):
        return len(repr(item)) if math.isfinite(item) else 9
    raise TypeError(f"a {type(item).__name__} value")
