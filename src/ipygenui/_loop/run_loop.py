"""The loop of one run: tool phase, model step, again, until the run ends.

A roundtrip streams one model step into the assistant message (recorded in
``metadata["steps"]``), then runs every ready tool call of that step. The
loop goes on while every call has its answer, and stops when a call waits
for the user, when the model answers in text, or when a limit is hit.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from ..messages import Complete, Incomplete, Message, RequiresAction, Running, Thread, Usage
from ..models.base import Model, ModelDelta, ModelError, ModelRequest
from ..tools import Tool
from .accumulator import Accumulator
from .ending import end_message
from .history import assistant_messages, to_openai_messages
from .prompts import system_prompt
from .run_events import RunEvents
from .tool_runner import ToolRunner


@contextlib.asynccontextmanager
async def _closing(stream: AsyncIterator[ModelDelta]) -> AsyncIterator[AsyncIterator[ModelDelta]]:
    """``stream``, closed on the way out when it can be (an async generator can)."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


class RunSettings(Protocol):
    """What the loop reads from its runtime at every step (users may change them)."""

    model: Model
    instructions: str | None
    max_steps: int
    max_result_chars: int | None

    @property
    def thread(self) -> Thread: ...


class RunLoop:
    """Drives a run's message through roundtrips; the runtime owns the task around it.

    ``update_tools`` gives the step's extra tools (the components' update
    tools); ``schemas`` are the chat API entries of the runtime's own tools;
    ``tool_choice`` applies to the first step of a run only, so a
    forced tool cannot loop.
    """

    def __init__(
        self,
        settings: RunSettings,
        tools: ToolRunner,
        events: RunEvents,
        save: Callable[[], None],
        update_tools: Callable[[], dict[str, Tool]],
        schemas: list[dict[str, Any]],
        tool_choice: str | dict[str, Any],
    ) -> None:
        self._settings = settings
        self._tools = tools
        self._events = events
        self._save = save
        self._update_tools = update_tools
        self._tool_choice = tool_choice
        self._schemas = schemas
        self._component_names = [t.component for t in tools.tools.values() if t.component]
        self._streaming: Accumulator | None = None

    def materialize(self) -> None:
        """Make the streaming message's text fields exact (see Accumulator.materialize)."""
        if self._streaming is not None:
            self._streaming.materialize()

    async def run(
        self, message: Message, is_current: Callable[[], bool], cancel: asyncio.Event
    ) -> None:
        """Loop until the message has its final status (or requires action).

        ``cancel`` is set by ``Runtime.cancel()``, which has then ended the
        message itself: a step that sees it raises ``CancelledError``.
        """
        while True:
            stop = await self._tools.run(message, is_current)
            if stop is not None:
                self._end(message, Incomplete(reason="other", error=stop))
                return
            if any(not p.has_result for p in message.tool_calls):
                message.status = RequiresAction()
                return
            steps = message.metadata.setdefault("steps", [])
            if steps and not steps[-1].get("tool_calls"):
                if isinstance(message.status, Running):
                    message.status = Complete(reason="unknown")
                return
            max_steps = self._settings.max_steps
            if len(steps) >= max_steps:
                self._end(
                    message,
                    Incomplete(
                        reason="other",
                        error=f"Stopped after {max_steps} model steps (max_steps): "
                        "the model kept calling tools.",
                    ),
                )
                return
            if await self._roundtrip(message, cancel):
                return

    def _end(self, message: Message, status: Incomplete | Complete) -> None:
        end_message(message, status, self._events.answer)

    def _history(self, message: Message) -> list[dict[str, Any]]:
        """The chat messages before ``message``, then what ``message`` holds so far."""
        settings = self._settings
        messages = settings.thread.messages
        index = next(i for i, m in enumerate(messages) if m is message)
        system = system_prompt(settings.instructions, component_names=self._component_names)
        budget = settings.max_result_chars
        return to_openai_messages(
            messages[:index], system, max_result_chars=budget
        ) + assistant_messages(message, max_result_chars=budget)

    async def _roundtrip(self, message: Message, cancel: asyncio.Event) -> bool:
        """One model step; True when the run ends with it."""
        self._events.set_phase("thinking")
        steps: list[dict[str, Any]] = message.metadata["steps"]
        dynamic = self._update_tools()
        streaming = True

        def status(text: str) -> None:
            # What the model waits for, as the phase detail; never after its step.
            if streaming and not cancel.is_set():
                self._events.set_phase("thinking", text)

        request = ModelRequest(
            messages=self._history(message),
            tools=self._schemas
            + [t.openai_schema(standard_parameters=True) for t in dynamic.values()],
            tool_choice=self._tool_choice if not steps else "auto",
            cancel=cancel,
            status=status,
        )
        taken = (p.tool_call_id for m in self._settings.thread.messages for p in m.tool_calls)
        accumulator = Accumulator(message, {**self._tools.tools, **dynamic}, taken_ids=taken)
        step: dict[str, Any] = {"start": len(message.parts), "end": None, "started_at": time.time()}
        steps.append(step)
        error: str | None = None
        patch = self._events.patch  # the hot path: one bound method per delta
        self._streaming = accumulator
        try:
            # aclosing: a stopped run closes the stream (its connection, its
            # watchdog) now, not whenever the generator is collected
            async with _closing(self._settings.model.stream(request)) as deltas:
                async for delta in deltas:
                    ops = accumulator.apply(delta)
                    if ops:
                        patch(message, ops)
        except ModelError as exc:
            error = str(exc) or type(exc).__name__
        except Exception as exc:  # provider bugs and network errors reach the user too
            error = f"{type(exc).__name__}: {exc}"
        finally:  # cancelled too: the message keeps every streamed character
            streaming = False
            accumulator.materialize()
            self._streaming = None
        ops = accumulator.finish()
        if ops:
            patch(message, ops)
        calls = accumulator.tool_call_parts
        step.update(
            end=len(message.parts),
            ended_at=time.time(),
            tool_calls=len(calls),
            finish_reason=accumulator.finish_reason,
        )
        if accumulator.has_usage:
            step["usage"] = accumulator.usage.model_dump()
            total = Usage.model_validate(message.metadata.get("usage") or {}) + accumulator.usage
            message.metadata["usage"] = total.model_dump()
        self._events.agui.step_finished(calls)
        if cancel.is_set():
            raise asyncio.CancelledError  # cancel() already ended the message
        if error is not None:
            self._end(message, Incomplete(reason="error", error=error))
            return True
        if accumulator.finish_reason in ("length", "content_filter"):
            reason = "length" if accumulator.finish_reason == "length" else "content-filter"
            self._end(message, Incomplete(reason=reason))
            return True
        if calls:
            self._events.replace(message)
            self._save()
            return False
        message.status = Complete(
            reason="stop" if accumulator.finish_reason == "stop" else "unknown"
        )
        return True
