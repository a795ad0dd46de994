"""What a running tool says about itself on its call's card: progress and log lines.

The tool phase sets a ``CallReport`` for each call it runs (a context
variable, so a tool reads its own with ``current_report()``); a tool source
that hears of progress elsewhere (an MCP server's notifications, on a thread
of its own) reports through it from any thread. The card's status text and
progress bar follow; log lines are kept, the last ``MAX_LOG_LINES``, in its
details. Nothing here reaches the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._internal.sanitize import clean_text

if TYPE_CHECKING:
    from ..messages import ToolCallPart

__all__ = ["MAX_LOG_LINES", "CallReport", "current_report"]

MAX_LOG_LINES = 50
MAX_LINE_CHARS = 500
"""Log lines a call keeps (its last), and characters of each (a server's text)."""

_CURRENT: contextvars.ContextVar[CallReport | None] = contextvars.ContextVar(
    "ipygenui_call_report", default=None
)


def current_report() -> CallReport | None:
    """The report of the call running in this context (None outside a call)."""
    return _CURRENT.get()


class CallReport:
    """Progress and log lines of one running call, applied on the chat's loop."""

    def __init__(self, part: ToolCallPart, commit: Callable[[], None]) -> None:
        self._part = part
        self._commit = commit
        self._loop = asyncio.get_running_loop()
        self._pending = False

    def bind(self) -> contextvars.Token[CallReport | None]:
        return _CURRENT.set(self)

    @staticmethod
    def unbind(token: contextvars.Token[CallReport | None]) -> None:
        _CURRENT.reset(token)

    def progress(self, done: float, total: float | None = None, text: str | None = None) -> None:
        """``done`` of ``total`` (a fraction on the card when total is known), with ``text``."""
        fraction = None
        if total is not None and math.isfinite(total) and total > 0 and math.isfinite(done):
            fraction = min(max(done / total, 0.0), 1.0)
        line = clean_text(text)[:MAX_LINE_CHARS] if isinstance(text, str) and text.strip() else None
        if line is None and math.isfinite(done):
            known = total is not None and math.isfinite(total) and total > 0
            line = f"{done:g} of {total:g}" if known else f"{done:g}"
        self._later(lambda part: _set_progress(part, fraction, line))

    def status(self, text: str) -> None:
        """The card's status line alone (a task's state), its bar left as it is."""
        line = clean_text(text)[:MAX_LINE_CHARS]
        self._later(lambda part: _set_progress(part, None, line))

    def log(self, text: str) -> None:
        """Keep one log line (the last ``MAX_LOG_LINES`` stay)."""
        line = clean_text(text)[:MAX_LINE_CHARS]
        self._later(lambda part: _add_log(part, line))

    def _later(self, change: Callable[[ToolCallPart], None]) -> None:
        """Apply ``change`` on the chat's loop (from any thread), one commit per loop turn."""

        def apply() -> None:
            if self._part.has_result:  # answered meanwhile: the card is settled
                return
            change(self._part)
            if not self._pending:
                self._pending = True
                self._loop.call_soon(self._flush)

        with contextlib.suppress(RuntimeError):  # the chat's loop closed: nobody looks
            self._loop.call_soon_threadsafe(apply)

    def _flush(self) -> None:
        self._pending = False
        if not self._part.has_result:
            self._commit()


def _set_progress(part: ToolCallPart, fraction: float | None, line: str | None) -> None:
    if fraction is not None:
        part.progress = fraction
    if line is not None:
        part.status_message = line


def _add_log(part: ToolCallPart, line: str) -> None:
    part.log = [*(part.log or []), line][-MAX_LOG_LINES:]
