"""The list a thread's messages live in: a ``list`` that counts the changes
other than appending (``revision``).

A value kept per message (``per_message.py``) is kept while the messages
before it are the same objects. Checking that walks the whole thread at
every turn; with this list, a thread appended to since the last look (what
a turn does) is known to hold the same messages before, in O(1). Any other
change (an item set, deleted, inserted, the list sorted...) moves
``revision``, and the walk decides again.
"""

from __future__ import annotations

from typing import Any, SupportsIndex

__all__ = ["MessageList"]


class MessageList(list[Any]):
    """A ``list`` whose ``revision`` moves on every change but an append."""

    revision: int = 0

    def _changed(self) -> None:
        self.revision += 1

    def __setitem__(self, index: Any, value: Any) -> None:
        self._changed()
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        self._changed()
        super().__delitem__(index)

    def __imul__(self, times: SupportsIndex) -> MessageList:
        self._changed()
        return super().__imul__(times)

    def insert(self, index: SupportsIndex, value: Any) -> None:
        self._changed()
        super().insert(index, value)

    def pop(self, index: SupportsIndex = -1) -> Any:
        self._changed()
        return super().pop(index)

    def remove(self, value: Any) -> None:
        self._changed()
        super().remove(value)

    def clear(self) -> None:
        self._changed()
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._changed()
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self._changed()
        super().reverse()
