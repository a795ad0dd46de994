"""An MCP server whose lists change, for the tests, built with the ``mcp`` SDK
and run over stdio.

Tools: ``add_tool`` adds the tool ``added`` (it answers ``"added ran"``) and
tells the client its tool list changed, then answers; ``add_prompt`` adds
the prompt ``welcome`` (no arguments) and tells the client its prompt list
changed; ``remove_prompt`` takes ``plan_trip`` away and tells it too. A
prompt with arguments, ``plan_trip`` (``city`` required, with
completions; ``days`` optional), and a completion handler offering the
cities that start with what was typed, and for ``days`` suggestions naming
the city already filled (the request's context).
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.types import Completion, PromptReference

server = MCPServer("ipygenui-changing")
CITIES = ["Paris", "Padua", "Porto", "Oslo"]


@server.tool()
async def add_tool(ctx: Context) -> str:
    """Add the tool `added`."""

    def added() -> str:
        """Added by add_tool."""
        return "added ran"

    server.add_tool(added)
    await ctx.session.send_tool_list_changed()
    return "a tool was added"


@server.tool()
async def add_prompt(ctx: Context) -> str:
    """Add the prompt `welcome`."""

    def welcome() -> str:
        return "Welcome me to the changed server"

    server.add_prompt(Prompt.from_function(welcome))
    await ctx.session.send_prompt_list_changed()
    return "a prompt was added"


@server.tool()
async def remove_prompt(ctx: Context) -> str:
    """Remove the prompt `plan_trip`."""
    server.remove_prompt("plan_trip")
    await ctx.session.send_prompt_list_changed()
    return "a prompt was removed"


@server.prompt()
def plan_trip(city: str, days: str = "3") -> str:
    """Plan a trip."""
    return f"Plan a {days}-day trip to {city}"


@server.completion()
async def complete(ref: object, argument: object, context: object) -> Completion | None:
    if isinstance(ref, PromptReference) and getattr(argument, "name", "") == "city":
        typed = str(getattr(argument, "value", ""))
        return Completion(values=[c for c in CITIES if c.lower().startswith(typed.lower())])
    if isinstance(ref, PromptReference) and getattr(argument, "name", "") == "days":
        city = (getattr(context, "arguments", None) or {}).get("city", "")
        return Completion(values=[f"{n} days in {city}" for n in (2, 3)] if city else [])
    return None


if __name__ == "__main__":
    server.run()
