"""Follow-up suggestions (``suggestions=True``): the runtime's suggestion adapter.

After a complete reply the runtime ``start``s a request for the prompts the
user may send next; a new user action ``stop``s it and clears those shown.
They live in the thread's metadata (saved with it) and go out as
``SuggestionsChanged``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from .._internal.sanitize import clean_text
from ..events import SuggestionsChanged, ThreadEvent
from ..messages import Thread

__all__ = ["Suggesting"]


class Suggesting:
    """The suggestions of the thread shown, and the request for new ones."""

    def __init__(
        self,
        ask: Callable[[], Coroutine[Any, Any, list[str] | None]],
        thread: Callable[[], Thread],
        emit: Callable[[ThreadEvent], None],
        save: Callable[[], None],
    ) -> None:
        self._ask = ask
        self._thread = thread
        self._emit = emit
        self._save = save
        self.task: asyncio.Task[None] | None = None
        """The request in flight, if any."""

    def current(self) -> list[str]:
        return list(self._thread().metadata.get("suggestions", ()))

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._suggest())

    def stop(self) -> None:
        """Cancel the request in flight and clear the suggestions shown."""
        if self.task is not None:
            self.task.cancel()
            self.task = None
        thread = self._thread()
        if thread.metadata.get("suggestions"):
            thread.metadata["suggestions"] = []
            self._emit(SuggestionsChanged([]))

    async def _suggest(self) -> None:
        items = await self._ask()
        if items is None:
            return
        items = [clean_text(item) for item in items]
        self._thread().metadata["suggestions"] = items
        self.task = None
        self._emit(SuggestionsChanged(items))
        self._save()
