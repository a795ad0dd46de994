"""Ending an assistant message so the thread stays valid for the chat API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...messages import Approval, Complete, Incomplete, Message, ToolCallPart

CANCELLED = "Cancelled by the user before it finished."

Answer = Callable[[ToolCallPart, Any, bool], None]
"""Gives a call its result: ``(part, result, is_error)`` (``RunEvents.answer``)."""


def end_message(message: Message, status: Incomplete | Complete, answer: Answer) -> None:
    """Give ``message`` a final status; answer every open call so history stays valid.

    A pending approval becomes a rejection; every call without a result gets
    an error result (the status's error, else "Not run."); every step gets
    its end, so the history splits the message the way it streamed.
    """
    message.status = status
    text = status.error if isinstance(status, Incomplete) and status.error else "Not run."
    for part in message.tool_calls:
        part.args_complete = True
        if part.has_result:
            continue
        if part.approval is not None and part.approval.status == "pending":
            part.approval = Approval(status="rejected", reason=text)
        answer(part, {"error": text}, True)
    for step in message.metadata.get("steps", ()):
        if step.get("end") is None:
            step["end"] = len(message.parts)
