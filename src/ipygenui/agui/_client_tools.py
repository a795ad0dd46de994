"""The tools an AG-UI client declares (``RunAgentInput.tools``), as chat tools.

They are the client's frontend tools: offered to the model for the client's
run, their calls answered by the client (the run ends with them pending, the
client's next input carries the tool messages). A client is untrusted, so its
tools pass the checks an MCP server's do (``tools/foreign.py``: name,
reserved prefixes, schema size, description length; the schema itself is
checked when the tool is built), and a name that is one of the chat's own
tools is refused: it would shadow a tool the kernel runs, and the client
could then answer calls the kernel should have run. Any refusal refuses the
whole input (HTTP 422), naming the tool and why: a client is better told than
left with a tool the model never sees.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ag_ui.core import Tool as AGUITool

from .._internal.sanitize import clean_text
from ..tools import Tool, ToolDefinitionError
from ..tools.foreign import foreign_tool_refusal
from ._http_guard import Refused

MAX_CLIENT_TOOLS = 128
"""OpenAI's limit on the tools of one request (the chat's own come on top)."""


def client_tools(declared: Sequence[AGUITool], chat_tools: Collection[str]) -> dict[str, Tool]:
    """``declared`` as human-answered tools by name; ``Refused`` (422) when one is refused."""
    if len(declared) > MAX_CLIENT_TOOLS:
        raise Refused(
            422, f"client tools: {len(declared)} declared, over the limit of {MAX_CLIENT_TOOLS}"
        )
    tools: dict[str, Tool] = {}
    for declared_tool in declared:
        name = declared_tool.name
        schema = declared_tool.parameters
        if schema is None:
            schema = {"type": "object", "properties": {}}
        why = foreign_tool_refusal(name, schema, declared_tool.description or "")
        if why is None and name in chat_tools:
            why = "the chat has a tool of that name (a client's tool may not shadow it)"
        if why is None and name in tools:
            why = "it is declared twice"
        if why is None:
            try:
                tools[name] = Tool.from_json_schema(
                    name,
                    schema,
                    None,
                    description=clean_text(declared_tool.description or ""),
                    human=True,
                )
            except ToolDefinitionError as exc:
                why = str(exc)
        if why is not None:
            raise Refused(422, f"client tool {name!r} refused: {why}")
    return tools
