"""AG-UI's mcp-apps middleware's proxied requests, answered.

A client that shows an ``mcp-apps`` activity reads the app's HTML and calls
the app's tools through the agent: an input whose
``forwardedProps.__proxiedMCPRequest`` is ``{serverId?, serverHash, method,
params}`` is no run; its stream is RUN_STARTED then RUN_FINISHED whose
``result`` is the server's answer (a ``ReadResourceResult``, a
``CallToolResult``, ``{}`` for ``ping``) or ``{"error": "..."}``, as the
middleware answers.

The request goes the way of an app's request in the notebook
(``MCPTools.app_request``): only to the server of an app this chat showed
(the latest call whose activity names that ``serverId`` or ``serverHash``),
only tools open to apps, a non-``ui://`` read only where reads do not ask.
Nothing approves here: a tool or read that asks first is refused unrun (the
client cannot stand in for the notebook user). A tool the server ran is
recorded on the app's message, as the notebook's app calls are.
"""

from __future__ import annotations

from typing import Any

from ..components.interactive import shown_app
from ..messages import Thread, ToolCallPart

__all__ = ["PROXIED_KEY", "answer_proxied", "proxied_request_of"]

PROXIED_KEY = "__proxiedMCPRequest"
METHODS = ("tools/call", "resources/read", "ping")
MAX_NAME_CHARS = 200


class _Refusal(Exception):
    """A proxied request answered with ``{"error": ...}``, nothing sent to a server."""


def proxied_request_of(forwarded: Any) -> dict[str, Any] | None:
    """The proxied request in an input's ``forwardedProps``, else None (a run)."""
    if not isinstance(forwarded, dict) or PROXIED_KEY not in forwarded:
        return None
    request = forwarded[PROXIED_KEY]
    return request if isinstance(request, dict) else {"method": None}


def _app_call(thread: Thread, request: dict[str, Any]) -> ToolCallPart:
    """The latest call of this thread whose app came from the server the request names."""
    server_id, server_hash = request.get("serverId"), request.get("serverHash")
    for message in reversed(thread.messages):
        for part in reversed(message.tool_calls):
            if shown_app(part) is None:
                continue
            server = part.result["for_user"]["mcp_app"].get("server") or {}
            if (server_id and server.get("id") == server_id) or (
                server_hash and server.get("hash") == server_hash
            ):
                return part
    named = str(server_id or server_hash)[:MAX_NAME_CHARS]
    raise _Refusal(f"Unknown server: {named} (no app of this chat came from it)")


def _source_of(runtime: Any, tool_name: str) -> Any:
    """The MCP server whose tool showed the app (the request reaches no other)."""
    for source in runtime._tools.sources:
        if callable(getattr(source, "app_request", None)) and any(
            tool.name == tool_name for tool in source.as_tools()
        ):
            return source
    raise _Refusal(f"no MCP server of this chat offers {tool_name!r} now")


async def answer_proxied(runtime: Any, request: dict[str, Any]) -> Any:
    """On the runtime's loop: the RUN_FINISHED ``result`` for a proxied request."""
    try:
        method = request.get("method")
        if method not in METHODS:
            raise _Refusal(f"MCP method not allowed for UI proxy: {str(method)[:MAX_NAME_CHARS]}")
        part = _app_call(runtime.thread, request)
        source = _source_of(runtime, part.tool_name)
        params = request.get("params")
        params = params if isinstance(params, dict) else {}
        try:
            result = await source.app_request(method, params, False)
        except Exception as exc:
            if getattr(exc, "needs_approval", False):
                raise _Refusal(
                    f"{exc}: only the notebook user can approve it, in the app's card (not run)"
                ) from None
            reached = getattr(exc, "code", None) is None  # a refusal (a code) reached none
            if method == "tools/call" and reached:
                _record(runtime, part, params, {"error": str(exc) or type(exc).__name__}, True)
            raise _Refusal(str(exc) or type(exc).__name__) from None
        if method == "tools/call":
            failed = isinstance(result, dict) and result.get("isError") is True
            _record(runtime, part, params, result, failed)
        return result
    except _Refusal as refusal:
        return {"error": str(refusal)}


def _record(
    runtime: Any, part: ToolCallPart, params: dict[str, Any], result: Any, failed: bool
) -> None:
    arguments = params.get("arguments")
    runtime._record_app_call(
        part.tool_call_id,
        str(params.get("name", ""))[:MAX_NAME_CHARS],
        arguments if isinstance(arguments, dict) else {},
        result,
        failed,
        False,
    )
