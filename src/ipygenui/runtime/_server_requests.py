"""A tool server's requests in the middle of one of its calls (an MCP
server's sampling and elicitation), as cards in the chat.

A request becomes a tool-call part of its own (``mcp_sampling`` /
``mcp_elicitation``) in the reply whose call is running, marked
``synthetic``: it is never sent to the model as a call of its, never counted
as one, and is saved with the thread. It is decided through the chat's
usual doors:

- sampling is gated as an approval (``approve(id)`` / ``reject(id, reason)``);
  once approved the chat's model completes the server's prompt (no tools, a
  token limit), the answer is shown on the card and approved again before it
  goes back;
- elicitation is answered as a human tool is: ``add_tool_result(id,
  {"action": "accept", "content": {...}})`` (``"decline"`` / ``"cancel"``;
  a plain dict is accepted content), checked by the source's own validator.

At most ``MAX_OPEN_REQUESTS_PER_CALL`` cards of one call are open at once: a
request past that is refused to the server with no card (a flood never
buries the reply). A pending card whose waiter is gone (a thread read back after the kernel
restarted, a run cancelled) is answered cancelled, so nothing stays open.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import DecisionError
from ..messages import Approval, DecidedBy, Message, Thread, ToolCallPart, new_id
from ..models.base import Model, ModelRequest, TextDelta
from ..tools.server_requests import (
    ELICITATION,
    MAX_OPEN_REQUESTS_PER_CALL,
    SAMPLING,
    ServerRequest,
)

__all__ = ["ELICITATION", "SAMPLING", "ServerRequest", "ServerRequests", "settle_orphans"]

CANCELLED = {"action": "cancel", "note": "Cancelled: nobody was waiting for this answer any more."}
CHARS_PER_TOKEN = 4
"""What a sampled answer may hold beyond its token limit is cut at this many
characters a token (a model that ignores ``max_tokens`` is stopped)."""


@dataclass
class _Waiting:
    part: ToolCallPart
    message: Message
    request: ServerRequest
    future: asyncio.Future[dict[str, Any]]
    call_id: str = ""
    """The call of the server's whose request this is (``MAX_OPEN_REQUESTS_PER_CALL``)."""
    reviewing: bool = False
    """Sampling: the model answered; the answer waits for its own approval."""
    reply: dict[str, Any] = field(default_factory=dict)
    sampling: asyncio.Task[None] | None = None
    """Sampling: the model answering now (cancelled when the request ends first)."""


@dataclass(frozen=True)
class _Host:
    """What the requests need of their runtime, handed in (no import of it)."""

    thread: Callable[[], Thread]
    running: Callable[[], Message | None]
    model: Callable[[], Model]
    answer: Callable[[ToolCallPart, Any, bool], None]
    commit: Callable[[Message], None]


class ServerRequests:
    """The open requests of one runtime's thread, and their decisions.

    ``thread`` / ``running`` give the shown thread and the reply a run
    writes (None between runs); ``model`` the chat's model; ``answer`` /
    ``commit`` settle a card and publish its message, as for a call.
    """

    def __init__(
        self,
        thread: Callable[[], Thread],
        running: Callable[[], Message | None],
        model: Callable[[], Model],
        answer: Callable[[ToolCallPart, Any, bool], None],
        commit: Callable[[Message], None],
    ) -> None:
        self._runtime = _Host(thread, running, model, answer, commit)
        self._waiting: dict[str, _Waiting] = {}

    def owns(self, tool_call_id: str) -> bool:
        """Whether ``tool_call_id`` names a request card (open or settled)."""
        found = self._runtime.thread().find_tool_call(tool_call_id)
        return tool_call_id in self._waiting or (found is not None and found[1].synthetic)

    # --- asked by a tool source, on the chat's loop --------------------------------

    async def ask(self, tool_name: str, request: ServerRequest) -> dict[str, Any]:
        """Show ``request`` in the reply whose ``tool_name`` call runs; wait for the answer.

        Returns ``{"action": "accept", ...}`` (sampling: ``text``, ``model``;
        elicitation: ``content``), ``{"action": "decline" | "cancel"}``, or
        ``{"action": "refuse", "reason": ...}`` when it cannot be asked.
        """
        runtime = self._runtime
        message = runtime.running()
        running = (
            [p for p in message.tool_calls if p.tool_name == tool_name and not p.has_result]
            if message is not None
            else []
        )
        if message is None or not running:
            return {"action": "refuse", "reason": "no call of this server's tools is running"}
        call_id = running[-1].tool_call_id
        open_here = sum(1 for w in self._waiting.values() if w.call_id == call_id)
        if open_here >= MAX_OPEN_REQUESTS_PER_CALL:  # a flood: refused, no card
            why = (
                f"refused: more than {MAX_OPEN_REQUESTS_PER_CALL} requests of this call open "
                f"at once (limit {MAX_OPEN_REQUESTS_PER_CALL}); answer those first"
            )
            return {"action": "refuse", "reason": why}
        part = ToolCallPart(
            tool_call_id=new_id("req"),
            tool_name=request.kind,
            args=request.args,
            args_text=json.dumps(request.args),
            args_complete=True,
            synthetic=True,
        )
        if request.refused is not None:
            runtime.answer(part, {"error": request.refused}, True)
            message.parts.append(part)
            runtime.commit(message)
            return {"action": "refuse", "reason": request.refused}
        if request.kind == SAMPLING:
            part.approval = Approval(status="pending", note=_note(request))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[part.tool_call_id] = _Waiting(part, message, request, future, call_id)
        message.parts.append(part)
        runtime.commit(message)
        try:
            return await future
        finally:
            waiting = self._waiting.pop(part.tool_call_id, None)
            if waiting is not None and waiting.sampling is not None:
                waiting.sampling.cancel()
            if waiting is not None and not part.has_result:  # the call ended first
                _cancel_card(part)
                runtime.commit(message)

    # --- decided by the user or code -----------------------------------------------

    def _open(self, tool_call_id: str) -> _Waiting:
        waiting = self._waiting.get(tool_call_id)
        if waiting is None or waiting.future.done():
            raise DecisionError(
                f"request {tool_call_id} is not waiting for an answer: it was already answered"
            )
        return waiting

    def approve(self, tool_call_id: str, by: DecidedBy) -> None:
        waiting = self._open(tool_call_id)
        if waiting.request.kind != SAMPLING:
            raise DecisionError(
                f"request {tool_call_id} ({waiting.part.tool_name}) is answered with "
                "add_tool_result(id, {'action': 'accept', 'content': {...}}), not approved"
            )
        part = waiting.part
        if part.approval is None or part.approval.status != "pending":
            raise DecisionError(f"request {tool_call_id} is being answered by the model")
        if waiting.reviewing:  # the model's answer, approved: it goes back
            part.approval = Approval(status="approved", decided_by=by)
            part.completion_status_message = "Answer sent to the server"
            self._runtime.answer(part, {"sent": waiting.reply.get("text", "")}, False)
            waiting.future.set_result({"action": "accept", **waiting.reply})
        else:
            part.approval = Approval(status="approved", decided_by=by)
            part.status_message = "Asking the model…"
            waiting.sampling = asyncio.get_running_loop().create_task(self._sample(waiting))
        self._runtime.commit(waiting.message)

    def reject(self, tool_call_id: str, reason: str | None, by: DecidedBy) -> None:
        waiting = self._open(tool_call_id)
        part = waiting.part
        if waiting.request.kind != SAMPLING:
            return self.answer(tool_call_id, {"action": "decline"})
        if part.approval is None or part.approval.status != "pending":
            raise DecisionError(f"request {tool_call_id} is being answered by the model")
        part.approval = Approval(status="rejected", reason=reason, decided_by=by)
        text = "The user declined this request" + (f": {reason}" if reason else ".")
        self._runtime.answer(part, {"error": text}, True)
        waiting.future.set_result({"action": "decline", "reason": text})
        self._runtime.commit(waiting.message)
        return None

    def checked(self, tool_call_id: str, result: Any) -> dict[str, Any]:
        """The answer ``result`` makes to an open form, checked by the server's
        schema (``DecisionError`` says why not), nothing changed yet: what an
        AG-UI resume is checked with before any of its entries is applied."""
        waiting = self._open(tool_call_id)
        if waiting.request.kind != ELICITATION:
            raise DecisionError(
                f"request {tool_call_id} ({waiting.part.tool_name}) waits for approval: "
                "approve or reject it"
            )
        action, content = _elicitation_answer(result)
        if action == "accept" and waiting.request.validate is not None:
            try:
                content = waiting.request.validate(content)
            except ValueError as exc:
                raise DecisionError(f"the answer does not fit the server's form: {exc}") from None
        answer: dict[str, Any] = {"action": action}
        if action == "accept":
            answer["content"] = content
        return answer

    def answer(self, tool_call_id: str, result: Any) -> None:
        answer = self.checked(tool_call_id, result)
        waiting = self._waiting[tool_call_id]
        action = answer["action"]
        link = waiting.part.args.get("mode") == "url" and action == "accept"
        waiting.part.completion_status_message = "Link opened" if link else _ANSWERED[action]
        self._runtime.answer(waiting.part, answer, False)
        waiting.future.set_result(answer)
        self._runtime.commit(waiting.message)

    async def _sample(self, waiting: _Waiting) -> None:
        """The chat's model answers the server's prompt (no tools); the answer
        waits on the card for its own approval."""
        runtime, part, request = self._runtime, waiting.part, waiting.request
        model = runtime.model()
        model_request = ModelRequest(
            messages=request.messages,
            tools=[],
            tool_choice="none",
            max_tokens=request.max_tokens,
            purpose="sampling",
        )
        limit = request.max_tokens * CHARS_PER_TOKEN
        text, cut = "", False
        try:
            async for delta in model.stream(model_request):
                if isinstance(delta, TextDelta):
                    text += delta.text
                    if len(text) >= limit:
                        text, cut = text[:limit], True
                        model_request.cancel.set()
                        break
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if waiting.future.done():
                return
            error = f"The model failed to answer: {type(exc).__name__}: {exc}"
            runtime.answer(part, {"error": error}, True)
            part.status_message = None
            waiting.future.set_result({"action": "decline", "reason": error})
            runtime.commit(waiting.message)
            return
        if waiting.future.done():
            return
        waiting.reviewing = True
        waiting.reply = {
            "text": text,
            "model": getattr(model, "name", "model"),
            "stop_reason": "maxTokens" if cut else "endTurn",
        }
        part.args = {**part.args, "reply": text, "reply_model": waiting.reply["model"]}
        part.args_text = json.dumps(part.args)
        part.status_message = None
        part.approval = Approval(
            status="pending", note="The model's answer: send it back to the server?"
        )
        runtime.commit(waiting.message)

    def cancel_all(self) -> None:
        """The run stops: every open request is answered cancelled."""
        for waiting in list(self._waiting.values()):
            if waiting.sampling is not None:
                waiting.sampling.cancel()
            if not waiting.future.done():
                _cancel_card(waiting.part)
                waiting.future.set_result({"action": "cancel"})


_ANSWERED = {"accept": "Answered", "decline": "Declined", "cancel": "Cancelled"}


def _note(request: ServerRequest) -> str:
    server = request.args.get("server", "the server")
    return (
        f"{server} asks the chat's model to answer this prompt "
        f"(at most {request.max_tokens:,} tokens). You see the answer before it is sent."
    )


def _elicitation_answer(result: Any) -> tuple[str, Any]:
    """``{"action": ..., "content": {...}}``, or a plain dict of content (accept)."""
    if not isinstance(result, Mapping):
        raise DecisionError(
            "an elicitation is answered with {'action': 'accept', 'content': {...}}, "
            f"{{'action': 'decline'}} or {{'action': 'cancel'}}, got {result!r}"
        )
    if "action" not in result:
        return "accept", dict(result)
    action = result.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise DecisionError(f"action must be 'accept', 'decline' or 'cancel', got {action!r}")
    content = result.get("content", {})
    if action == "accept" and not isinstance(content, Mapping):
        raise DecisionError(f"content must be a dict of the form's fields, got {content!r}")
    return action, dict(content) if isinstance(content, Mapping) else None


def settle_orphans(thread: Thread, commit: Callable[[Message], None] | None = None) -> None:
    """Cards left open in a thread read from a file (nobody waits for them now):
    answered cancelled, so the reply shows how they ended."""
    for message in thread.messages:
        changed = False
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.synthetic and not part.has_result:
                _cancel_card(part)
                changed = True
        if changed and commit is not None:
            commit(message)


def _cancel_card(part: ToolCallPart) -> None:
    part.result, part.has_result, part.is_error = dict(CANCELLED), True, False
    part.completion_status_message = "Cancelled"
    if part.approval is not None and part.approval.status == "pending":
        part.approval = Approval(status="rejected", reason="cancelled")
    part.status_message = None
