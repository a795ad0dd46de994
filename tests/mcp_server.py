"""A small MCP server for the tests, built with the ``mcp`` SDK and run over stdio.

Tools: ``lookup`` (read-only; it exits mid-call, once, when
``MCP_TEST_CRASH_FLAG`` names a file that exists), ``write_note`` (changes a
file: not read-only; it appends to the file ``MCP_TEST_NOTES`` names, so a
test sees whether it ran), ``picture`` (an image), ``fails`` (an error
result), ``crash`` (the process exits mid-call), ``structured`` (structured
content) and ``slow`` (writes ``MCP_TEST_STARTED``, then waits a minute);
``steps`` (progress notifications and log lines, then done), ``noisy`` (a
flood of long log lines, progress past its total), ``linked`` (a resource
link and a text for the user only), ``folders`` (the client's roots, or its
error). A resource ``note://greeting``, and two prompts: ``greet`` (no
arguments) and ``ask_about`` (an argument it requires).

At start the server writes its process id to ``MCP_TEST_PID`` (when set), and
refuses to start (exit 4, a line on stderr) while ``MCP_TEST_REFUSE`` names a
file that exists.

``python tests/mcp_server.py http PORT`` serves the same tools over
streamable HTTP on 127.0.0.1:PORT instead.
"""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Annotations, ResourceLink, TextContent, ToolAnnotations

# A 1x1 PNG: the smallest real image a tool can return.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = MCPServer("ipygenui-test")
READ_ONLY = ToolAnnotations(read_only_hint=True)


@server.tool(annotations=READ_ONLY)
def lookup(key: str, times: int = 1) -> str:
    """Look a key up (read-only)."""
    crash_flag = os.environ.get("MCP_TEST_CRASH_FLAG")
    if crash_flag and Path(crash_flag).exists():
        Path(crash_flag).unlink()
        os._exit(3)  # dies once, mid-call
    return f"value of {key}" * times


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def write_note(text: str) -> str:
    """Append a note to the notes file."""
    with open(os.environ["MCP_TEST_NOTES"], "a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved {text!r}"


@server.tool(annotations=READ_ONLY)
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=PIXEL, format="png")


@server.tool(annotations=READ_ONLY)
def fails(reason: str) -> str:
    """Always fails with ``reason`` (an error result, not a crash)."""
    raise ToolError(reason)


@server.tool()
def crash() -> str:
    """The server process exits while answering."""
    print("about to crash", file=sys.stderr, flush=True)
    os._exit(5)


@server.tool(annotations=READ_ONLY)
async def slow() -> str:
    """Says it started, then takes a minute: for cancelling."""
    import anyio

    Path(os.environ["MCP_TEST_STARTED"]).write_text("started")
    await anyio.sleep(60)
    return "finished"


@server.tool(annotations=READ_ONLY)
def structured(n: int) -> dict[str, int]:
    """Structured content: n and its square."""
    return {"n": n, "square": n * n}


@server.tool(annotations=READ_ONLY)
async def steps(count: int, ctx: Context) -> str:
    """Reports progress ``count`` times, logging each step, then says it is done."""
    for step in range(1, count + 1):
        await ctx.info(f"step {step} done", logger_name="steps")
        await ctx.report_progress(step, count, f"Step {step} of {count}")
    return f"{count} steps"


@server.tool(annotations=READ_ONLY)
async def noisy(ctx: Context) -> str:
    """A flood: 200 long log lines, and progress past its total, then one of total 0."""
    for line in range(200):
        await ctx.warning(f"line {line} " + "x" * 2_000)
    await ctx.report_progress(50, 10, "y" * 5_000)
    await ctx.report_progress(3, 0)
    return "quiet now"


@server.tool(annotations=READ_ONLY, structured_output=False)
def linked() -> list[object]:
    """A link to the greeting resource, and a note for the user's eyes only."""
    return [
        ResourceLink(type="resource_link", uri="note://greeting", name="greeting"),
        TextContent(
            type="text",
            text="USER-ONLY: the link opens the greeting",
            annotations=Annotations(audience=["user"]),
        ),
        TextContent(type="text", text="see the greeting"),
    ]


@server.tool(annotations=READ_ONLY)
async def folders(ctx: Context) -> str:
    """The folders the client allows (its roots), one URI a line."""
    try:
        listed = await ctx.session.list_roots()
    except Exception as exc:
        return f"no roots: {exc}"
    return "\n".join(str(root.uri) for root in listed.roots)


@server.resource("note://greeting", mime_type="text/plain")
def greeting() -> str:
    return "Hello from the greeting resource"


@server.prompt()
def greet() -> str:
    """A starter."""
    return "Say hello to the test server"


@server.prompt()
def ask_about(topic: str) -> str:
    """Needs a topic: not a starter."""
    return f"Tell me about {topic}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        refuse = os.environ.get("MCP_TEST_REFUSE")
        if refuse and Path(refuse).exists():
            print("test server refuses to start: the refuse flag is set", file=sys.stderr)
            sys.exit(4)
        if os.environ.get("MCP_TEST_PID"):
            Path(os.environ["MCP_TEST_PID"]).write_text(str(os.getpid()))
        print("test server starting", file=sys.stderr, flush=True)
        server.run()
