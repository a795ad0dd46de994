"""A small MCP tool server for notebooks/04_agents.ipynb: offline, two tools.

``get_weather`` only reads (made-up weather; the server marks it read-only, so
a chat runs it without asking); ``save_note`` appends a line to the file
``MCP_DEMO_NOTES`` names (default ``mcp_demo_notes.txt`` in the working
folder); it is not read-only, so a chat asks the user first. Run it with
``gu.MCPTools.stdio(sys.executable, ["mcp_demo_server.py"])``; it needs the
``mcp`` extra (``pip install ipygenui[mcp]``).
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

NOTES = Path(os.environ.get("MCP_DEMO_NOTES", "mcp_demo_notes.txt"))

server = MCPServer("ipygenui demo")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city (made-up demo data)."""
    return {"city": city, "temperature_c": 18 + len(city) % 7, "sky": "partly cloudy"}


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def save_note(text: str) -> str:
    """Save a note: appends one line to the notes file."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text.replace("\n", " ") + "\n")
    return f"Saved the note {text!r} to {NOTES.name}."


if __name__ == "__main__":
    server.run()
