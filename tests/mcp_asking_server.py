"""An MCP server whose tools ask the client things mid-call, built with the
``mcp`` SDK and run over stdio: for sampling and elicitation.

- ``summarize(text, max_tokens)``: asks the client's model (``sampling/createMessage``)
  and returns what came back, or the error the client answered with.
- ``sign_up()``: asks for a form (name, age, agree) and returns the answer.
- ``raw_form(schema)``: asks with the JSON schema given (for hostile schemas).
- ``authorize(url)``: URL-mode elicitation; returns the action.
- ``capabilities()``: what the client advertised.
- ``twice()``: two form requests at once (concurrent requests).
- ``late()``: returns at once, then asks for a form after its call ended,
  writing what it got to the file ``MCP_ASKING_OUT`` names.
- ``flood(n)``: ``n`` form requests at once (a hostile server's flood), a line
  per answer appended to ``MCP_ASKING_OUT`` ("refused ..." or the action).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

server = MCPServer("ipygenui-asking")


class SignUp(BaseModel):
    name: str = Field(description="Your name")
    age: int = Field(ge=0, le=150, description="Your age")
    agree: bool = Field(default=False, description="Agree to the terms")


@server.tool()
async def summarize(text: str, ctx: Context, max_tokens: int = 50) -> str:
    """Asks the client's model to summarize ``text``."""
    try:
        result = await ctx.request_context.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))],
            max_tokens=max_tokens,
            system_prompt="Summarize in one line.",
        )
    except MCPError as exc:
        return f"refused ({exc.error.code}): {exc.error.message}"
    content = result.content
    text_back = content.text if isinstance(content, types.TextContent) else str(content)
    return f"{result.model} said: {text_back} [{result.stop_reason}]"


@server.tool()
async def sign_up(ctx: Context) -> str:
    """Asks the user for a form."""
    answer = await ctx.elicit("Please sign up", SignUp)
    if answer.action == "accept":
        return f"accepted {answer.data.model_dump_json()}"
    return answer.action


async def _raw(ctx: Context, schema: dict) -> str:
    try:
        result = await ctx.request_context.session.elicit_form(
            "Fill this in", schema, related_request_id=ctx.request_id
        )
    except MCPError as exc:
        return f"refused ({exc.error.code}): {exc.error.message}"
    return f"{result.action} {json.dumps(result.content, sort_keys=True)}"


@server.tool()
async def raw_form(schema: str, ctx: Context) -> str:
    """Asks with the JSON schema given as text."""
    return await _raw(ctx, json.loads(schema))


@server.tool()
async def twice(ctx: Context) -> str:
    """Two form requests at the same time."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    first, second = await asyncio.gather(_raw(ctx, schema), _raw(ctx, schema))
    return f"{first} | {second}"


_background: set[asyncio.Task[None]] = set()


@server.tool()
async def flood(n: int, ctx: Context) -> str:
    """``n`` form requests at the same time."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    out = Path(os.environ["MCP_ASKING_OUT"])

    async def ask(i: int) -> None:
        said = await _raw(ctx, schema)
        with out.open("a", encoding="utf-8") as lines:
            lines.write(said.split(" {", 1)[0] + "\n")

    await asyncio.gather(*(ask(i) for i in range(n)))
    return "flooded"


@server.tool()
async def late(ctx: Context) -> str:
    """Asks after its own call has ended."""

    async def ask_later() -> None:
        await asyncio.sleep(0.3)
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        try:
            result = await ctx.request_context.session.elicit_form("Too late", schema)
            said = f"{result.action}"
        except MCPError as exc:
            said = f"refused ({exc.error.code}): {exc.error.message}"
        Path(os.environ["MCP_ASKING_OUT"]).write_text(said)

    task = asyncio.get_running_loop().create_task(ask_later())
    _background.add(task)
    return "returned"


@server.tool()
async def authorize(url: str, ctx: Context) -> str:
    """URL-mode elicitation."""
    try:
        result = await ctx.elicit_url("Sign in at the provider", url, "el-1")
    except MCPError as exc:
        return f"refused ({exc.error.code}): {exc.error.message}"
    return result.action


@server.tool()
def capabilities(ctx: Context) -> str:
    """What the client advertised (sampling, elicitation)."""
    caps = ctx.request_context.session.client_params.capabilities
    return json.dumps(
        {"sampling": caps.sampling is not None, "elicitation": caps.elicitation is not None}
    )


if __name__ == "__main__":
    server.run()
