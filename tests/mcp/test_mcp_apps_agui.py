"""An MCP app's call in our AG-UI output, read by the official AG-UI client
(``@ag-ui/client`` 1.0.0, its ``verifyEvents`` in the pipeline), with a real
server written with the ``mcp`` SDK (tests/mcp_apps_server.py): after the
call's TOOL_CALL_RESULT, an ``ACTIVITY_SNAPSHOT`` of ``activityType:
"mcp-apps"`` in the shape AG-UI's mcp-apps middleware sends (``result``,
``resourceUri``, ``serverHash``, ``serverId``, ``toolInput``), never the
app's HTML; the client keeps it as an ``activity`` message and a second run
with that history sent back still works."""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from pathlib import Path

import pytest

import ipygenui as gu
from agui_agents import serve
from agui_peer import drive, official_client_available
from ipygenui.mcp._connection import HTTP, Stdio
from ipygenui.mcp._server_name import server_hash
from ipygenui.messages import ToolCallPart
from mcp_helpers import mcp_runtime
from runtime_helpers import call

SERVER = str(Path(__file__).parents[1] / "mcp_apps_server.py")


def test_a_server_hash_is_the_middlewares_for_a_url() -> None:
    # the middleware: md5 of JSON.stringify({type, url}), no spaces, non-ASCII as is
    url = "https://mcp.example.com/ü?key=1"
    said = json.dumps({"type": "http", "url": url}, separators=(",", ":"), ensure_ascii=False)
    assert server_hash(HTTP(url, None)) == hashlib.md5(said.encode()).hexdigest()
    one, other = Stdio("python", ["a.py"], None, None), Stdio("python", ["b.py"], None, None)
    assert server_hash(one) != server_hash(other)
    assert "a.py" not in server_hash(one)


async def test_the_official_client_takes_an_mcp_apps_activity_and_sends_it_back() -> None:
    official_client_available()
    tools = gu.MCPTools.stdio(sys.executable, [SERVER], requires_approval=False)
    rt, _ = mcp_runtime(tools, call("show_counter", {"start": 5}, id="m1"), "Shown.")
    app = rt.ag_ui_app()
    turns = [{"add": [{"role": "user", "content": t}]} for t in ("show the counter", "thanks")]
    try:
        with serve(app) as url:
            first, second = await drive(url, app.token, turns)
    finally:
        rt.close()
    assert "error" not in first, first["error"]
    kinds = [e["type"] for e in first["events"]]
    [event] = [e for e in first["events"] if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert kinds.index("ACTIVITY_SNAPSHOT") > kinds.index("TOOL_CALL_RESULT")
    assert event["activityType"] == "mcp-apps"
    assert event["messageId"] == "mcp-app-m1"
    content = event["content"]
    assert set(content) == {"result", "resourceUri", "serverHash", "serverId", "toolInput"}
    assert content["resourceUri"] == "ui://counter/app"
    assert content["toolInput"] == {"start": 5}
    assert content["result"]["content"][0]["text"].startswith("Counter shown from 5")
    assert content["result"]["isError"] is False  # the raw CallToolResult, camelCase
    assert content["serverId"] == "ipygenui-apps-test"  # the server's own name
    command = Stdio(sys.executable, [SERVER], None, None)
    assert content["serverHash"] == server_hash(command)
    assert "<script" not in json.dumps(first["events"])  # never the app's HTML
    assert shlex.join([sys.executable, SERVER]) not in json.dumps(content)
    [activity] = [m for m in first["messages"] if m["role"] == "activity"]
    assert activity["activityType"] == "mcp-apps"
    assert activity["content"]["resourceUri"] == "ui://counter/app"
    assert "error" not in second, second["error"]
    assert rt.thread.messages[-1].text == "done"


@pytest.mark.parametrize("broken", ["error", "no app"])
def test_no_activity_for_a_call_without_an_app(broken: str) -> None:
    from ipygenui.agui._activity import mcp_app_activity_content
    from ipygenui.messages import ToolCallPart

    result = {"error": "boom"} if broken == "error" else {"result": "text only"}
    part = ToolCallPart(
        tool_call_id="x",
        tool_name="show_counter",
        args={"start": 1},
        has_result=True,
        is_error=broken == "error",
        result=result,
    )
    assert mcp_app_activity_content(part) is None


def proxied(content: dict, method: str, params: dict, **server: str) -> dict:
    """A turn of the mcp-apps middleware's proxied request, as its frontend sends it."""
    named = server or {"serverId": content["serverId"], "serverHash": content["serverHash"]}
    request = {**named, "method": method, "params": params}
    return {"forwardedProps": {"__proxiedMCPRequest": request}}


async def test_the_official_client_reads_the_app_and_calls_its_tools_through_proxied_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's HTML read and its app-only tool called as the middleware's
    frontend does; a tool that asks first is refused unrun (only the notebook
    user decides it), as are another server and a method the proxy does not pass."""
    official_client_available()
    notes = tmp_path / "notes.txt"
    monkeypatch.setenv("MCP_TEST_NOTES", str(notes))
    tools = gu.MCPTools.stdio(sys.executable, [SERVER], requires_approval={"save_note"})
    rt, _ = mcp_runtime(tools, call("show_counter", {"start": 5}, id="m1"), "Shown.")
    app = rt.ag_ui_app()
    try:
        with serve(app) as url:
            [first] = await drive(url, app.token, [{"add": [{"role": "user", "content": "go"}]}])
            [activity] = [e for e in first["events"] if e["type"] == "ACTIVITY_SNAPSHOT"]
            content = activity["content"]
            uri = {"uri": content["resourceUri"]}
            turns = [
                proxied(content, "resources/read", uri),
                proxied(content, "tools/call", {"name": "bump", "arguments": {"by": 2}}),
                proxied(content, "tools/call", {"name": "save_note", "arguments": {"text": "x"}}),
                proxied(content, "resources/read", uri, serverHash="0" * 32),
                proxied(content, "sampling/createMessage", {}),
            ]
            read, bumped, gated, stranger, sampling = await drive(url, app.token, turns)
    finally:
        rt.close()
    for report in (read, bumped, gated, stranger, sampling):
        assert "error" not in report, report["error"]  # each a verified two-event stream
        assert [e["type"] for e in report["events"]] == ["RUN_STARTED", "RUN_FINISHED"]
    [html] = read["result"]["contents"]
    assert html["uri"] == "ui://counter/app" and "<script" in html["text"]
    assert bumped["result"]["isError"] is False
    assert "count" in bumped["result"]["structuredContent"]
    calls = [p for m in rt.thread.messages for p in m.parts if isinstance(p, ToolCallPart)]
    [record] = [p for p in calls if p.tool_name == "mcp_app_call"]  # as the notebook's app calls
    assert record.args["tool"] == "bump" and record.args["arguments"] == {"by": 2}
    assert "notebook user" in gated["result"]["error"] and not notes.exists()
    assert stranger["result"]["error"].startswith("Unknown server")
    assert "not allowed" in sampling["result"]["error"]
    assert len(rt.thread.messages) == 2  # no run: the thread has the first turn only
