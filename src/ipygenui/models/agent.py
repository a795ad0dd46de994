"""The agent protocol: a step source that runs its own loop (``gu.AGUIAgent``).

A model answers one request in the history's chat format; an external
agent is handed the thread itself (it keeps its own prompt and tools), the
chat's tools to call in the kernel, and the shared state. It streams the same
deltas a model does, so its reply fills the message (and the widget) through
the run loop's one accumulator. Calls it ran itself (server-side tools) come
back answered in ``server_results``: the tool phase leaves those alone.

An agent may also pause its run on a call of its own tool for the user's
approval (AG-UI's interrupt): it names the call in ``interrupts``, the chat
shows it as an approval card, and the user's decision goes back in the next
request's ``resume`` (the agent then runs the call, or not, itself).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..messages import Message
from .base import ModelDelta


@dataclass(frozen=True)
class AgentInterrupt:
    """A call the agent paused its run on, waiting for the user's approval."""

    interrupt_id: str
    prompt: str | None = None
    """What the agent asks the user (shown on the card as a note, never obeyed)."""


@dataclass(frozen=True)
class AgentDecision:
    """The user's decision on an agent's interrupt, sent back to resume its run."""

    interrupt_id: str
    tool_call_id: str
    approved: bool
    reason: str | None = None
    args: dict[str, Any] | None = None
    """The arguments the user edited before approving (None: as the agent made them)."""
    cancelled: bool = False
    """The user moved on without deciding (a new message while it waited): the
    interrupt is resumed as AG-UI's ``cancelled``, with no payload."""


@dataclass
class AgentRequest:
    thread_id: str
    messages: list[Message]
    """The thread so far, ending with the reply being built."""
    tools: list[dict[str, Any]]
    """The chat's tools (OpenAI function schemas), run in the kernel when called."""
    state: dict[str, Any]
    """The shared state the run starts from."""
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    status: Callable[[str], None] = field(default=lambda text: None)
    set_state: Callable[[dict[str, Any]], None] = field(default=lambda state: None)
    """Replace the shared state (the agent sent a snapshot or a delta)."""
    custom: Callable[[str, Any], None] = field(default=lambda name, value: None)
    """Hand an application-defined event to the thread listeners."""
    server_results: dict[int, tuple[Any, bool]] = field(default_factory=dict)
    """Filled by the agent: (result, is_error) of the calls it ran itself, by
    the ``ToolCallDelta.index`` it streamed them with. Only a call to a tool
    the chat does not own (or to a human tool) is answered so; one to the
    chat's own tools is run by the kernel behind its gate (``may_answer``)."""
    resume: list[AgentDecision] = field(default_factory=list)
    """The user's decisions on the interrupts the agent's last run ended with."""
    interrupts: dict[int, AgentInterrupt] = field(default_factory=dict)
    """Filled by the agent: the calls (by ``ToolCallDelta.index``) it paused
    on for the user's approval; they wait, unanswered, for the decision."""
    resumed_results: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    """Filled by the agent: (result, is_error) of the resumed calls, by call id."""


@runtime_checkable
class Agent(Protocol):
    """Anything with a name and a ``run(request)`` stream of model deltas."""

    name: str

    def run(self, request: AgentRequest) -> AsyncIterator[ModelDelta]: ...
