"""An MCP server that lists whatever tools a test gives it, as a hostile
server would: built with the ``mcp`` SDK's low-level ``Server`` (its
schemas, descriptions, names and annotations are sent as given), run over
stdio.

``MCP_HOSTILE_TOOLS`` holds a JSON list of tools in the protocol's own form
(``{"name", "description", "inputSchema", "annotations": {"readOnlyHint", ...}}``).
Every call appends the tool's name to the file ``MCP_HOSTILE_CALLS`` names
(a test sees whether it ran) and answers ``"ran <name>"``, or the structured
content ``MCP_HOSTILE_RESULTS`` (a JSON object by tool name) gives it.
"""

from __future__ import annotations

import json
import os

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [types.Tool.model_validate(t) for t in json.loads(os.environ["MCP_HOSTILE_TOOLS"])]
RESULTS = json.loads(os.environ.get("MCP_HOSTILE_RESULTS") or "{}")
INFO = json.loads(os.environ.get("MCP_HOSTILE_INFO") or "{}")
"""The ``serverInfo`` it gives: ``name`` (default ipygenui-hostile-test), ``title``."""


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    with open(os.environ["MCP_HOSTILE_CALLS"], "a", encoding="utf-8") as calls:
        calls.write(params.name + "\n")
    text = types.TextContent(type="text", text=f"ran {params.name}")
    return types.CallToolResult(content=[text], structured_content=RESULTS.get(params.name))


server = Server(
    INFO.get("name", "ipygenui-hostile-test"),
    title=INFO.get("title"),
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
