"""The model protocol: what the loop asks a model and what it streams back.

A model adapter turns one request (history in OpenAI chat format, tool
schemas, tool_choice, a cancel signal) into an async stream of small deltas.
The loop owns everything else: accumulation, partial parsing, tools, status.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import ModelError as ModelError  # re-exported: its old import path

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str
    provider_data: dict[str, Any] | None = None
    """Opaque data for the provider that produced it, keyed by the model's
    ``provider_key`` (kept on the ``ReasoningPart``, sent back to it only)."""


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of one tool call; ``index`` tells parallel calls apart.

    The first delta of a call carries ``id`` and ``name``; later ones may
    carry only ``arguments`` (the next characters of the JSON text).
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    provider_data: dict[str, Any] | None = None
    """Opaque data the provider wants back with this call (Gemini's thought
    signature), keyed by the model's ``provider_key``; merged into the part's."""


@dataclass(frozen=True, slots=True)
class UsageDelta:
    """Tokens one model request used, as the provider reported them."""

    input_tokens: int = 0
    """All input tokens, cached ones included."""
    output_tokens: int = 0
    """All output tokens, reasoning ones included."""
    reasoning_tokens: int = 0
    """Of ``output_tokens``, those spent thinking."""
    cache_read_tokens: int = 0
    """Of ``input_tokens``, those read from the provider's prompt cache."""
    cache_write_tokens: int = 0
    """Of ``input_tokens``, those written to the provider's prompt cache."""
    estimated: bool = False
    """The counts are a model's own estimate, not a provider's bill (the
    offline demo model's); the footer and ``usage()`` say so."""


@dataclass(frozen=True, slots=True)
class FinishDelta:
    reason: FinishReason


ModelDelta = TextDelta | ReasoningDelta | ToolCallDelta | UsageDelta | FinishDelta


PROVIDER_DATA = "_provider_data"
"""Key of a history tool call entry: the call's ``provider_data``
(``{provider_key: {...}}``), for the adapter to send back to its own provider."""

REASONING = "_reasoning"
"""Key of a history assistant entry: the step's reasoning parts that carry
provider data, as ``[{"text": ..., "provider_data": {...}}]``. Keys starting
with ``_`` are ours: an adapter drops them before sending."""


@dataclass
class ModelRequest:
    messages: list[dict[str, Any]]
    """OpenAI chat-format history, system prompt first."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI ``{"type": "function", "function": {...}}`` tool schemas."""
    tool_choice: str | dict[str, Any] = "auto"
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    status: Callable[[str], None] = field(default=lambda text: None)
    """Tell the user what the model waits for ("Rate limited by ...: retrying in
    118 s", "No answer from ... for 30 s"); ``""`` clears it. The runtime shows
    it as the run's phase detail; it must return at once."""
    max_tokens: int | None = None
    """At most this many tokens of answer (a tool server's sampling request),
    or the model's own limit when None."""
    purpose: Literal["reply", "suggestions", "sampling"] = "reply"
    """What the request is for: a step of the assistant's reply, the
    follow-up suggestions asked for after it (its last user message asks for
    a JSON array of short messages the user might send next), or a tool
    server's own prompt (an MCP sampling request, answered with no tools)."""


@runtime_checkable
class Model(Protocol):
    """Anything with a name and a ``stream`` method is a model."""

    name: str
    """Shown in the header and recorded on each reply it writes."""
    offline: bool
    """True for models that need no network or key (shown in the widget)."""

    # Optional: ``spec``, the ``"provider:model"`` name ``gu.model`` takes
    # (what a model picker shows and a thread file saves), and
    # ``provider_key``, the key of this provider's ``provider_data``.

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]: ...


class BatchStreaming(abc.ABC):
    """A model that reads several deltas at a time (all that one network read
    brought) streams them as lists with ``stream_batches``; ``stream`` yields
    them one by one for everyone else.

    The run loop reads the batches (:func:`delta_batches`) and applies each as
    one change: one patch op per part per batch instead of one per delta,
    which is most of the kernel's work for a fast provider.
    """

    @abc.abstractmethod
    def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelDelta]]:
        """The deltas of one model step, as lists: each what one read brought."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        batches = self.stream_batches(request)
        try:
            async for batch in batches:
                for delta in batch:
                    yield delta
        finally:  # stopping this stream closes the batches (a connection) now
            close = getattr(batches, "aclose", None)
            if close is not None:
                await close()


def delta_batches(model: Model, request: ModelRequest) -> AsyncIterator[list[ModelDelta]] | None:
    """``model``'s reply as batches of deltas, or None when it streams one by one.

    A subclass that overrides ``stream`` (to wrap or script it) is read through
    its ``stream``: its batches would bypass the override.
    """
    if isinstance(model, BatchStreaming) and type(model).stream is BatchStreaming.stream:
        return model.stream_batches(request)
    return None
