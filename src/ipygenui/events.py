"""Thread events: how the runtime tells a view (the widget, a test) what changed.

Streaming changes are small patch ops so a view can forward them cheaply;
a step's end replaces the whole message so views converge on the truth.

Patch ops (plain JSON dicts, the wire format the frontend applies):
- ``{"op": "append", "part": i, "field": "text" | "args_text", "value": str}``
- ``{"op": "set", "part": i, "field": name, "value": json}``
- ``{"op": "add_part", "part": i, "value": part_json}``
- ``{"op": "status", "value": status_json}``
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .messages import Message

RunPhase = Literal["idle", "thinking", "running-tool", "waiting"]


@dataclass(frozen=True, slots=True)
class MessageAdded:
    message: Message


@dataclass(frozen=True, slots=True)
class MessagePatched:
    message_id: str
    ops: list[dict[str, Any]]
    message: Message | None = None
    """The live message (mid-stream its streamed text fields may lag: read
    parsed fields such as ``args`` here, or ``Runtime.thread`` for text)."""


@dataclass(frozen=True, slots=True)
class MessageReplaced:
    message: Message


@dataclass(frozen=True, slots=True)
class RunChanged:
    phase: RunPhase
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class SuggestionsChanged:
    suggestions: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SaveStatusChanged:
    """Saving to the persist path failed (``error`` says why and names the
    file), or, with ``error=None``, a save succeeded again after a failure."""

    error: str | None


ThreadEvent = (
    MessageAdded
    | MessagePatched
    | MessageReplaced
    | RunChanged
    | SuggestionsChanged
    | SaveStatusChanged
)
ThreadListener = Callable[[ThreadEvent], None]
