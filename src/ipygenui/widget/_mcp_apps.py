"""The widget side of MCP Apps: an app's requests from the browser, answered.

The browser runs each app in a sandboxed iframe and passes on only
``tools/call``, ``resources/read``, ``ping`` and ``ui/update-model-context``
(``mcp_app`` messages); it answers the rest itself (``ui/message`` and
``ui/open-link`` after the user's click). Here each request is checked
against the call it came from: the call must show an app, and its requests
go to the server of that call's tool only (``MCPTools.app_request``, which
checks visibility and approval). ``ui/update-model-context`` is stored on
the call's part: the last one before the next turn reaches the model.

Every ``tools/call`` an app starts that its server runs leaves a record on
the app's message (``Runtime._record_app_call``): which tool, its arguments,
who decided (the user's click in the app's card, or nobody for a tool that
runs without asking) and the result, as a settled ``synthetic`` card, kept
out of the model's history. A refused request (not open to apps, waiting
for the user's approval) reached no server and leaves none.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from ..components.interactive import APP_CALL, shown_app
from ..runtime import Runtime
from ._protocol import McpAppMsg, mcp_app_message

log = logging.getLogger(__name__)

__all__ = ["APP_CALL", "AppBridge"]

MAX_CONTEXT_CHARS = 20_000
"""Longest model context an app may leave (it rides on every next user message)."""


class _Widget(Protocol):
    def send(self, content: Any, buffers: Any = None) -> Any: ...


class AppBridge:
    """Answers the ``mcp_app`` requests of one Chat widget's apps."""

    def __init__(self, runtime: Runtime, widget: _Widget) -> None:
        self.runtime = runtime
        self.widget = widget
        self._tasks: set[asyncio.Task[None]] = set()

    def answer(self, msg: McpAppMsg) -> None:
        """Answer an ``mcp_app`` request (on the running loop) with ``mcp_app``."""
        task = asyncio.get_running_loop().create_task(self._answer(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, msg: McpAppMsg) -> None:
        try:
            result = await self._run(msg)
        except Exception as exc:  # the app reads why; the chat goes on
            code = getattr(exc, "code", -32000)
            error: dict[str, Any] = {"code": code, "message": str(exc) or type(exc).__name__}
            if getattr(exc, "needs_approval", False):
                error["needs_approval"] = True
            self.widget.send(mcp_app_message(msg, error=error))
            return
        self.widget.send(mcp_app_message(msg, result))

    async def _run(self, msg: McpAppMsg) -> Any:
        found = self.runtime.thread.find_tool_call(msg.tool_call_id)
        if found is None or shown_app(found[1]) is None:
            raise ValueError(f"tool call {msg.tool_call_id!r} shows no MCP app")
        if msg.method == "ui/update-model-context":
            params = msg.params if isinstance(msg.params, dict) else {}
            context = {k: params[k] for k in ("content", "structuredContent") if k in params}
            if len(str(context)) > MAX_CONTEXT_CHARS:
                raise ValueError(f"the context is over {MAX_CONTEXT_CHARS:,} characters")
            self.runtime.set_app_context(msg.tool_call_id, context)
            return {}
        source = self._server_of(found[1].tool_name)
        if msg.method != "tools/call":
            return await source.app_request(msg.method, msg.params, msg.approved)
        params = msg.params if isinstance(msg.params, dict) else {}
        try:
            result = await source.app_request(msg.method, msg.params, msg.approved)
        except Exception as exc:
            if getattr(exc, "reached_server", True):  # it ran, and failed: recorded too
                self._record(msg, params, {"error": str(exc) or type(exc).__name__}, True)
            raise
        is_error = isinstance(result, dict) and result.get("isError") is True
        self._record(msg, params, result, is_error)
        return result

    def _record(self, msg: McpAppMsg, params: dict[str, Any], result: Any, failed: bool) -> None:
        arguments = params.get("arguments")
        self.runtime._record_app_call(
            msg.tool_call_id,
            str(params.get("name", ""))[:200],
            arguments if isinstance(arguments, dict) else {},
            result,
            failed,
            msg.approved,
        )

    def _server_of(self, tool_name: str) -> Any:
        """The MCP server whose tool the call was (an app reaches no other)."""
        for source in self.runtime._tools.sources:
            if callable(getattr(source, "app_request", None)) and any(
                tool.name == tool_name for tool in source.as_tools()
            ):
                return source
        raise ValueError(f"no MCP server of this chat offers {tool_name!r} now")

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
