"""The offline demo and MCP Apps: a message asking for a dashboard calls the
chat's app tool (notebooks/mcp_demo_server.py's ``weather_dashboard``), whose
card then shows the server's app."""

from __future__ import annotations

import re

from .._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from .scripted import ScriptedCall, ScriptedReply

DASHBOARD_TOOL = "weather_dashboard"
_ASKS_FOR_DASHBOARD = re.compile(r"\bdashboard\b")
_CITY = re.compile(r"\b(?:in|for)\s+([A-Z][A-Za-z-]+(?:\s[A-Z][A-Za-z-]+)?)")


def apps_reply(text: str, lowered: str, names: set[str]) -> ScriptedReply | None:
    """A call of the chat's dashboard app tool the message asks for, or None."""
    if DASHBOARD_TOOL not in names or not _ASKS_FOR_DASHBOARD.search(lowered):
        return None
    found = _CITY.search(text)
    city = found.group(1) if found else "Paris"
    args = {
        STATUS_PARAM: f"opening the weather dashboard for {city}",
        COMPLETION_PARAM: f"opened the weather dashboard for {city}",
        "city": city,
    }
    return ScriptedReply(tool_calls=[ScriptedCall(DASHBOARD_TOOL, args)])
