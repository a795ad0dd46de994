"""A value per thread message, computed once and kept with the message.

``PerMessage(compute).values(messages)`` is ``[compute(m) for m in messages]``
kept incrementally: the values are held with their messages by identity, so a
turn computes only what is new. A message that is no longer the same object
(an edit, a regenerate and a branch switch put other ``Message`` objects in
the thread; a thread switch puts another thread) recomputes from there. A
message that is not settled (its status is not ``complete``: running,
waiting for a decision, stopped, in error) can still change in place, so it
is checked at every call against a key of what could change (its status
object, its parts, steps, results and text, the state and catalogue riding
on it) and recomputed from there when it did.

Finding where the kept messages stop being the same walks the list, but for
a thread's own ``MessageList`` only appended to since the last call (a turn):
its ``revision`` says the messages before are the ones kept.

Nothing of the package is imported here (messages are read by their fields).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

__all__ = ["PerMessage", "change_key"]

T = TypeVar("T")


def change_key(message: Any) -> tuple[Any, ...]:
    """What changes when an unsettled message changes in place."""
    metadata = message.metadata
    parts = message.parts
    return (
        id(message.status),
        message.status.type,
        len(parts),
        len(metadata.get("steps") or ()),
        id(metadata.get("component_state")),
        id(metadata.get("data_catalogue")),
        sum(bool(getattr(p, "has_result", False)) for p in parts),
        sum(len(getattr(p, "text", "") or "") for p in parts),
        sum(len(getattr(p, "args_text", "") or "") for p in parts),
    )


class PerMessage(Generic[T]):
    """``compute`` of each message, kept (see the module)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self._compute = compute
        self._messages: list[Any] = []
        self._values: list[T] = []
        self._keys: dict[int, tuple[Any, ...]] = {}
        """Index -> ``change_key`` when computed, for the unsettled messages only."""
        self.computed = 0
        """Values computed so far (what a test counts)."""
        self.kept = 0
        """How many values the last ``values`` call kept: a caller that folds
        the values keeps its fold up to there and folds the rest."""
        self._source: Sequence[Any] | None = None
        self._revision: int | None = None
        """The list of the last call and its ``revision`` (a ``MessageList``'s)."""

    def clear(self) -> None:
        """Forget every value (what ``compute`` reads changed)."""
        self._messages, self._values, self._keys = [], [], {}
        self.kept = 0
        self._source = self._revision = None

    def _kept(self, messages: Sequence[Any], stop: int) -> int:
        cached = self._messages
        k = min(len(cached), stop)
        revision = getattr(messages, "revision", None)
        if revision is not None and messages is self._source and revision == self._revision:
            same = k  # only appended to since: what was kept is still there
        elif all(map(operator.is_, cached, itertools.islice(messages, k))):  # C speed, no copy
            same = k
        else:
            same = next(i for i in range(k) if cached[i] is not messages[i])
        for i in sorted(self._keys):
            if i >= same:
                break
            if self._keys[i] != change_key(messages[i]):
                return i
        return same

    def values(self, messages: Sequence[Any], stop: int | None = None) -> list[T]:
        """The values of ``messages[:stop]``, in order (the kept list: do not
        change it)."""
        stop = len(messages) if stop is None else min(stop, len(messages))
        keep = self.kept = self._kept(messages, stop)
        self._source, self._revision = messages, getattr(messages, "revision", None)
        del self._messages[keep:], self._values[keep:]
        if self._keys:
            self._keys = {i: key for i, key in self._keys.items() if i < keep}
        for i in range(keep, stop):  # by index: islice would step over the kept ones
            message = messages[i]
            self.computed += 1
            if message.status.type != "complete":
                self._keys[len(self._messages)] = change_key(message)
            self._values.append(self._compute(message))
            self._messages.append(message)
        return self._values
