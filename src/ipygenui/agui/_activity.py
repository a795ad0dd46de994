"""AG-UI activities: A2UI surfaces and MCP apps.

A2UI: ``ACTIVITY_SNAPSHOT`` with ``activityType: "a2ui-surface"`` and
``content: {"a2ui_operations": [...]}``.

An agent's activity becomes a ``show_a2ui`` call the agent answered itself,
so it renders, persists and reads back (``chat.surfaces()``) as a model's
call does; its operations are checked against the A2UI schemas first, and
refused ones are the call's error. Our own ``show_a2ui`` calls go out as the
same activity, so other AG-UI clients render what we show. A surface belongs
to the activity of the call that first drew it, as the notebook redraws it
where it first appeared: a later call's messages for it go out as an
``ACTIVITY_DELTA`` appending them to that activity's operations, and only the
messages for surfaces of its own make the later call's snapshot.

MCP apps (out only): a call whose result shows an app goes out as
``activityType: "mcp-apps"`` with the content AG-UI's mcp-apps middleware
sends, ``{result, resourceUri, serverHash, serverId, toolInput}``: the raw
``CallToolResult``, the ``ui://`` URI (a client reads the HTML from the
server itself; it never goes out), the server's reference and the call's
arguments.
"""

from __future__ import annotations

import json
from typing import Any

from .._internal.user_view import FOR_USER
from ..a2ui import A2UI_CALLS, A2UIError, check_messages, surface_id_of
from ..messages import Thread, ToolCallPart

__all__ = [
    "A2UI_ACTIVITY",
    "MCP_APPS_ACTIVITY",
    "a2ui_activity_changes",
    "a2ui_activity_content",
    "a2ui_activity_id",
    "a2ui_call_of",
    "mcp_app_activity_content",
]

A2UI_ACTIVITY = "a2ui-surface"
MCP_APPS_ACTIVITY = "mcp-apps"
OPERATIONS = "a2ui_operations"


def a2ui_call_of(content: Any) -> tuple[str, Any, bool]:
    """An activity's content as a call: (arguments JSON, result, is_error)."""
    operations = content.get(OPERATIONS) if isinstance(content, dict) else None
    args = json.dumps({"messages": operations if isinstance(operations, list) else []})
    try:
        check_messages(operations)
    except A2UIError as exc:
        return args, f"the agent's A2UI surface was refused: {exc}", True
    return args, "Component A2UI was rendered", False


def a2ui_activity_content(part: ToolCallPart) -> dict[str, Any] | None:
    """The activity content of a successful ``show_a2ui`` call, else None."""
    if part.tool_name not in A2UI_CALLS or not part.has_result or part.is_error:
        return None
    messages = (part.args or {}).get("messages")
    return {OPERATIONS: messages} if isinstance(messages, list) else None


def a2ui_activity_id(call_id: str) -> str:
    """The AG-UI message id of the activity a ``show_a2ui`` call goes out as."""
    return f"a2ui-{call_id}"


def a2ui_activity_changes(
    thread: Thread, part: ToolCallPart
) -> tuple[dict[str, Any] | None, dict[str, list[dict[str, Any]]]]:
    """What the successful ``show_a2ui`` call ``part`` sends: its own activity
    content (the messages for surfaces no earlier call drew; None when there
    are none), and per earlier call owning a surface it changes, the RFC 6902
    patch appending its messages for that surface to that call's activity."""
    content = a2ui_activity_content(part)
    if content is None:
        return None, {}
    owners: dict[str, str] = {}  # surface id -> the call that first drew it
    for message in thread.messages:
        for earlier in message.tool_calls:
            if earlier.tool_call_id == part.tool_call_id:
                break
            drawn = a2ui_activity_content(earlier)
            for entry in drawn[OPERATIONS] if drawn is not None else ():
                surface = surface_id_of(entry)
                if surface is not None:
                    owners.setdefault(surface, earlier.tool_call_id)
        else:
            continue
        break
    own: list[Any] = []
    patches: dict[str, list[dict[str, Any]]] = {}
    for entry in content[OPERATIONS]:
        owner = owners.get(surface_id_of(entry) or "")
        if owner is None:
            own.append(entry)
        else:
            add = {"op": "add", "path": f"/{OPERATIONS}/-", "value": entry}
            patches.setdefault(a2ui_activity_id(owner), []).append(add)
    return ({OPERATIONS: own} if own else None), patches


def mcp_app_activity_content(part: ToolCallPart) -> dict[str, Any] | None:
    """The activity content of a successful call that shows an MCP app, else None."""
    shown = part.result.get(FOR_USER) if isinstance(part.result, dict) else None
    app = shown.get("mcp_app") if isinstance(shown, dict) else None
    if not part.has_result or part.is_error or not isinstance(app, dict):
        return None
    server = app.get("server")
    server = server if isinstance(server, dict) else {}
    content: dict[str, Any] = {
        "result": app.get("result"),
        "resourceUri": app.get("uri"),
        "serverHash": server.get("hash", ""),
        "toolInput": part.args,
    }
    if server.get("id"):
        content["serverId"] = server["id"]
    return content
