"""Follow-up suggestions (``suggestions=True``): the runtime's suggestion adapter.

After a complete reply the run lifecycle ``start``s a request for the prompts
the user may send next, when the chat wants them (``suggestions=True``, or
``None`` and a model whose ``suggests`` is true: the offline demo's); a new user
action ``stop``s it and clears those shown. They live in the thread's
metadata (saved with it) and go out as ``SuggestionsChanged``.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from .._internal.sanitize import clean_text
from ..events import SuggestionsChanged
from ..models.base import Model
from ._host import Host
from ._loop.suggestions import ask_for_suggestions

__all__ = ["Suggesting"]


class SuggestionSettings(Protocol):
    """What the request reads from its runtime each time (users may change them)."""

    model: Model
    instructions: str | None
    suggestions: bool | None


class Suggesting:
    """The suggestions of the thread shown, and the request for new ones."""

    def __init__(self, settings: SuggestionSettings, host: Host) -> None:
        self._settings = settings
        self._thread = host.thread
        self._emit = host.events.emit
        self._save = host.save
        self.task: asyncio.Task[None] | None = None
        """The request in flight, if any."""

    def current(self) -> list[str]:
        return list(self._thread().metadata.get("suggestions", ()))

    def wanted(self) -> bool:
        """``suggestions``, or when None whether the model offers them itself."""
        asked = self._settings.suggestions
        return bool(getattr(self._settings.model, "suggests", False)) if asked is None else asked

    def start(self) -> None:
        """Ask for suggestions, when the chat wants them."""
        if self.wanted():
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
        settings = self._settings
        items = await ask_for_suggestions(settings.model, self._thread(), settings.instructions)
        if items is None:
            return
        items = [clean_text(item) for item in items]
        self._thread().metadata["suggestions"] = items
        self.task = None
        self._emit(SuggestionsChanged(items))
        self._save()
