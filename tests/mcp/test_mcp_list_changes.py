"""A server's lists changing under a chat, and its prompts with arguments,
through ``gu.MCPTools`` with a test server written with the ``mcp`` SDK
(tests/mcp_changing_server.py): a tool that adds a tool, seen from the run's
next step and not in the step under way; a prompt added, read again as a
starter; a prompt with arguments offered with its form's fields, filled, and
its argument completed by the server."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.mcp import MCPPrompt, MCPPromptArgument
from ipygenui.messages import Complete
from ipygenui.testing import ScriptedModel
from runtime_helpers import call, tool_messages

SERVER = str(Path(__file__).parent.parent / "mcp_changing_server.py")


@pytest.fixture
def changing() -> Iterator[gu.MCPTools]:
    tools = gu.MCPTools.stdio(sys.executable, [SERVER], requires_approval=False)
    yield tools
    tools.close()


def offered(request: object) -> set[str]:
    return {entry["function"]["name"] for entry in request.tools}  # type: ignore[attr-defined]


async def test_a_tool_added_by_a_call_is_offered_from_the_next_step_only(
    changing: gu.MCPTools,
) -> None:
    model = ScriptedModel(
        [[call("add_tool", id="a1"), call("added", id="early")], call("added", id="b1"), "done"]
    )
    runtime = gu.Runtime(model=model, tools=[changing])
    assert "added" not in runtime.tools
    message = await runtime.send("add a tool, then use it")
    assert isinstance(message.status, Complete)
    first, second, _ = model.requests
    assert "added" not in offered(first)
    assert "added" in offered(second)
    seen = tool_messages(model.requests[-1])
    assert seen["a1"] == {"result": "a tool was added"}
    # the step under way kept its tools: a call of the new one there is refused
    assert "early" in seen and "added ran" not in str(seen["early"])
    assert seen["b1"] == {"result": "added ran"}
    assert "added" in runtime.tools and changing.changes == 1
    runtime.close()


async def test_a_prompt_added_by_the_server_becomes_a_starter(changing: gu.MCPTools) -> None:
    model = ScriptedModel([call("add_prompt", id="p1"), "done"])
    runtime = gu.Runtime(model=model, tools=[changing])
    assert "Welcome me to the changed server" not in runtime.starters
    await runtime.send("add a prompt")
    assert "Welcome me to the changed server" in runtime.starters
    runtime.close()


async def test_a_prompt_with_arguments_is_offered_with_its_fields_and_filled(
    changing: gu.MCPTools,
) -> None:
    await changing.connect()
    [plan] = changing.prompts
    assert plan == MCPPrompt(
        "plan_trip",
        "",
        "Plan a trip.",
        (MCPPromptArgument("city", "", True), MCPPromptArgument("days", "", False)),
    )
    assert all("trip" not in s for s in changing.starters)  # it needs a city: not a plain starter
    text = await changing.fill_prompt("plan_trip", {"city": "Oslo", "days": "2"})
    assert text == "Plan a 2-day trip to Oslo"
    with pytest.raises(ValueError, match="needs city"):
        await changing.fill_prompt("plan_trip", {"days": "2"})
    with pytest.raises(ValueError, match="no argument budget"):
        await changing.fill_prompt("plan_trip", {"city": "Oslo", "budget": "1"})
    with pytest.raises(ValueError, match="no prompt 'nope'"):
        await changing.fill_prompt("nope", {})


async def test_the_server_completes_a_prompt_argument(changing: gu.MCPTools) -> None:
    await changing.connect()
    assert await changing.complete("plan_trip", "city", "pa") == ["Paris", "Padua"]
    assert await changing.complete("plan_trip", "city", "") == ["Paris", "Padua", "Porto", "Oslo"]
    assert await changing.complete("plan_trip", "days", "1") == []
    with pytest.raises(ValueError, match="no argument 'town'"):
        await changing.complete("plan_trip", "town", "p")


def _server_processes() -> list[int]:
    """This process's own children running the changing server (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and SERVER.encode() in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the server's pid in /proc")
async def test_a_restarted_server_is_read_again_its_lists_those_of_the_new_process(
    changing: gu.MCPTools,
) -> None:
    before = [call("add_tool", id="a1"), call("add_prompt", id="p1"), "added"]
    model = ScriptedModel([*before, call("added", id="x"), "after the restart"])
    runtime = gu.Runtime(model=model, tools=[changing])
    await runtime.send("add a tool and a prompt")
    assert "added" in runtime.tools
    assert "Welcome me to the changed server" in runtime.starters
    [pid] = _server_processes()
    os.kill(pid, signal.SIGKILL)  # the next call finds it dead and starts a new one
    message = await runtime.send("use the added tool")
    assert changing.restarts == 1
    assert message.tool_calls[0].is_error  # the new process has no `added`...
    for _ in range(500):  # ...and its lists are read again (a bound, not a timing: 5 s)
        if "Welcome me to the changed server" not in runtime.starters:
            break
        await asyncio.sleep(0.01)
    assert "Welcome me to the changed server" not in runtime.starters
    assert "added" not in runtime.tools and "add_tool" in runtime.tools
    runtime.close()
