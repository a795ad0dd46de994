"""Conversation control's rules: which message an edit, a regenerate or a
rating may take, and the rating stored.

The runtime does what follows (settle a run, start the new branch, answer
again, announce and save); these functions only check and change the thread,
raising ``BranchError`` (nothing changed) for a message they cannot take.
"""

from __future__ import annotations

from typing import Any

from .._internal.sanitize import clean_text
from ..messages import BranchError, Feedback, Message, Thread

__all__ = ["check_role", "rate", "reply_to_regenerate", "user_text"]


def user_text(method: str, text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{method}() needs a non-empty text")
    return clean_text(text)  # a lone surrogate would make the thread unsavable


def check_role(thread: Thread, message_id: str, role: str, wrong_role: str) -> int:
    """The index of ``message_id`` on the active branch, a ``role`` message;
    ``BranchError`` for another role (``wrong_role`` says what to do instead)."""
    index = thread.index_of(message_id)
    old = thread.messages[index]
    if old.role != role:
        raise BranchError(f"message {message_id!r} is {_a(old.role)} message: {wrong_role}")
    return index


def reply_to_regenerate(thread: Thread, message_id: str | None) -> str:
    """``message_id``, or by default the last assistant reply's."""
    if message_id is not None:
        return message_id
    last = thread.last_assistant
    if last is None:
        raise BranchError("nothing to regenerate: this thread has no assistant reply")
    return last.id


def rate(
    thread: Thread, message_id: str, rating: str | None, comment: str | None
) -> tuple[Message, Feedback | None]:
    """Store the rating on the assistant reply ``message_id`` (on any branch);
    ``rating=None`` takes it back. Returns the message and the feedback stored."""
    if rating not in ("up", "down", None):
        raise ValueError(f'a rating is "up", "down" or None, got {rating!r}')
    if comment is not None and not isinstance(comment, str):
        raise TypeError(f"a comment is a str or None, got {type(comment).__name__}")
    message = next((m for m in thread.all_messages() if m.id == message_id), None)
    if message is None:
        raise BranchError(f"no message {message_id!r} in this thread")
    if message.role != "assistant":
        raise BranchError(
            f"message {message_id!r} is {_a(message.role)} message: only assistant replies "
            "are rated"
        )
    if rating is None:
        # a new dict, not an edit: a save finds the change by it (``persistence._journal``)
        message.metadata = {k: v for k, v in message.metadata.items() if k != "feedback"}
        return message, None
    feedback = Feedback(
        rating=rating,
        comment=clean_text(comment).strip() or None if comment else None,
        model=message.metadata.get("model"),
    )
    message.metadata = {**message.metadata, "feedback": feedback.model_dump()}
    return message, feedback


def _a(role: str) -> str:
    return "an assistant" if role == "assistant" else f"a {role}"  # the roles: user, system
