"""Thread events: how the runtime tells a view (the widget, a test) what changed.

Streaming changes are small patch ops (``_internal/patch_ops.py``: append, set,
add_part) so a view can forward them cheaply; a step's end replaces the
whole message so views converge on the truth.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ._internal.patch_ops import PatchOp
from .messages import Message

RunPhase = Literal["idle", "thinking", "running-tool", "waiting"]


@dataclass(frozen=True, slots=True)
class MessageAdded:
    message: Message


@dataclass(frozen=True, slots=True)
class MessagePatched:
    message_id: str
    ops: list[PatchOp]
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


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A run starts on ``message`` (new, retried or resumed after a decision)."""

    run_id: str
    message: Message


@dataclass(frozen=True, slots=True)
class RunEnded:
    """The run ended: ``message`` has its final status, or requires action."""

    run_id: str
    message: Message


@dataclass(frozen=True, slots=True)
class StateChanged:
    """The shared state (``Runtime.state``) changed, e.g. by an agent's state event."""

    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AgentCustomEvent:
    """An application-defined event an external agent sent (AG-UI ``CUSTOM``)."""

    name: str
    value: Any


ThreadEvent = (
    MessageAdded
    | MessagePatched
    | MessageReplaced
    | RunChanged
    | SuggestionsChanged
    | SaveStatusChanged
    | RunStarted
    | RunEnded
    | StateChanged
    | AgentCustomEvent
)
ThreadListener = Callable[[ThreadEvent], None]
