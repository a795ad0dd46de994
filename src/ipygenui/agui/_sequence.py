"""The AG-UI protocol's ordering rules for one event stream.

Checked on the stream the runtime emits (tests replay every scenario through
it) and on the streams external agents send (``client.py``), where a broken
rule ends the reply with an error naming it.

The rules: a stream opens with RUN_STARTED; nothing follows RUN_ERROR; after
RUN_FINISHED only a new RUN_STARTED; runs do not overlap; a text, reasoning
or tool-call message is started once, then gets content/args, then ends;
a tool result answers a call that is not streaming; a tool call's
``parent_message_id`` names an assistant message (one the stream carried,
or a new one the call opens, as clients build it), never a user, tool or
reasoning message; steps open and close by name, and reasoning spans
(REASONING_START / REASONING_END, ids of their own) by id; RUN_FINISHED
leaves nothing open and names its run.
"""

from __future__ import annotations

from ag_ui.core import BaseEvent, EventType

from ..errors import SequenceError

_STARTS = {
    EventType.TEXT_MESSAGE_START: "assistant",
    EventType.REASONING_MESSAGE_START: "reasoning",
}
_INSIDE = {
    EventType.TEXT_MESSAGE_CONTENT: "assistant",
    EventType.TEXT_MESSAGE_END: "assistant",
    EventType.REASONING_MESSAGE_CONTENT: "reasoning",
    EventType.REASONING_MESSAGE_END: "reasoning",
}
_ENDS = {EventType.TEXT_MESSAGE_END, EventType.REASONING_MESSAGE_END}


class SequenceChecker:
    """Feed every event of one stream to :meth:`check`; it raises ``SequenceError``."""

    def __init__(self) -> None:
        self.run_id: str | None = None
        """The open run, or None between runs."""
        self.thread_id: str | None = None
        self.events = 0
        self.errored = False
        self._messages: dict[str, str] = {}
        """Open text/reasoning messages: id -> kind."""
        self._calls: set[str] = set()
        self._steps: set[str] = set()
        self._spans: set[str] = set()
        """Open reasoning spans (a namespace apart from messages)."""
        self._roles: dict[str, str] = {}
        """The role of each message the stream carried (streamed or in a snapshot)."""

    def check(self, event: BaseEvent) -> None:
        kind = event.type
        position = f"event {self.events + 1} ({kind.value})"
        self.events += 1

        def fail(rule: str) -> None:
            raise SequenceError(f"{position}: {rule}")

        if self.errored:
            fail("nothing may follow RUN_ERROR")
        if kind == EventType.RUN_ERROR:
            self.errored = True
            self.run_id = None
            return
        if kind == EventType.RUN_STARTED:
            if self.run_id is not None:
                fail(f"RUN_STARTED while run {self.run_id} is still open")
            self.run_id = event.run_id  # type: ignore[attr-defined]
            self.thread_id = event.thread_id  # type: ignore[attr-defined]
            self._messages.clear()
            self._calls.clear()
            self._steps.clear()
            self._spans.clear()
            return
        if self.run_id is None:
            fail(
                "the stream must open with RUN_STARTED"
                if self.events == 1
                else "only RUN_STARTED may follow RUN_FINISHED"
            )
        if kind == EventType.RUN_FINISHED:
            self._check_finish(event, fail)
            self.run_id = None
        elif kind in _STARTS:
            mid = event.message_id  # type: ignore[attr-defined]
            if mid in self._messages:
                fail(f"message {mid} started twice")
            self._messages[mid] = _STARTS[kind]
            self._roles[mid] = getattr(event, "role", None) or _STARTS[kind]
        elif kind in _INSIDE:
            mid = event.message_id  # type: ignore[attr-defined]
            if self._messages.get(mid) != _INSIDE[kind]:
                fail(f"{kind.value} for message {mid}, which is not open")
            if kind in _ENDS:
                del self._messages[mid]
        elif kind == EventType.TOOL_CALL_START:
            call = event.tool_call_id  # type: ignore[attr-defined]
            if call in self._calls:
                fail(f"tool call {call} started twice")
            parent = event.parent_message_id  # type: ignore[attr-defined]
            role = self._roles.setdefault(parent, "assistant") if parent is not None else None
            if role is not None and role != "assistant":
                fail(f"tool call {call} names parent message {parent}, a {role} message")
            self._calls.add(call)
        elif kind in (EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END):
            call = event.tool_call_id  # type: ignore[attr-defined]
            if call not in self._calls:
                fail(f"{kind.value} for tool call {call}, which is not open")
            if kind == EventType.TOOL_CALL_END:
                self._calls.discard(call)
        elif kind == EventType.TOOL_CALL_RESULT:
            call = event.tool_call_id  # type: ignore[attr-defined]
            if call in self._calls:
                fail(f"TOOL_CALL_RESULT for tool call {call} before its TOOL_CALL_END")
            self._roles[event.message_id] = "tool"  # type: ignore[attr-defined]
        elif kind == EventType.STEP_STARTED:
            name = event.step_name  # type: ignore[attr-defined]
            if name in self._steps:
                fail(f"step {name!r} started while open")
            self._steps.add(name)
        elif kind == EventType.STEP_FINISHED:
            name = event.step_name  # type: ignore[attr-defined]
            if name not in self._steps:
                fail(f"STEP_FINISHED for step {name!r}, which is not open")
            self._steps.discard(name)
        elif kind == EventType.REASONING_START:
            span = event.message_id  # type: ignore[attr-defined]
            if span in self._spans:
                fail(f"reasoning span {span} started while open")
            self._spans.add(span)
        elif kind == EventType.REASONING_END:
            span = event.message_id  # type: ignore[attr-defined]
            if span not in self._spans:
                fail(f"REASONING_END for reasoning span {span}, which is not open")
            self._spans.discard(span)
        elif kind == EventType.MESSAGES_SNAPSHOT:
            for message in event.messages:  # type: ignore[attr-defined]
                self._roles[message.id] = message.role

    def _check_finish(self, event: BaseEvent, fail: object) -> None:
        assert callable(fail)
        if event.run_id != self.run_id:  # type: ignore[attr-defined]
            fail(f"RUN_FINISHED names run {event.run_id}, the open run is {self.run_id}")  # type: ignore[attr-defined]
        if event.thread_id != self.thread_id:  # type: ignore[attr-defined]
            fail("RUN_FINISHED names another thread than RUN_STARTED")
        if self._messages:
            fail(f"RUN_FINISHED while messages are open: {', '.join(sorted(self._messages))}")
        if self._calls:
            fail(f"RUN_FINISHED while tool calls are open: {', '.join(sorted(self._calls))}")
        if self._steps:
            fail(f"RUN_FINISHED while steps are open: {', '.join(sorted(self._steps))}")
        if self._spans:
            fail(f"RUN_FINISHED while reasoning spans are open: {', '.join(sorted(self._spans))}")


def check_sequence(events: list[BaseEvent]) -> None:
    """Check a whole stream (raises ``SequenceError`` naming the first broken rule)."""
    checker = SequenceChecker()
    for event in events:
        checker.check(event)
