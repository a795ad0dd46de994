"""Helpers for the tests of an MCP server's requests during a call: the
asking server (tests/mcp_asking_server.py) over stdio, and the request cards."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import ToolCallPart

ASKING = str(Path(__file__).with_name("mcp_asking_server.py"))


@pytest.fixture
def asking(tmp_path: Path) -> Iterator[Callable[..., gu.MCPTools]]:
    """Make an MCPTools on a fresh asking server (its tools run unasked),
    closed when the test ends; its ``late`` tool writes to tmp_path/late.txt."""
    opened: list[gu.MCPTools] = []

    def make(**kwargs: Any) -> gu.MCPTools:
        kwargs.setdefault("requires_approval", False)
        env = {"MCP_ASKING_OUT": str(tmp_path / "late.txt")}
        tools = gu.MCPTools.stdio(sys.executable, [ASKING], env=env, **kwargs)
        opened.append(tools)
        return tools

    yield make
    for tools in opened:
        tools.close()


def text_of(part: ToolCallPart) -> Any:
    """What the server's tool returned (its structured ``result``)."""
    return part.result["result"]


async def until(done: Callable[[], Any], what: str) -> Any:
    """Wait for ``done()`` to be truthy (a bound, not a timing: 20 s)."""
    for _ in range(2_000):
        value = done()
        if value:
            return value
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def card(runtime: gu.Runtime, count: int = 1) -> ToolCallPart:
    """The ``count``-th request card of the running reply, once it is shown."""

    def shown() -> ToolCallPart | None:
        message = runtime.thread.last_assistant
        if message is not None and len(message.server_requests) >= count:
            return message.server_requests[count - 1]
        return None

    found: ToolCallPart = await until(shown, f"request card {count} shown")
    return found


async def sample_approved(runtime: gu.Runtime, asking: str) -> ToolCallPart:
    """The running reply's sampling card, checked to ask about ``asking``, approved
    (the chat's model answers) and its answer approved (it goes to the server)."""
    request = await card(runtime)
    assert request.tool_name == "mcp_sampling"
    assert asking in str(request.args["messages"])
    runtime.approve(request.tool_call_id)
    await until(lambda: "reply" in request.args, "the model's answer on the card")
    runtime.approve(request.tool_call_id)
    return request
