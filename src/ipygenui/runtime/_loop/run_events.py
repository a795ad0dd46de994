"""How the runtime tells its views what changed.

Every change goes out as a thread event (``events.py``) to the thread
listeners: the widget, tests, and the AG-UI emitter once AG-UI is used.
The run's phase lives here too, since its only use is to be reported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..._internal.patch_ops import PatchOp
from ..._internal.sanitize import json_safe
from ...events import (
    MessageAdded,
    MessagePatched,
    MessageReplaced,
    RunChanged,
    RunPhase,
    ThreadEvent,
    ThreadListener,
)
from ...messages import Complete, Incomplete, Message, ToolCallPart
from .ending import end_message

logger = logging.getLogger("ipygenui")


class RunEvents:
    """The thread listeners and the current run phase."""

    def __init__(self) -> None:
        self.phase: RunPhase = "idle"
        self._listeners: list[ThreadListener] = []

    def subscribe(self, listener: ThreadListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: ThreadEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken view must not break the run
                logger.exception("thread listener failed")

    def set_phase(self, phase: RunPhase, detail: str | None = None) -> None:
        if phase != self.phase or detail is not None:
            self.phase = phase
            self.emit(RunChanged(phase, detail))

    def patch(self, message: Message, ops: list[PatchOp]) -> None:
        """The streaming hot path: one patch event."""
        self.emit(MessagePatched(message.id, ops, message))

    def replace(self, message: Message) -> None:
        self.emit(MessageReplaced(message))

    def added(self, message: Message) -> None:
        self.emit(MessageAdded(message))

    def answer(self, part: ToolCallPart, result: Any, is_error: bool) -> None:
        """Give a call its result. Thread views hear it with the next
        ``replace`` of its message, so several answers cost one event.
        The result is made JSON-safe here, the one door every result goes through."""
        part.result = json_safe(result)
        part.has_result = True
        part.is_error = is_error

    def end(self, message: Message, status: Incomplete | Complete) -> None:
        """Give ``message`` its final status, every open call answered (``end_message``)."""
        end_message(message, status, self.answer)
