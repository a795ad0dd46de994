"""The AG-UI emitter: a thread listener (as the widget is) that turns the
runtime's thread events into AG-UI events for its own listeners.

The runtime attaches one lazily, when AG-UI is first used, so a chat that
never speaks AG-UI neither imports ``ag_ui`` nor pays per delta.

What a run's stream carries: RUN_STARTED, MESSAGES_SNAPSHOT (the thread so
far) and STATE_SNAPSHOT (the shared state, with the shown components' user
states under ``"components"``); per model step STEP_STARTED, the text, reasoning and
tool-call messages as they stream (each reasoning message in a REASONING_START /
REASONING_END span, with the provider's signed or encrypted thinking as its
REASONING_ENCRYPTED_VALUE), the step's TOOL_CALL_ENDs and
STEP_FINISHED; tool results as they arrive (an A2UI or MCP app call's
with its ACTIVITY_SNAPSHOT, or ACTIVITY_DELTAs for earlier calls' surfaces);
a STATE_DELTA (RFC 6902 JSON Patch) when a component's state or the shared
state changes; then everything
still open is closed and RUN_FINISHED (with the interrupts waiting for the
user, or the calls left to the AG-UI client's own tools) or RUN_ERROR ends
the run. A tool server's request card waiting inside a call also ends the
AG-UI run (with its interrupt) while the runtime's run goes on: events are
held back until every card it named is settled, and then a new AG-UI run of
the same run id starts with its snapshots (``_server_asks.py``); if the
runtime's run ends first, it ends unheard. Results and state changes between runs (a reject, an
answer, a send while calls wait) are not events of their own: the next run's
snapshots carry them. A stream ends with RUN_ERROR, as the protocol says, so
the listeners' subscriptions end with it.

Message ids follow ``_convert.py``'s one scheme, in the stream and its
snapshots alike, and a MESSAGES_SNAPSHOT comes right before RUN_FINISHED:
what a client resumes from (the interrupts are ``_resume.py``'s).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    BaseEvent,
    CustomEvent,
    EventType,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..events import (
    AgentCustomEvent,
    AgentStateChanged,
    MessagePatched,
    MessageReplaced,
    RunEnded,
    RunStarted,
    ThreadEvent,
)
from ..messages import Complete, Incomplete, Message, ReasoningPart, Running, Thread, ToolCallPart
from ..models.history import tool_result_content
from ._activity import (
    A2UI_ACTIVITY,
    MCP_APPS_ACTIVITY,
    a2ui_activity_changes,
    a2ui_activity_id,
    mcp_app_activity_content,
)
from ._client_state import COMPONENTS_KEY
from ._convert import (
    part_step_message_id,
    reasoning_encrypted_value,
    reasoning_message_id,
    result_message_id,
    to_agui_messages,
)
from ._resume import interrupt_for
from ._server_asks import open_requests, request_interrupt

logger = logging.getLogger("ipygenui")

AGUIListener = Callable[[BaseEvent], None]


def step_name(index: int) -> str:
    return f"model step {index + 1}"


class AGUIEmitter:
    """Listens to one runtime's thread events; emits AG-UI events to its listeners.

    ``read_thread`` and ``read_state`` give the runtime's thread (exact) and
    shared state, read for the snapshots; ``read_client_tools`` the names of
    the tools an AG-UI client declared for the run (its calls are the client's).
    """

    def __init__(
        self,
        thread_id: str,
        read_thread: Callable[[], Thread],
        read_state: Callable[[], dict[str, Any]],
        read_client_tools: Callable[[], Collection[str]] = frozenset,
    ) -> None:
        self.thread_id = thread_id
        self._read_thread = read_thread
        self._read_state = read_state
        self._read_client_tools = read_client_tools
        self._listeners: list[AGUIListener] = []
        self._run_id: str | None = None
        self._message_id: str | None = None
        """The run's assistant message."""
        self._open_text: tuple[str, str, int] | None = None
        """(AG-UI message id, kind, part index) of the text/reasoning part streaming now."""
        self._calls: dict[int, str] = {}
        """Part index -> call id of the calls streamed in this run."""
        self._open_calls: list[str] = []
        self._step: int | None = None
        """The index of the open model step."""
        self._steps_seen = 0
        self._answered: set[str] = set()
        """Calls whose result the stream (or its snapshot) already carried."""
        self._state: Any = None
        self._asked: frozenset[str] | None = None
        """The request cards the AG-UI run ended on while the runtime's run goes on."""

    # --- listeners --------------------------------------------------------------

    def subscribe(self, listener: AGUIListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    async def events(self) -> AsyncIterator[BaseEvent]:
        """Every AG-UI event from now on; ends after a RUN_ERROR (the stream's end)."""
        queue: asyncio.Queue[BaseEvent] = asyncio.Queue()
        unsubscribe = self.subscribe(queue.put_nowait)
        try:
            while True:
                event = await queue.get()
                yield event
                if event.type == EventType.RUN_ERROR:
                    return
        finally:
            unsubscribe()

    def _emit(self, event: BaseEvent) -> None:
        if self._asked is not None:  # the AG-UI run ended: nothing until it starts again
            return
        listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a broken listener must not break the run
                logger.exception("AG-UI listener failed")
        if event.type == EventType.RUN_ERROR:  # nothing follows RUN_ERROR in a stream
            for listener in listeners:  # one subscription each: a listener may subscribe again
                with contextlib.suppress(ValueError):
                    self._listeners.remove(listener)

    # --- thread events in -------------------------------------------------------

    def __call__(self, event: ThreadEvent) -> None:
        if isinstance(event, MessagePatched):
            if self._run_id is not None and event.message_id == self._message_id:
                message = event.message
                if message is not None:
                    self._patched(message, event.ops)
                    self._server_asks(message)
        elif isinstance(event, MessageReplaced):
            if self._run_id is not None:
                self._replaced(event.message)
                self._server_asks(event.message)
        elif isinstance(event, RunStarted):
            self._run_started(event.run_id, event.message)
        elif isinstance(event, RunEnded):
            if event.run_id == self._run_id:
                self._run_ended(event.message)
        elif isinstance(event, AgentStateChanged):
            if self._run_id is not None:
                self._state_changed()
        elif isinstance(event, AgentCustomEvent) and self._run_id is not None:
            self._emit(CustomEvent(name=event.name, value=event.value))

    # --- a run ----------------------------------------------------------------

    def _run_started(self, run_id: str, message: Message) -> None:
        if not self._listeners:
            return
        self._run_id, self._message_id = run_id, message.id
        self._open_text = self._step = self._asked = None
        self._calls, self._open_calls = {}, []
        thread = self._read_thread()
        self._steps_seen = len(message.metadata.get("steps") or ())
        self._answered = {
            p.tool_call_id for m in thread.messages for p in m.tool_calls if p.has_result
        }
        self._emit(
            RunStartedEvent(
                thread_id=self.thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION
            )
        )
        self._messages_snapshot()
        self._state = self._snapshot(thread)
        self._emit(StateSnapshotEvent(snapshot=self._state))

    def _patched(self, message: Message, ops: list[Any]) -> None:
        steps = message.metadata.get("steps")
        if steps is not None and len(steps) > self._steps_seen:
            self._start_step(len(steps) - 1)
        for op in ops:
            name = op["op"]
            if name == "add_part":
                self._close_text()
                value, index = op["value"], op["part"]
                if value["type"] == "tool-call":
                    if not value.get("synthetic"):  # a server request's card is no model call
                        self._start_call(index, value, part_step_message_id(message, index))
                elif value["type"] == "reasoning":
                    self._start_text(reasoning_message_id(message.id, index), "reasoning", index)
                    self._content(value.get("text") or "")
                else:  # every text part of a step streams into the step's one message
                    self._start_text(part_step_message_id(message, index), value["type"], index)
                    self._content(value.get("text") or "")
            elif name == "append":
                if op["field"] == "text":
                    self._content(op["value"])
                elif op["field"] == "args_text":
                    call = self._calls.get(op["part"])
                    if call is not None and call in self._open_calls:
                        self._emit(ToolCallArgsEvent(tool_call_id=call, delta=op["value"]))

    def _replaced(self, message: Message) -> None:
        if message.id == self._message_id:
            steps = message.metadata.get("steps") or ()
            if len(steps) > self._steps_seen:  # a step that streamed nothing
                self._start_step(len(steps) - 1)
            if self._step is not None and steps and steps[-1].get("end") is not None:
                self._finish_step()
        self._results(message)
        self._state_changed()

    def _run_ended(self, message: Message) -> None:
        if self._asked is not None:  # its AG-UI run ended at the request, never resumed
            self._run_id = self._message_id = self._asked = None
            return
        self._replaced(message)
        self._finish_step()  # a cancelled step: its open text and calls close too
        self._results(message)  # the cancelled calls' answers, now that they are closed
        run_id, self._run_id, self._message_id = self._run_id, None, None
        assert run_id is not None
        status = message.status
        if isinstance(status, Incomplete) and status.reason != "cancelled":
            self._emit(RunErrorEvent(message=status.error or status.reason, code=status.reason))
            return
        outcome: Any
        if isinstance(status, Incomplete):
            outcome = RunFinishedCancelledOutcome()
        elif isinstance(status, Complete):
            outcome = RunFinishedSuccessOutcome()
        else:  # requires action: the user must approve or answer calls, or the client
            outcome = self._waiting(message)
        self._messages_snapshot()  # what a resume starts from (AG-UI: before an interrupt)
        self._emit(
            RunFinishedEvent(
                thread_id=self.thread_id, run_id=run_id, result=message.text, outcome=outcome
            )
        )

    def _waiting(self, message: Message) -> Any:
        """The outcome of a run that waits: interrupts for the user's calls, or,
        when only calls of the AG-UI client's own tools wait, a success naming
        them (the client answers them in its next input, as AG-UI has it)."""
        client = self._read_client_tools()
        waiting = [p for p in message.tool_calls if not p.has_result]
        users = [p for p in waiting if p.tool_name not in client or p.approval is not None]
        if users:
            return RunFinishedInterruptOutcome(interrupts=[interrupt_for(p) for p in users])
        return RunFinishedSuccessOutcome(pending_tool_call_ids=[p.tool_call_id for p in waiting])

    def _server_asks(self, message: Message) -> None:
        """End the AG-UI run when a tool server's card waits in the running
        reply; start the next once every card it named is settled."""
        if self._run_id is None or message.id != self._message_id:
            return
        waiting = open_requests(message)  # none once the reply is no longer running
        if self._asked is not None:
            still = self._asked & {p.tool_call_id for p in waiting}
            if still or not isinstance(message.status, Running):
                return  # still waits, or the run ends: its AG-UI run ended already
            self._asked = None
            self._emit(
                RunStartedEvent(
                    thread_id=self.thread_id, run_id=self._run_id, protocol_version=PROTOCOL_VERSION
                )
            )
            self._messages_snapshot()
            self._state = self._snapshot(self._read_thread())
            self._emit(StateSnapshotEvent(snapshot=self._state))
        if waiting:
            self._finish_step()  # the step's calls close before the run's end
            self._messages_snapshot()
            interrupts = [request_interrupt(p) for p in waiting]
            self._emit(
                RunFinishedEvent(
                    thread_id=self.thread_id,
                    run_id=self._run_id,
                    outcome=RunFinishedInterruptOutcome(interrupts=interrupts),
                )
            )
            self._asked = frozenset(p.tool_call_id for p in waiting)

    # --- pieces -----------------------------------------------------------------

    def _start_step(self, index: int) -> None:
        self._finish_step()
        self._steps_seen = index + 1
        self._step = index
        self._emit(StepStartedEvent(step_name=step_name(index)))

    def _finish_step(self) -> None:
        self._close_text()
        for call in self._open_calls:
            self._emit(ToolCallEndEvent(tool_call_id=call))
        self._open_calls = []
        if self._step is not None:
            self._emit(StepFinishedEvent(step_name=step_name(self._step)))
            self._step = None

    def _start_call(self, index: int, value: dict[str, Any], parent: str) -> None:
        call = value["tool_call_id"]
        self._calls[index] = call
        self._open_calls.append(call)
        self._emit(
            ToolCallStartEvent(
                tool_call_id=call,
                tool_call_name=value.get("tool_name") or "",
                parent_message_id=parent,
            )
        )
        if value.get("args_text"):
            self._emit(ToolCallArgsEvent(tool_call_id=call, delta=value["args_text"]))

    def _start_text(self, mid: str, kind: str, index: int) -> None:
        self._open_text = (mid, kind, index)
        if kind == "reasoning":  # a span of its own around each reasoning message
            self._emit(ReasoningStartEvent(message_id=mid))
            self._emit(ReasoningMessageStartEvent(message_id=mid, role="reasoning"))
        else:
            self._emit(TextMessageStartEvent(message_id=mid, role="assistant"))

    def _content(self, delta: str) -> None:
        if self._open_text is None or not delta:
            return
        mid, kind, _ = self._open_text
        if kind == "reasoning":
            self._emit(ReasoningMessageContentEvent(message_id=mid, delta=delta))
        else:
            self._emit(TextMessageContentEvent(message_id=mid, delta=delta))

    def _close_text(self) -> None:
        if self._open_text is None:
            return
        mid, kind, index = self._open_text
        self._open_text = None
        if kind != "reasoning":
            self._emit(TextMessageEndEvent(message_id=mid))
            return
        self._emit(ReasoningMessageEndEvent(message_id=mid))
        value = self._encrypted_value(index)  # the provider sends it as the part ends
        if value is not None:
            self._emit(
                ReasoningEncryptedValueEvent(
                    subtype="message", entity_id=mid, encrypted_value=value
                )
            )
        self._emit(ReasoningEndEvent(message_id=mid))

    def _encrypted_value(self, index: int) -> str | None:
        """The provider's artefact of part ``index`` of the run's message, if any."""
        message = next(
            (m for m in reversed(self._read_thread().messages) if m.id == self._message_id), None
        )
        parts = message.parts if message is not None else []
        part = parts[index] if index < len(parts) else None
        return reasoning_encrypted_value(part) if isinstance(part, ReasoningPart) else None

    def _results(self, message: Message) -> None:
        for part in message.tool_calls:
            call = part.tool_call_id
            if not part.has_result or call in self._answered or call in self._open_calls:
                continue
            self._answered.add(call)
            self._emit(
                ToolCallResultEvent(
                    message_id=result_message_id(call),
                    tool_call_id=call,
                    content=tool_result_content(part),
                    role="tool",
                )
            )
            self._a2ui_activity(part)
            app = mcp_app_activity_content(part)
            if app is not None:  # what other AG-UI clients show an MCP app from
                self._emit(
                    ActivitySnapshotEvent(
                        message_id=f"mcp-app-{call}", activity_type=MCP_APPS_ACTIVITY, content=app
                    )
                )

    def _a2ui_activity(self, part: ToolCallPart) -> None:
        """What other AG-UI clients render A2UI from: the call's own surfaces as
        its snapshot, its changes to earlier calls' surfaces as their deltas."""
        own, patches = a2ui_activity_changes(self._read_thread(), part)
        if own is not None:
            self._emit(
                ActivitySnapshotEvent(
                    message_id=a2ui_activity_id(part.tool_call_id),
                    activity_type=A2UI_ACTIVITY,
                    content=own,
                )
            )
        for message_id, patch in patches.items():
            self._emit(
                ActivityDeltaEvent(message_id=message_id, activity_type=A2UI_ACTIVITY, patch=patch)
            )

    def _messages_snapshot(self) -> None:
        """The thread as AG-UI messages, with the ids the stream used."""
        past = [m for m in self._read_thread().messages if m.parts]
        self._emit(MessagesSnapshotEvent(messages=to_agui_messages(past, as_streamed=True)))

    def _state_changed(self) -> None:
        state = self._snapshot(self._read_thread())
        if state == self._state:
            return
        before, self._state = self._state, state
        try:
            import jsonpatch
        except ImportError:  # the agui extra brings it; without it, whole snapshots
            self._emit(StateSnapshotEvent(snapshot=state))
            return
        self._emit(StateDeltaEvent(delta=jsonpatch.make_patch(before, state).patch))

    def _snapshot(self, thread: Thread) -> dict[str, Any]:
        """The run's state: the shared state, and under ``"components"`` the
        shown components' user states (when any has one)."""
        components = {
            p.tool_call_id: p.component_state
            for m in thread.messages
            for p in m.tool_calls
            if isinstance(p, ToolCallPart) and p.component_state is not None
        }
        state = copy.deepcopy(dict(self._read_state()))  # a copy: the next patch's base
        if components:
            state[COMPONENTS_KEY] = copy.deepcopy(components)
        return state
