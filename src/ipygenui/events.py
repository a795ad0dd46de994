"""Thread events: how the runtime tells a view (the widget, a test) what changed.

Streaming changes are small patch ops (``_internal/patch_ops.py``: append, set,
add_part) so a view can forward them cheaply; a step's end replaces the
whole message so views converge on the truth.

    from ipygenui.events import MessageAdded

    def on_event(event):
        if isinstance(event, MessageAdded):
            print(event.message.role)

    rt.subscribe(on_event)

Every event class is here (``gu.events.MessageAdded`` after
``import ipygenui as gu``), with ``ThreadEvent`` (their union),
``ThreadListener`` and ``ThreadSummary`` (one saved thread, in ``ThreadsChanged``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._internal.patch_ops import PatchOp
from .messages import Feedback, Message

__all__ = [
    "ActivePathChanged",
    "AgentCustomEvent",
    "AgentStateChanged",
    "AlwaysAllowedChanged",
    "FeedbackChanged",
    "MessageAdded",
    "MessagePatched",
    "MessageReplaced",
    "ModelChanged",
    "RunChanged",
    "RunEnded",
    "RunPhase",
    "RunStarted",
    "SaveStatusChanged",
    "SuggestionsChanged",
    "ThreadEvent",
    "ThreadListener",
    "ThreadSummary",
    "ThreadsChanged",
]

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
class ActivePathChanged:
    """The messages a view shows changed from index ``start`` on: an edit or a
    regenerate started a new branch, ``switch_branch`` showed another, or
    (``start == 0``) another thread is shown. ``messages`` is the whole active
    branch of thread ``thread_id``; a view drops what it showed from ``start``
    on and shows ``messages[start:]`` (their branch positions may have changed
    too: ``Thread.branch_position``). The new messages of an edit or a
    regenerate follow as ``MessageAdded``, as a send's do."""

    thread_id: str
    start: int
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class FeedbackChanged:
    """The user rated a reply (``feedback=None``: the rating was taken back).
    The message itself follows as a ``MessageReplaced`` when it is shown."""

    message_id: str
    feedback: Feedback | None


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """One thread as a thread menu lists it."""

    id: str
    title: str
    """The user's title, else the first user message (shortened), else "New chat"."""
    messages: int
    """Messages on its active branch."""
    updated_at: float
    """When its newest message was made (0.0: none yet)."""


@dataclass(frozen=True, slots=True)
class ThreadsChanged:
    """The list of threads or their titles changed, or another one is active."""

    threads: tuple[ThreadSummary, ...]
    active: str


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
class AgentStateChanged:
    """The state shared with the agent (``Runtime.agent_state``) changed: an
    agent's state event, or ``set_agent_state``. ``state`` is its new value."""

    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AlwaysAllowedChanged:
    """The tools always allowed in the thread changed (``approve(...,
    always=True)``, ``revoke_always``); ``tools``: all of them now, sorted.
    Another thread shown brings its own (``ActivePathChanged``)."""

    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ModelChanged:
    """The runtime's model changed (``rt.model = ...``, a picker's choice):
    the next reply uses it. ``choice``: its id among ``models=``, or None."""

    name: str
    offline: bool
    choice: str | None


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
    | ActivePathChanged
    | FeedbackChanged
    | ThreadsChanged
    | RunStarted
    | RunEnded
    | AgentStateChanged
    | AlwaysAllowedChanged
    | ModelChanged
    | AgentCustomEvent
)
ThreadListener = Callable[[ThreadEvent], None]


RENAMED = {"StateChanged": "AgentStateChanged"}
"""Old event name -> new: still importable for one release, with a DeprecationWarning."""


def renamed(name: str, where: str, *, new_where: str | None = None, stacklevel: int = 3) -> Any:
    """The event an old name of ``RENAMED`` stands for, warned as ``where.name``
    (``new_where``: where the new name lives, if not there; ``stacklevel``: the
    line that read it)."""
    new = RENAMED[name]
    warnings.warn(
        f"{where}.{name} is renamed {new_where or where}.{new};"
        " the old name goes in a later release",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return globals()[new]


if TYPE_CHECKING:
    StateChanged = AgentStateChanged
else:  # a module __getattr__ seen by mypy would type every unknown name as Any

    def __getattr__(name: str) -> Any:
        if name not in RENAMED:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return renamed(name, __name__)
