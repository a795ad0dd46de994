"""MCP tool servers in a chat: ``gu.MCPTools`` with a real server written with
the ``mcp`` SDK (tests/mcp_server.py), run over stdio and over streamable HTTP.

The server's tools become chat tools with their schemas as given; every one
waits for the user's approval unless the user trusts the server's
annotations (then read-only ones run at once); text, images,
structured content and error results reach the model; ``close()`` ends the
server process."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.mcp._oauth import token_store
from ipygenui.messages import Complete, RequiresAction
from ipygenui.testing import ScriptedModel
from mcp_asking import card, until
from mcp_helpers import SERVER, alive, listening, mcp_runtime
from runtime_helpers import assert_valid, call, tool_messages

DEMO_SERVER = Path(__file__).parents[2] / "notebooks" / "mcp_demo_server.py"


async def test_the_servers_tools_are_chat_tools_with_their_schemas_as_given(files) -> None:
    mcp = files.tools()
    runtime = gu.Runtime(model=ScriptedModel(["hi"]), tools=[mcp])
    tools = runtime.tools
    assert set(tools) == {
        "lookup",
        "write_note",
        "picture",
        "fails",
        "crash",
        "structured",
        "slow",
        "steps",
        "linked",
        "folders",
        "noisy",
        "read_resource",  # the server has resources
    }
    lookup = tools["lookup"].parameters_schema
    assert lookup["required"] == ["key"]
    assert lookup["title"] == "lookupArguments"  # as the server wrote it, nothing removed
    assert lookup["properties"]["times"] == {"default": 1, "title": "Times", "type": "integer"}
    assert tools["lookup"].description == "Look a key up (read-only)."
    # with the server's annotations trusted: only tools it marks read-only run unasked
    asks = {name: tool.needs_approval({}) for name, tool in tools.items()}
    assert asks == {
        "lookup": False,
        "write_note": True,
        "picture": False,
        "fails": False,
        "crash": True,
        "structured": False,
        "slow": False,
        "steps": False,
        "linked": False,
        "folders": False,
        "noisy": False,
        "read_resource": False,  # reads only: trusted as the server's read-only tools are
    }
    runtime.close()


async def test_a_read_only_tool_runs_without_approval(files) -> None:
    runtime, model = mcp_runtime(files.tools(), call("lookup", {"key": "k", "times": 2}, id="c1"))
    message = await runtime.send("look k up")
    assert isinstance(message.status, Complete)
    part = message.tool_calls[0]
    assert part.approval is None
    assert part.result == {"result": "value of kvalue of k"}  # the structured content
    assert tool_messages(model.requests[-1]) == {"c1": {"result": "value of kvalue of k"}}
    assert_valid(model)
    # the server's description is the tool's, in its schema only: never instructions
    request = model.requests[0]
    [schema] = [t for t in request.tools if t["function"]["name"] == "lookup"]
    assert schema["function"]["description"] == "Look a key up (read-only)."
    assert all("Look a key up" not in str(m.get("content")) for m in request.messages)
    runtime.close()


async def test_a_write_tool_waits_for_approval_and_runs_after_approve(files) -> None:
    runtime, model = mcp_runtime(files.tools(), call("write_note", {"text": "buy milk"}, id="w1"))
    message = await runtime.send("note it")
    assert isinstance(message.status, RequiresAction)
    assert message.tool_calls[0].approval is not None
    assert message.tool_calls[0].approval.status == "pending"
    assert not files.notes.exists()  # nothing ran before the decision
    run = runtime.approve("w1")
    assert run is not None
    message = await run
    assert isinstance(message.status, Complete)
    assert files.notes.read_text() == "buy milk\n"
    assert message.tool_calls[0].result == {"result": "saved 'buy milk'"}
    assert_valid(model)
    runtime.close()


async def test_a_rejected_write_tool_never_runs(files) -> None:
    runtime, model = mcp_runtime(files.tools(), call("write_note", {"text": "no"}, id="w1"))
    await runtime.send("note it")
    run = runtime.reject("w1", "not now")
    assert run is not None
    message = await run
    assert isinstance(message.status, Complete)
    assert message.tool_calls[0].is_error
    assert not files.notes.exists()
    assert_valid(model)
    runtime.close()


async def test_approval_can_be_overridden_by_names_and_by_a_rule(files) -> None:
    by_name = gu.Runtime(
        model=ScriptedModel(["hi"]), tools=[files.tools(requires_approval={"lookup"})]
    )
    assert by_name.tools["lookup"].needs_approval({"key": "a"})
    assert not by_name.tools["write_note"].needs_approval({"text": "a"})
    everything = gu.Runtime(
        model=ScriptedModel(["hi"]), tools=[files.tools(requires_approval=True)]
    )
    assert all(t.needs_approval({}) for t in everything.tools.values())
    seen: list[tuple[str, dict]] = []

    def rule(name: str, annotations: dict) -> bool:
        seen.append((name, annotations))
        return name == "picture"

    ruled = gu.Runtime(model=ScriptedModel(["hi"]), tools=[files.tools(requires_approval=rule)])
    assert [n for n, t in ruled.tools.items() if t.needs_approval({})] == ["picture"]
    assert ("lookup", {"read_only_hint": True}) in seen
    for runtime in (by_name, everything, ruled):
        runtime.close()


async def test_an_image_result_is_a_data_url_the_widget_can_show(files) -> None:
    runtime, _ = mcp_runtime(files.tools(), call("picture", {}, id="p1"))
    message = await runtime.send("draw")
    result = message.tool_calls[0].result
    assert not message.tool_calls[0].is_error
    [image] = result["images"]
    assert image["mime_type"] == "image/png"
    assert image["src"].startswith("data:image/png;base64,iVBORw0KGgo")
    runtime.close()


async def test_structured_content_is_preferred_over_its_text(files) -> None:
    runtime, _ = mcp_runtime(files.tools(), call("structured", {"n": 7}, id="s1"))
    message = await runtime.send("square")
    assert message.tool_calls[0].result == {"n": 7, "square": 49}
    runtime.close()


async def test_an_error_result_is_an_error_the_model_reads(files) -> None:
    runtime, model = mcp_runtime(files.tools(), call("fails", {"reason": "disk full"}, id="f1"))
    message = await runtime.send("try")
    part = message.tool_calls[0]
    assert part.is_error
    assert part.result == {"error": "Error executing tool fails: disk full"}
    assert tool_messages(model.requests[-1])["f1"] == part.result
    runtime.close()


async def test_arguments_are_checked_against_the_servers_schema_before_sending(files) -> None:
    runtime, _ = mcp_runtime(files.tools(), call("lookup", {"times": "many"}, id="c1"))
    message = await runtime.send("look")
    part = message.tool_calls[0]
    assert part.is_error
    assert "key" in part.result["error"] and "times" in part.result["error"]
    runtime.close()


async def test_connect_lists_the_tools_without_blocking_the_loop(files) -> None:
    mcp = files.tools()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await mcp.connect()
    ticker.cancel()
    assert mcp.connected
    assert ticks > 1  # the loop ran other work while the server started
    runtime = gu.Runtime(model=ScriptedModel(["hi"]), tools=[mcp])
    assert "lookup" in runtime.tools
    runtime.close()


async def test_close_ends_the_server_process_and_later_calls_say_so(files) -> None:
    mcp = files.tools()
    runtime, _ = mcp_runtime(mcp, call("lookup", {"key": "a"}, id="c1"))
    pid = files.pid()
    assert alive(pid)
    runtime.close()
    assert not alive(pid)
    assert not mcp.connected
    runtime.close()  # twice is fine
    message = await runtime.send("look")  # the chat goes on: the call is an error
    part = message.tool_calls[0]
    assert part.is_error
    assert "was closed" in part.result["error"]
    assert isinstance(message.status, Complete)


def test_chat_close_closes_the_servers(files) -> None:
    mcp = files.tools()
    chat = gu.Chat(model=ScriptedModel(["hi"]), tools=[mcp])
    pid = files.pid()
    chat.close()
    assert not alive(pid)
    assert not mcp.connected


# --- streamable HTTP ---------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_server(files) -> Iterator[str]:
    """The test server over streamable HTTP (the SDK's app under uvicorn) on a loopback port."""
    port = _free_port()
    env = {**files.env(), "PATH": "/usr/bin:/bin"}
    with listening([sys.executable, SERVER, "http", str(port)], port, env):
        yield f"http://127.0.0.1:{port}/mcp"


async def test_http_server_tools_run_with_approval(files, http_server) -> None:
    mcp = gu.MCPTools.http(http_server, headers={"X-Test": "1"}, trust_annotations=True)
    files.opened.append(mcp)
    await mcp.connect()
    runtime, model = mcp_runtime(
        mcp,
        [call("lookup", {"key": "h"}, id="c1"), call("write_note", {"text": "via http"}, id="w1")],
    )
    message = await runtime.send("both")
    assert isinstance(message.status, RequiresAction)
    assert message.tool_calls[0].result == {"result": "value of h"}
    assert not files.notes.exists()
    run = runtime.approve("w1")
    assert run is not None
    message = await run
    assert files.notes.read_text() == "via http\n"
    assert isinstance(message.status, Complete)
    assert_valid(model)
    runtime.close()
    assert not mcp.connected


async def test_signing_out_forgets_the_tokens_and_the_next_call_connects_again(
    files, http_server, tmp_path, caplog
) -> None:
    from mcp.shared.auth import OAuthToken

    # the test server asks for no sign-in: the SDK's auth passes its requests through
    oauth = gu.MCPOAuth(token_dir=tmp_path / "tokens")
    mcp = gu.MCPTools.http(http_server, auth=oauth, trust_annotations=True)
    files.opened.append(mcp)
    await mcp.connect()
    kept = token_store(oauth, http_server)
    await kept.set_tokens(OAuthToken(access_token="kept"))
    assert mcp.sign_out() is True
    assert not kept.path.exists() and not mcp.connected
    runtime, _ = mcp_runtime(mcp, [call("lookup", {"key": "h"}, id="c1")])
    message = await runtime.send("again")
    assert message.tool_calls[0].result == {"result": "value of h"}
    assert mcp.restarts == 0 and "restarting it" not in caplog.text
    runtime.close()


# --- the notebook's demo server ---------------------------------------------------------


async def test_the_notebook_demo_server_works_with_the_offline_model(tmp_path) -> None:
    """What notebooks/04_agents.ipynb shows: the weather read at once, a note
    saved only after approval."""
    notes = tmp_path / "notes.txt"
    mcp = gu.MCPTools.stdio(
        sys.executable,
        [str(DEMO_SERVER)],
        env={"MCP_DEMO_NOTES": str(notes)},
        trust_annotations=True,
    )
    runtime = gu.Runtime(model=gu.DemoModel(delay=0), tools=[mcp])
    try:
        assert set(runtime.tools) == {
            "get_weather",
            "save_note",
            "book_table",
            "summarize",
            "weather_dashboard",  # an MCP app; its ui:// page is no resource for the model
        }
        reply = await runtime.send("What's the weather in Oslo?")
        assert reply.tool_calls[0].result["city"] == "Oslo"
        assert isinstance(reply.status, Complete)
        assert reply.text == "It's 22 °C and partly cloudy in Oslo."  # the server's data, read
        # the dashboard app's "Ask about tomorrow": the server's forecast, not a "can't"
        reply = await runtime.send("What's the weather in Oslo tomorrow?")
        assert reply.tool_calls[0].args == {"city": "Oslo", "day": "tomorrow"}
        assert reply.text == "Tomorrow it will be 24 °C and sunny in Oslo."
        reply = await runtime.send("Save a note: water the plants")
        assert isinstance(reply.status, RequiresAction)
        assert not notes.exists()
        run = runtime.approve(reply.tool_calls[0].tool_call_id)
        assert run is not None
        reply = await run
        assert notes.read_text() == "water the plants\n"
        assert isinstance(reply.status, Complete)
        assert reply.text == "Saved the note 'water the plants' to notes.txt."  # its text
    finally:
        runtime.close()


async def test_the_notebook_demo_servers_form_and_sampling_with_the_offline_model() -> None:
    """What notebooks/04_agents.ipynb's last chats show: the booking form
    filled in, and a summary the server asks of the offline model, approved
    twice, back in the chat."""
    mcp = gu.MCPTools.stdio(sys.executable, [str(DEMO_SERVER)], requires_approval=["save_note"])
    runtime = gu.Runtime(model=gu.DemoModel(delay=0), tools=[mcp])
    try:
        run = runtime.send("Book a table for dinner")
        form = await card(runtime)
        assert form.tool_name == "mcp_elicitation"
        assert set(form.args["schema"]["properties"]) == {"date", "party_size"}
        content = {"date": "2026-12-04", "party_size": 4}
        runtime.add_tool_result(form.tool_call_id, {"action": "accept", "content": content})
        reply = await run
        assert isinstance(reply.status, Complete)
        assert reply.text.endswith("Booked a table for 4 people on Friday 4 December 2026.")

        first = "MCP lets a tool server ask its client for help in the middle of a call."
        run = runtime.send(f"Summarise this: {first} It asks for forms. It asks models.")
        sampling = await card(runtime)
        assert sampling.args["messages"][0]["text"].startswith(first)  # the text, not the ask
        runtime.approve(sampling.tool_call_id)
        await until(lambda: "reply" in sampling.args, "the demo's answer on the card")
        assert sampling.args["reply"] == first
        runtime.approve(sampling.tool_call_id)
        reply = await run
        assert isinstance(reply.status, Complete)
        assert reply.text == f"Summary by offline demo: {first}"
    finally:
        runtime.close()
