"""A server's ``notifications/*/list_changed``, for ``ipygenui.mcp``: which
list changed, read again by a task of its own.

Never inside the session's message handler: the SDK runs it on the reader
of the server's messages, so a request awaited there would wait for an answer
that reader cannot deliver. One list is read again by one task at a time, the
notifications that come meanwhile giving one more reading after it: the last
reading always follows the last change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

__all__ = ["LIST_KINDS", "ListChanges", "ListKind"]

logger = logging.getLogger("ipygenui")

ListKind = Literal["tools", "prompts", "resources"]
LIST_KINDS: tuple[ListKind, ...] = ("tools", "prompts", "resources")


def _kind(message: Any) -> ListKind | None:
    from mcp import types

    if isinstance(message, types.ToolListChangedNotification):
        return "tools"
    if isinstance(message, types.PromptListChangedNotification):
        return "prompts"
    if isinstance(message, types.ResourceListChangedNotification):
        return "resources"
    return None


class ListChanges:
    """The session's ``message_handler``: ``reread(kind)`` after each change."""

    def __init__(self, server: str, reread: Callable[[ListKind], Awaitable[None]]) -> None:
        self._server = server
        self._reread = reread
        self._running: dict[ListKind, asyncio.Task[None]] = {}
        self._again: set[ListKind] = set()

    async def __call__(self, message: Any) -> None:
        kind = _kind(message)
        if kind is not None:
            self.read(kind)

    def read(self, kind: ListKind) -> None:
        """Read ``kind`` again, as after its ``list_changed`` (also when the
        server was restarted: the new process may list other things)."""
        if kind in self._running:  # read once more when the reading under way ends
            self._again.add(kind)
            return
        self._running[kind] = asyncio.get_running_loop().create_task(self._read(kind))

    async def _read(self, kind: ListKind) -> None:
        try:
            while True:
                self._again.discard(kind)
                try:
                    await self._reread(kind)
                except Exception as exc:  # the old list stays: a failed reading changes nothing
                    logger.warning("reading the %s of %s again failed: %s", kind, self._server, exc)
                if kind not in self._again:
                    return
        finally:
            self._running.pop(kind, None)

    async def settled(self) -> None:
        """Wait for the readings under way (tests, and a close)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)
