"""AG-UI events for every run (types from the ``ag-ui-protocol`` package).

The runtime reports what happens (run start, patch ops, step end, tool
results, run end); this module turns it into AG-UI events and hands them to
listeners. Nothing is built when nobody listens, so the hot path pays nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ._internal.patch_ops import PatchOp
from ._loop.history import tool_result_content
from .messages import Complete, Incomplete, Message, ToolCallPart

AGUIListener = Callable[[BaseEvent], None]


def part_message_id(message_id: str, part: int) -> str:
    """AG-UI text messages are per text part: one assistant message may hold several."""
    return f"{message_id}:{part}"


class AGUIEmitter:
    """Translates runtime happenings into AG-UI events for its listeners."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self._listeners: list[AGUIListener] = []
        self._open: tuple[str, int, str] | None = None
        """(message id, part index, kind) of the text/reasoning part being streamed."""

    @property
    def active(self) -> bool:
        return bool(self._listeners)

    def subscribe(self, listener: AGUIListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    async def events(self) -> AsyncIterator[BaseEvent]:
        """Every AG-UI event from now on, until the consumer stops iterating."""
        queue: asyncio.Queue[BaseEvent] = asyncio.Queue()
        unsubscribe = self.subscribe(queue.put_nowait)
        try:
            while True:
                yield await queue.get()
        finally:
            unsubscribe()

    def _emit(self, event: BaseEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    # --- what the runtime reports -------------------------------------------

    def run_started(self, run_id: str) -> None:
        if self.active:
            self._open = None
            self._emit(RunStartedEvent(thread_id=self.thread_id, run_id=run_id))

    def ops(self, message: Message, ops: list[PatchOp]) -> None:
        if not self.active:
            return
        for op in ops:
            if op["op"] == "add_part":
                self._close()
                value = op["value"]
                if value["type"] == "tool-call":
                    self._emit(
                        ToolCallStartEvent(
                            tool_call_id=value["tool_call_id"],
                            tool_call_name=value["tool_name"],
                            parent_message_id=message.id,
                        )
                    )
                    if value.get("args_text"):
                        self._emit(
                            ToolCallArgsEvent(
                                tool_call_id=value["tool_call_id"], delta=value["args_text"]
                            )
                        )
                else:
                    self._open_text(message.id, op["part"], value["type"])
                    if value.get("text"):
                        self._content(value["text"])
            elif op["op"] == "append" and op["field"] == "text":
                self._content(op["value"])
            elif op["op"] == "append" and op["field"] == "args_text":
                part = message.parts[op["part"]]
                assert isinstance(part, ToolCallPart)
                self._emit(ToolCallArgsEvent(tool_call_id=part.tool_call_id, delta=op["value"]))

    def _open_text(self, message_id: str, index: int, kind: str) -> None:
        mid = part_message_id(message_id, index)
        self._open = (mid, index, kind)
        if kind == "reasoning":
            self._emit(ReasoningMessageStartEvent(message_id=mid, role="reasoning"))
        else:
            self._emit(TextMessageStartEvent(message_id=mid, role="assistant"))

    def _content(self, delta: str) -> None:
        if self._open is None or not delta:
            return
        mid, _, kind = self._open
        if kind == "reasoning":
            self._emit(ReasoningMessageContentEvent(message_id=mid, delta=delta))
        else:
            self._emit(TextMessageContentEvent(message_id=mid, delta=delta))

    def _close(self) -> None:
        if self._open is None:
            return
        mid, _, kind = self._open
        self._open = None
        if kind == "reasoning":
            self._emit(ReasoningMessageEndEvent(message_id=mid))
        else:
            self._emit(TextMessageEndEvent(message_id=mid))

    def step_finished(self, calls: list[ToolCallPart]) -> None:
        if not self.active:
            return
        self._close()
        for part in calls:
            self._emit(ToolCallEndEvent(tool_call_id=part.tool_call_id))

    def tool_result(self, part: ToolCallPart) -> None:
        if self.active:
            self._emit(
                ToolCallResultEvent(
                    message_id=f"{part.tool_call_id}:result",
                    tool_call_id=part.tool_call_id,
                    content=tool_result_content(part),
                    role="tool",
                )
            )

    def run_finished(self, run_id: str, message: Message) -> None:
        if not self.active:
            return
        self._close()
        status = message.status
        if isinstance(status, Incomplete) and status.reason != "cancelled":
            self._emit(RunErrorEvent(message=status.error or status.reason, code=status.reason))
            return
        outcome: Any
        if isinstance(status, Incomplete):
            outcome = RunFinishedCancelledOutcome()
        elif isinstance(status, Complete):
            outcome = RunFinishedSuccessOutcome()
        else:  # requires action: the user must approve or answer calls
            waiting = [p for p in message.tool_calls if not p.has_result]
            outcome = RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(
                        id=p.tool_call_id,
                        reason="approval" if p.approval is not None else "human-input",
                        tool_call_id=p.tool_call_id,
                    )
                    for p in waiting
                ]
            )
        self._emit(
            RunFinishedEvent(
                thread_id=self.thread_id, run_id=run_id, result=message.text, outcome=outcome
            )
        )
