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
