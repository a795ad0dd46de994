"""``ScriptedModel``: a deterministic model for tests, docs and offline demos.

It replays scripted replies as a real model would stream them: text and
reasoning in small chunks, tool calls whose argument text arrives in pieces
(several calls in parallel) or whole, at once or a while after the call's
name, usage, a finish reason, or an error mid-stream.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..messages import new_id
from .base import (
    BatchStreaming,
    FinishDelta,
    FinishReason,
    ModelDelta,
    ModelError,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)


@dataclass
class ScriptedCall:
    """One tool call of a scripted reply; ``args`` may be a dict or raw text.

    By default the argument text streams in pieces right after the call's
    name (as OpenAI and Anthropic send it). ``whole_args`` sends it in one
    delta (as Gemini, Ollama and Groq do); ``args_after`` holds it back after
    the name's delta, for that many seconds or until the event is set (a model
    that names the call, then takes a while to write it). A stop ends the wait.
    ``chunk_size`` sets the pieces' length in characters (None: the model's
    ``chunk_size``), as a model writes a long JSON argument faster than prose.
    """

    name: str
    args: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None
    whole_args: bool = False
    args_after: float | asyncio.Event | None = None
    chunk_size: int | None = None


@dataclass(frozen=True)
class _Wait:
    """Not a delta: where the scripted stream waits (``ScriptedCall.args_after``)."""

    until: float | asyncio.Event

    async def wait(self, cancel: asyncio.Event) -> None:
        """Until the time is up or the event is set, or the run is stopped."""
        waits = [asyncio.ensure_future(cancel.wait())]
        timeout = None
        if isinstance(self.until, asyncio.Event):
            waits.append(asyncio.ensure_future(self.until.wait()))
        else:
            timeout = self.until
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()


@dataclass
class ScriptedReply:
    """What the model "says" in one step.

    ``error`` raises ``ModelError`` after ``error_after`` chunks of the
    reply have streamed (default: after everything).
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: Sequence[ScriptedCall] = ()
    usage: UsageDelta | tuple[int, int] | Mapping[str, Any] | None = None
    """Tokens the step reports: a ``UsageDelta``, ``(input, output)``, or a
    mapping of ``UsageDelta``'s fields (``{"input_tokens": 900, ...}``)."""
    finish: FinishReason | None = None
    error: str | None = None
    error_after: int | None = None


ReplyLike = ScriptedReply | str | ScriptedCall | Sequence[ScriptedCall]
Script = Sequence[ReplyLike] | Mapping[str, ReplyLike] | Callable[[ModelRequest], ReplyLike]


def as_reply(value: ReplyLike) -> ScriptedReply:
    """Accept a reply, a plain string (text), a call, or a list of calls."""
    if isinstance(value, ScriptedReply):
        return value
    if isinstance(value, str):
        return ScriptedReply(text=value)
    if isinstance(value, ScriptedCall):
        return ScriptedReply(tool_calls=[value])
    if isinstance(value, Sequence) and all(isinstance(v, ScriptedCall) for v in value):
        return ScriptedReply(tool_calls=[v for v in value if isinstance(v, ScriptedCall)])
    raise TypeError(f"not a scripted reply: {value!r}")


def last_user_text(request: ModelRequest) -> str:
    for entry in reversed(request.messages):
        if entry.get("role") == "user":
            content = entry.get("content")
            if isinstance(content, list):  # text and image parts: the text is the first
                texts = [p.get("text", "") for p in content if isinstance(p, dict)]
                return "".join(t for t in texts if isinstance(t, str))
            return content if isinstance(content, str) else ""
    return ""


KEPT_REQUESTS = 10
"""Requests a model keeps without ``record=True``: each holds the whole history,
so keeping every one grows memory with the square of the chat's length."""

_UNPACED_BURST = 16
"""With no delay, deltas come in bursts of this many between loop turns: a
network stream also delivers several deltas per read."""


class ScriptedModel(BatchStreaming):
    """Replays scripted replies.

    ``script`` is a sequence (one reply per model request, in order), a
    mapping (the first key found in the last user message, case-insensitive,
    picks the reply; ``default`` otherwise), or a function of the request.
    ``requests`` holds the last :data:`KEPT_REQUESTS` requests so tests can
    check what the model saw; ``record=True`` keeps every one (for a test that
    checks them all). ``request_count`` counts every request.
    """

    offline = True

    def __init__(
        self,
        script: Script = (),
        *,
        default: ReplyLike | None = None,
        chunk_size: int = 4,
        delay: float = 0.0,
        name: str = "scripted",
        record: bool = False,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self.script = script
        self.default = default
        self.chunk_size = chunk_size
        self.delay = delay
        self.name = name
        self.record = record
        self.requests: deque[ModelRequest] = deque(maxlen=None if record else KEPT_REQUESTS)
        self.request_count = 0
        self._next = 0

    def pick(self, request: ModelRequest) -> ScriptedReply:
        """The reply to ``request`` (advances a sequence script)."""
        script = self.script
        if callable(script) and not isinstance(script, Mapping):
            return as_reply(script(request))
        if isinstance(script, Mapping):
            text = last_user_text(request).lower()
            for key, reply in script.items():
                if key.lower() in text:
                    return as_reply(reply)
        else:
            if self._next < len(script):
                reply = script[self._next]
                self._next += 1
                return as_reply(reply)
        if self.default is not None:
            return as_reply(self.default)
        raise ModelError(f"{self.name} model has no scripted reply for this request")

    def pace(self, request: ModelRequest) -> float:
        """Seconds between two deltas of the answer to ``request``."""
        return self.delay

    def deltas(self, reply: ScriptedReply) -> list[ModelDelta]:
        """The reply as the deltas a streaming provider would send."""
        return [d for d in self._deltas(reply) if not isinstance(d, _Wait)]

    def _deltas(self, reply: ScriptedReply) -> Iterator[ModelDelta | _Wait]:
        """The deltas, made as they are sent: a long reply's deltas are not
        all alive at once (the garbage collector would walk them all)."""
        size = self.chunk_size
        reasoning, text = reply.reasoning, reply.text
        for i in range(0, len(reasoning), size):
            yield ReasoningDelta(reasoning[i : i + size])
        for i in range(0, len(text), size):
            yield TextDelta(text[i : i + size])
        for index, call in enumerate(reply.tool_calls):
            args = call.args if isinstance(call.args, str) else json.dumps(call.args)
            call_id = call.id or new_id("call")
            if call.whole_args and call.args_after is None:  # name and arguments in one delta
                yield ToolCallDelta(index, id=call_id, name=call.name, arguments=args)
                continue
            yield ToolCallDelta(index, id=call_id, name=call.name)
            if call.args_after is not None:
                yield _Wait(call.args_after)
            step = (len(args) or 1) if call.whole_args else (call.chunk_size or size)
            for i in range(0, len(args), step):
                yield ToolCallDelta(index, arguments=args[i : i + step])
        if reply.usage is not None:
            yield _usage_delta(reply.usage)
        yield FinishDelta(reply.finish or ("tool_calls" if reply.tool_calls else "stop"))

    async def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelDelta]]:
        """The reply in batches: one delta per batch when paced, else the
        deltas between two yields to the loop (as a fast provider's network
        read brings several)."""
        self.requests.append(request)
        self.request_count += 1
        reply = self.pick(request)
        deltas: Iterable[ModelDelta | _Wait] = self._deltas(reply)
        fail_at = None
        if reply.error is not None:
            if reply.error_after is None:  # before the last delta
                deltas = list(deltas)
                fail_at = sum(not isinstance(d, _Wait) for d in deltas) - 1
            else:
                fail_at = reply.error_after
        delay = self.pace(request)
        batch: list[ModelDelta] = []
        i = -1  # counts deltas, not waits
        for delta in deltas:
            if isinstance(delta, _Wait):
                if batch:  # what came before the wait reaches the loop first
                    yield batch
                    batch = []
                await delta.wait(request.cancel)
                if request.cancel.is_set():
                    return
                continue
            i += 1
            if fail_at is not None and i >= fail_at:
                if batch:
                    yield batch
                raise ModelError(reply.error or "scripted error")
            # Yield to the loop (every delta when paced, every few when not), so
            # cancel and clicks interleave as with a real stream.
            if delay or i % _UNPACED_BURST == 0:
                if batch:
                    yield batch
                    batch = []
                await asyncio.sleep(delay)
            if request.cancel.is_set():
                return
            batch.append(delta)
        if batch and not request.cancel.is_set():
            yield batch


def _usage_delta(usage: UsageDelta | tuple[int, int] | Mapping[str, Any]) -> UsageDelta:
    if isinstance(usage, UsageDelta):
        return usage
    if isinstance(usage, Mapping):
        return UsageDelta(**usage)
    return UsageDelta(*usage)
