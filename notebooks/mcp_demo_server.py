"""A small MCP tool server for notebooks/04_agents.ipynb and 05_standards.ipynb:
offline, five tools.

``get_weather`` only reads (made-up weather today or tomorrow, for the
dashboard's "Ask about tomorrow"; the server marks it read-only, so a chat
runs it without asking); ``save_note`` appends a line to the file
``MCP_DEMO_NOTES`` names (default ``mcp_demo_notes.txt`` in the working
folder); it is not read-only, so a chat asks the user first.

Two tools ask the client in the middle of their call: ``book_table`` asks the
user for a date and a party size with a form (MCP elicitation), and
``summarize`` asks the client's model to summarise a text (MCP sampling); the
chat shows each request as a card and the call waits for the answer.

``weather_dashboard`` is an MCP app: its ``ui://`` resource is a small HTML
page the chat shows, sandboxed, in the call's place (docs/mcp-apps.md).

Run it with ``gu.MCPTools.stdio(sys.executable, ["mcp_demo_server.py"])``; it
needs the ``mcp`` extra (``pip install ".[mcp]"`` in the checkout).
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Literal

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

NOTES = Path(os.environ.get("MCP_DEMO_NOTES", "mcp_demo_notes.txt"))
SUMMARY_TOKENS = 60

server = MCPServer("ipygenui demo")


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def get_weather(city: str, day: Literal["today", "tomorrow"] = "today") -> dict[str, object]:
    """The weather for a city today, or tomorrow's forecast (made-up demo data)."""
    if day == "tomorrow":
        return {"city": city, "day": day, "temperature_c": 20 + len(city) % 5, "sky": "sunny"}
    return {"city": city, "temperature_c": 18 + len(city) % 7, "sky": "partly cloudy"}


@server.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False))
def save_note(text: str) -> str:
    """Save a note: appends one line to the notes file."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text.replace("\n", " ") + "\n")
    return f"Saved the note {text!r} to {NOTES.name}."


WEATHER_APP = "ui://ipygenui-demo/weather"
WEATHER_HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Weather</title>
<style>
body { margin: 0; padding: 12px 14px; font-family: var(--font-sans, system-ui, sans-serif);
       color: var(--color-text-primary, #1f2328); background: var(--color-background-primary, #fff); }
.city { font-size: 13px; color: var(--color-text-secondary, #555); }
.temp { font-size: 32px; font-weight: 600; margin: 2px 0 6px; }
button { font: inherit; padding: 3px 10px; border-radius: 6px; cursor: pointer;
         border: 1px solid var(--color-border-primary, #ccc);
         background: var(--color-background-secondary, #f3f4f6); color: inherit; }
</style></head>
<body>
<div class="city" id="city">Waiting for the forecast...</div>
<div class="temp" id="temp"></div>
<button id="tomorrow">Ask about tomorrow</button>
<script>
let next = 1;
const waiting = new Map();
const send = (method, params) => {
  const id = next++;
  parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
};
const notify = (method, params) => parent.postMessage({ jsonrpc: "2.0", method, params }, "*");
function theme(context) {
  for (const [k, v] of Object.entries((context.styles || {}).variables || {})) {
    document.documentElement.style.setProperty(k, v);
  }
  if (context.theme) document.documentElement.style.colorScheme = context.theme;
}
addEventListener("message", (event) => {
  const m = event.data || {};
  if (m.id !== undefined && waiting.has(m.id) && !m.method) {
    const w = waiting.get(m.id); waiting.delete(m.id);
    m.error ? w.reject(m.error) : w.resolve(m.result);
  } else if (m.method === "ui/notifications/tool-input") {
    document.getElementById("city").textContent = "Weather in " + m.params.arguments.city;
  } else if (m.method === "ui/notifications/tool-result") {
    const data = m.params.structuredContent || {};
    document.getElementById("temp").textContent = data.temperature_c + " \u00b0C, " + data.sky;
  } else if (m.method === "ui/notifications/host-context-changed") {
    theme(m.params);
  } else if (m.method === "ui/resource-teardown") {
    parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
  }
});
document.getElementById("tomorrow").onclick = () => {
  const city = document.getElementById("city").textContent.replace("Weather in ", "");
  send("ui/message", { role: "user", content: [{ type: "text", text: "What's the weather in " + city + " tomorrow?" }] });
};
new ResizeObserver(() => notify("ui/notifications/size-changed",
  { height: Math.ceil(document.body.getBoundingClientRect().height) })).observe(document.body);
send("ui/initialize", { appInfo: { name: "weather", version: "1.0.0" }, appCapabilities: {},
                        protocolVersion: "2026-01-26" })
  .then((r) => { theme(r.hostContext || {}); notify("ui/notifications/initialized", {}); });
</script></body></html>
"""


@server.resource(WEATHER_APP, name="weather", mime_type="text/html;profile=mcp-app")
def weather_app() -> str:
    """The weather dashboard app (MCP Apps)."""
    return WEATHER_HTML


@server.tool(
    annotations=types.ToolAnnotations(read_only_hint=True),
    meta={"ui": {"resourceUri": WEATHER_APP}},
)
def weather_dashboard(city: str) -> dict[str, object]:
    """Show a weather dashboard for a city (an MCP app; made-up demo data)."""
    return {"city": city, "temperature_c": 18 + len(city) % 7, "sky": "partly cloudy"}


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
