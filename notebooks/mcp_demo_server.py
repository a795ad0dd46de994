"""A small MCP tool server for notebooks/04_agents.ipynb: offline, four tools.

``get_weather`` only reads (made-up weather; the server marks it read-only, so
a chat runs it without asking); ``save_note`` appends a line to the file
``MCP_DEMO_NOTES`` names (default ``mcp_demo_notes.txt`` in the working
folder); it is not read-only, so a chat asks the user first.

Two tools ask the client in the middle of their call: ``book_table`` asks the
user for a date and a party size with a form (MCP elicitation), and
``summarize`` asks the client's model to summarise a text (MCP sampling); the
chat shows each request as a card and the call waits for the answer.

Run it with ``gu.MCPTools.stdio(sys.executable, ["mcp_demo_server.py"])``; it
needs the ``mcp`` extra (``pip install ipygenui[mcp]``).
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

NOTES = Path(os.environ.get("MCP_DEMO_NOTES", "mcp_demo_notes.txt"))
SUMMARY_TOKENS = 60

server = MCPServer("ipygenui demo")


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city (made-up demo data)."""
    return {"city": city, "temperature_c": 18 + len(city) % 7, "sky": "partly cloudy"}


@server.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False))
def save_note(text: str) -> str:
    """Save a note: appends one line to the notes file."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text.replace("\n", " ") + "\n")
    return f"Saved the note {text!r} to {NOTES.name}."


class Booking(BaseModel):
    date: datetime.date = Field(description="The day of the dinner")
    party_size: int = Field(default=2, ge=1, le=12, description="How many people, 1 to 12")


@server.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False))
async def book_table(ctx: Context) -> str:
    """Book a table for dinner (made up): asks the user for the date and party size."""
    answer = await ctx.elicit("Book a table for dinner: which day, and for how many?", Booking)
    if answer.action == "decline":
        return "No table booked: you declined the form."
    if answer.action != "accept":
        return "No table booked: the form was cancelled."
    day, size = answer.data.date, answer.data.party_size
    people = "1 person" if size == 1 else f"{size} people"
    return f"Booked a table for {people} on {day:%A} {day.day} {day:%B %Y}."


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
async def summarize(text: str, ctx: Context) -> str:
    """Summarise a text in one sentence, written by the client's own model."""
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
    try:
        result = await ctx.request_context.session.create_message(
            [message],
            max_tokens=SUMMARY_TOKENS,
            system_prompt="Summarise the user's text in one short sentence.",
        )
    except MCPError as exc:
        return f"No summary: {exc.error.message}"
    content = result.content
    said = content.text if isinstance(content, types.TextContent) else "(no text)"
    return f"Summary by {result.model}: {said}"


if __name__ == "__main__":
    server.run()
