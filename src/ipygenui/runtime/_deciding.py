"""The user's decisions on a runtime's tool calls, and whether they resume it.

``approve`` a pending call, optionally with edited arguments (validated
again; they then run whatever the tool's approval rule says of them), and
``always=True`` trusts the tool for the rest of the chat (a grant kept in
the thread, taken back by ``revoke_always``; ``AlwaysAllowedChanged`` says
so). ``reject`` answers the call with an error that gives the reason.
``by`` is who decided, as the call's card says ("Approved from code"; the
chat's own buttons pass ``"user"``).

``add_tool_result`` answers a human tool's call, so the widget and an AG-UI
client too: a call waiting for approval is decided by approve / reject, and
a call to any other tool of the chat is run by the kernel; those raise
``DecisionError``, nothing changed (``_loop/decisions.py`` checks every
decision before changing anything). An AG-UI client may also answer a call
to a tool it declared. A tool server's card (an MCP sampling or elicitation
request, ``_server_requests``) is decided with the same verbs; a form is
answered with ``{"action": "accept", "content": {...}}`` (or the content
alone), ``{"action": "decline"}`` or ``{"action": "cancel"}``.

After a decision the message is committed; a run in progress (or about to
start) picks the decision up, and otherwise the loop resumes when its own
rule says it goes on (``RunLoop.resumes``: ``continuation.goes_on``). Each
verb returns the run that continues the loop, or None while a call still
waits for the user.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from .._internal.sanitize import clean_text, json_safe
from ..events import AlwaysAllowedChanged
from ..messages import DecidedBy, Message
from ..tools import Tool
from ._host import Host
from ._loop.decisions import (
    always_allowed_tools,
    answer_call,
    approve_call,
    reject_call,
    set_always_allowed,
)
from ._loop.run_loop import RunLoop
from ._run_lifecycle import RunLifecycle
from ._server_requests import ServerRequests
from .run import Run

__all__ = ["Decisions"]


class Decisions:
    """Approve, reject, answer and trust the calls of the thread shown."""

    def __init__(
        self,
        host: Host,
        tools: Mapping[str, Tool],
        loop: RunLoop,
        runs: RunLifecycle,
        requests: ServerRequests,
    ) -> None:
        self._thread = host.thread
        self._events = host.events
        self._commit = host.commit
        self._save = host.save
        self._tools = tools
        self._loop = loop
        self._runs = runs
        self._requests = requests

    def always_allowed(self) -> frozenset[str]:
        return always_allowed_tools(self._thread())

    def approve(
        self, tool_call_id: str, args: dict[str, Any] | None, always: bool, by: DecidedBy
    ) -> Run | None:
        if self._requests.owns(tool_call_id):  # a server's sampling request
            self._requests.approve(tool_call_id, by)
            return self._runs.run
        if args is not None:
            args = json_safe(args)  # what the file and the widget can hold
        allowed = self.always_allowed()
        message = approve_call(self._thread(), self._tools, tool_call_id, args, always, by)
        self._always_allowed_changed(allowed)
        return self._decided(message)

    def reject(self, tool_call_id: str, reason: str | None, by: DecidedBy) -> Run | None:
        if reason is not None:
            reason = clean_text(str(reason))
        if self._requests.owns(tool_call_id):
            self._requests.reject(tool_call_id, reason, by)
            return self._runs.run
        message = reject_call(self._thread(), tool_call_id, reason, self._events.answer, by)
        return self._decided(message)

    def add_tool_result(self, tool_call_id: str, result: Any, is_error: bool) -> Run | None:
        if self._requests.owns(tool_call_id):
            self._requests.answer(tool_call_id, result)
            return self._runs.run
        return self.answer(tool_call_id, result, is_error)

    def answer(
        self, tool_call_id: str, result: Any, is_error: bool, client_tools: Collection[str] = ()
    ) -> Run | None:
        """Answer a call from outside the kernel (``answer_call``'s gates) and go on."""
        message = answer_call(
            self._thread(),
            self._loop.step_toolset().all(),
            tool_call_id,
            result,
            is_error,
            executing=self._loop.executing,
            streaming=self._runs.message,
            answer=self._events.answer,
            client_tools=client_tools,
        )
        return self._decided(message)

    def revoke_always(self, tool_name: str) -> None:
        allowed = self.always_allowed()
        set_always_allowed(self._thread(), allowed - {tool_name})
        self._always_allowed_changed(allowed)
        self._save()

    def _always_allowed_changed(self, before: frozenset[str]) -> None:
        now = self.always_allowed()
        if now != before:
            self._events.emit(AlwaysAllowedChanged(tuple(sorted(now))))

    def _decided(self, message: Message) -> Run | None:
        self._commit(message)
        joined = self._runs.joining()
        if joined is not None:
            return joined  # the run in progress (or about to start) picks the decision up
        if self._loop.resumes(message):  # the loop's own rule (continuation.goes_on)
            return self._runs.launch(message)
        return None
