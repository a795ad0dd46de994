"""The MCP apps a thread showed, read back from Python (``chat.apps()``).

Each entry is rebuilt from the call's part: its input, the ``mcp_app`` entry
the MCP client stored in its result (``ipygenui.mcp._apps``) and the app's
last ``ui/update-model-context`` (``apply_app_context``), so it survives save
and load with nothing stored beside the parts. The HTML is left out: it is
the server's, for the app's iframe only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..messages import Thread, ToolCallPart

__all__ = ["ShownApp", "shown_apps"]


@dataclass(frozen=True)
class ShownApp:
    """An MCP app a tool call showed, with what it was given and left."""

    tool_call_id: str
    tool_name: str
    server: str | None
    """The name of the MCP server whose tool it was."""
    uri: str
    """The app's ``ui://`` resource."""
    input: dict[str, Any]
    """The tool's arguments: the app's ``tool-input``."""
    text: str
    """The result's text content (what the model read)."""
    structured: Any
    """The result's ``structuredContent`` (None without one)."""
    model_context: dict[str, Any] | None
    """The app's last ``ui/update-model-context`` (None when it sent none)."""


def _app_of(part: ToolCallPart) -> Mapping[str, Any] | None:
    result = part.result
    shown = result.get("for_user") if isinstance(result, dict) else None
    app = shown.get("mcp_app") if isinstance(shown, dict) else None
    return app if isinstance(app, dict) and isinstance(app.get("uri"), str) else None


def _text_of(raw: Mapping[str, Any]) -> str:
    blocks = raw.get("content")
    texts = [
        block.get("text")
        for block in (blocks if isinstance(blocks, list) else [])
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    return "\n".join(text for text in texts if isinstance(text, str))


def _shown(part: ToolCallPart, app: Mapping[str, Any]) -> ShownApp:
    result = app.get("result")
    raw: Mapping[str, Any] = result if isinstance(result, dict) else {}
    server = app.get("server")
    name = server.get("id") if isinstance(server, dict) else None
    state = part.component_state or {}
    context = state.get("model_context")
    return ShownApp(
        tool_call_id=part.tool_call_id,
        tool_name=part.tool_name,
        server=name if isinstance(name, str) else None,
        uri=app["uri"],
        input=dict(part.args),  # standard parameters already stripped
        text=_text_of(raw),
        structured=raw.get("structuredContent"),
        model_context=context if isinstance(context, dict) else None,
    )


def shown_apps(thread: Thread) -> list[ShownApp]:
    """Each call of ``thread`` whose result shows an MCP app, oldest first."""
    return [
        _shown(part, app)
        for message in thread.messages
        for part in message.tool_calls
        if (app := _app_of(part)) is not None
    ]
