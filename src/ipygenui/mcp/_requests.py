"""An MCP server's requests during a call (``sampling/createMessage``,
``elicitation/create``) put to the chat, for ``ipygenui.mcp``.

The session's callbacks run on the worker loop; ``RequestBridge`` sends each
request to the chat's loop, where the runtime shows it as a card in the reply
whose call of this server runs (``ipygenui.runtime._server_requests``), and turns the
decision into the SDK's answer. The stdio protocol does not say which call a
request belongs to: it goes to the latest call of this server still running.

A request with no call of ours running, a form whose schema MCP does not
allow, a prompt over ``MAX_PROMPT_CHARS``: refused with an error the server
reads (and a card saying so when there is a reply to put it in). A flood is
refused too, with no card: past ``MAX_OPEN_REQUESTS_PER_SERVER`` requests of
one server open at once here, and past ``MAX_OPEN_REQUESTS_PER_CALL`` of one
call in the chat (``runtime/_server_requests.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._internal.sanitize import clean_text
from ..tools.server_requests import (
    ELICITATION,
    MAX_OPEN_REQUESTS_PER_CALL,
    SAMPLING,
    RequestAnswerer,
    ServerRequest,
)
from ._form_schema import check_content, check_form_schema

if TYPE_CHECKING:
    from mcp import types

__all__ = [
    "MAX_OPEN_REQUESTS_PER_CALL",
    "MAX_OPEN_REQUESTS_PER_SERVER",
    "MAX_PROMPT_CHARS",
    "RequestBridge",
]

MAX_PROMPT_CHARS = 100_000
"""A sampling prompt (its messages and system prompt) longer than this is refused."""
MAX_MESSAGE_CHARS = 4_000
"""Characters of an elicitation's message shown (its end is cut)."""
USER_REJECTED = -1
"""The error code MCP gives a sampling request the user rejected."""
MAX_OPEN_REQUESTS_PER_SERVER = 8
"""Requests of one server waiting at once; one more is refused to the server
(an MCP error naming the limit) without reaching the chat."""


@dataclass(frozen=True)
class _Flight:
    tool_name: str
    loop: asyncio.AbstractEventLoop


class RequestBridge:
    """The chat that answers one server's requests, and its calls running now."""

    def __init__(self, server: Callable[[], dict[str, str]], sampling_max_tokens: int) -> None:
        self._server = server
        """The card's ``server`` (its name) and ``server_command`` (for the details)."""
        self.sampling_max_tokens = sampling_max_tokens
        self.requests: RequestAnswerer | None = None
        self._flights: list[_Flight] = []
        self._open = 0
        """Requests waiting for the chat now (``MAX_OPEN_REQUESTS_PER_SERVER``)."""

    @property
    def answers(self) -> bool:
        """Whether a chat answers (the capabilities are advertised only then)."""
        return self.requests is not None

    def callbacks(self) -> dict[str, Any]:
        """The session's callbacks (none without a chat: nothing is advertised)."""
        if not self.answers:
            return {}
        return {"sampling_callback": self.on_sampling, "elicitation_callback": self.on_elicitation}

    def started(self, tool_name: str) -> _Flight:
        """A call of ``tool_name`` starts on the running (chat's) loop."""
        flight = _Flight(tool_name, asyncio.get_running_loop())
        self._flights.append(flight)
        return flight

    def ended(self, flight: _Flight) -> None:
        self._flights.remove(flight)

    # --- the callbacks, on the worker loop -------------------------------------------

    async def on_sampling(self, context: Any, params: types.CreateMessageRequestParams) -> Any:
        from mcp import types

        answer = await self._ask(self._sampling(params))
        action = answer.get("action")
        if action == "accept":
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=answer.get("text", "")),
                model=str(answer.get("model", "model")),
                stop_reason=answer.get("stop_reason", "endTurn"),
            )
        if action == "refuse":
            return types.ErrorData(code=types.INVALID_PARAMS, message=str(answer.get("reason")))
        text = answer.get("reason") or "The user rejected the sampling request."
        return types.ErrorData(code=USER_REJECTED, message=str(text))

    async def on_elicitation(self, context: Any, params: types.ElicitRequestParams) -> Any:
        from mcp import types

        answer = await self._ask(self._elicitation(params))
        action = answer.get("action")
        if action == "refuse":
            return types.ErrorData(code=types.INVALID_PARAMS, message=str(answer.get("reason")))
        if action == "accept":
            content = answer.get("content") if params.mode == "form" else None
            return types.ElicitResult(action="accept", content=content)
        return types.ElicitResult(action="decline" if action == "decline" else "cancel")

    async def _ask(self, request: ServerRequest) -> dict[str, Any]:
        requests = self.requests
        if requests is None or not self._flights:
            why = "no call of this client's is running to ask the user in"
            return {"action": "refuse", "reason": why}
        if self._open >= MAX_OPEN_REQUESTS_PER_SERVER:
            why = (
                f"refused: more than {MAX_OPEN_REQUESTS_PER_SERVER} requests of this server "
                f"open at once (limit {MAX_OPEN_REQUESTS_PER_SERVER}); answer those first"
            )
            return {"action": "refuse", "reason": why}
        flight = self._flights[-1]
        self._open += 1
        try:
            future = asyncio.run_coroutine_threadsafe(
                requests.ask(flight.tool_name, request), flight.loop
            )
            return await asyncio.wrap_future(future)  # cancelled here: cancelled there
        finally:
            self._open -= 1

    # --- requests as cards --------------------------------------------------------------

    def _sampling(self, params: types.CreateMessageRequestParams) -> ServerRequest:
        shown: list[dict[str, str]] = []
        messages: list[dict[str, Any]] = []
        system = clean_text(params.system_prompt or "")
        if system:
            messages.append({"role": "system", "content": system})
        for message in params.messages:
            text = _text_of(message.content)
            shown.append({"role": message.role, "text": text})
            messages.append({"role": message.role, "content": text})
        asked = params.max_tokens
        limit = max(1, min(asked, self.sampling_max_tokens)) if asked > 0 else 1
        args: dict[str, Any] = {
            **self._server(),
            "messages": shown,
            "system_prompt": system or None,
            "max_tokens": limit,
            "requested_max_tokens": asked,
        }
        size = len(system) + sum(len(m["text"]) for m in shown)
        refused = None
        if size > MAX_PROMPT_CHARS:
            refused = (
                f"The sampling prompt is {size:,} characters, over the {MAX_PROMPT_CHARS:,} "
                "this client accepts: refused without asking the model."
            )
            args["messages"] = [{"role": m["role"], "text": m["text"][:500]} for m in shown[:5]]
            args["system_prompt"] = system[:500] or None
        elif not shown:
            refused = "The sampling request has no messages."
        return ServerRequest(SAMPLING, args, messages=messages, max_tokens=limit, refused=refused)

    def _elicitation(self, params: types.ElicitRequestParams) -> ServerRequest:
        text = clean_text(params.message)
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS] + "…"
        args: dict[str, Any] = {**self._server(), "mode": params.mode, "message": text}
        if params.mode == "url":
            url = clean_text(params.url)
            args["url"] = url
            refused = None
            if not url.lower().startswith(("https://", "http://")):
                refused = f"The URL {url[:200]!r} is not an http(s) address: refused."
            return ServerRequest(ELICITATION, args, refused=refused)
        schema = params.requested_schema
        why = check_form_schema(schema)
        if why is not None:
            args["schema"] = None
            refused = f"The server's form cannot be shown: {why}."
            return ServerRequest(ELICITATION, args, refused=refused)
        args["schema"] = schema
        return ServerRequest(
            ELICITATION, args, validate=lambda content: check_content(schema, content)
        )


def _text_of(content: Any) -> str:
    """A sampling message's text (its other blocks named, not sent)."""
    blocks = content if isinstance(content, list) else [content]
    texts = []
    for block in blocks:
        kind = getattr(block, "type", "")
        texts.append(clean_text(block.text) if kind == "text" else f"[{kind or 'content'}]")
    return "\n".join(texts)
