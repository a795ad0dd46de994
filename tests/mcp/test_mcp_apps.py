"""MCP Apps, the kernel half, with a real server written with the ``mcp`` SDK
(tests/mcp_apps_server.py): the extension advertised, an app tool's ``ui://``
resource read once per server and kept from the model, visibility, and an
app's requests checked (a tool not open to apps refused, one that asks first
called only once approved)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.mcp._apps import APP_MIME, AppRequestError, clean_csp, clean_permissions
from ipygenui.messages import Complete, Thread, ToolCallPart
from ipygenui.persistence import load_thread, save_thread
from ipygenui.widget._mcp_apps import APP_CALL
from ipygenui.widget._protocol import parse_client_message
from mcp_helpers import mcp_runtime
from runtime_helpers import assert_valid, call, tool_messages

SERVER = str(Path(__file__).parents[1] / "mcp_apps_server.py")


@pytest.fixture
def apps(tmp_path: Path) -> Any:
    made: list[gu.MCPTools] = []

    def tools(**kwargs: Any) -> gu.MCPTools:
        env = {
            "MCP_APPS_READS": str(tmp_path / "reads.txt"),
            "MCP_TEST_NOTES": str(tmp_path / "notes.txt"),
        }
        opened = gu.MCPTools.stdio(sys.executable, [SERVER], env=env, **kwargs)
        made.append(opened)
        return opened

    yield tools
    for opened in made:
        opened.close()


def reads(tmp_path: Path) -> list[str]:
    path = tmp_path / "reads.txt"
    return path.read_text().split() if path.exists() else []


async def test_an_app_tool_shows_its_app_to_the_user_and_its_text_to_the_model(
    apps, tmp_path: Path
) -> None:
    tools = apps(trust_annotations=True, requires_approval=False)
    runtime, model = mcp_runtime(
        tools, call("show_counter", {"start": 3}, id="c1"), call("show_counter", {"start": 4})
    )
    names = set(runtime.tools)
    assert "show_counter" in names and "bump" not in names  # app-only: hidden from the model
    message = await runtime.send("show a counter")
    assert isinstance(message.status, Complete)
    first, second = message.tool_calls
    app = first.result["for_user"]["mcp_app"]
    assert app["uri"] == "ui://counter/app" and '<h3 id="title">Counter app' in app["html"]
    assert app["csp"] == {}  # none declared: the browser uses the spec's default
    assert app["result"]["content"][0]["text"].startswith("Counter shown from 3")
    # the tool as the server listed it, for the app's hostContext.toolInfo
    tool = app["tool"]
    assert tool["name"] == "show_counter"
    assert tool["description"] == "Show a counter starting at ``start``."
    assert tool["inputSchema"]["properties"]["start"]["type"] == "integer"
    assert tool["_meta"] == {"ui": {"resourceUri": "ui://counter/app"}}
    # the server heard the extension advertised
    assert f"host app mime types: ['{APP_MIME}']" in first.result["result"]
    # the model reads the text, never the HTML
    seen = tool_messages(model.requests[-1])["c1"]
    assert seen == {"result": first.result["result"]}
    assert "<script" not in str(model.requests[-1])
    assert_valid(model)
    assert second.result["for_user"]["mcp_app"]["html"] == app["html"]
    assert reads(tmp_path) == ["ui://counter/app"]  # read once for both calls
    # a reload has what it needs
    save_thread(runtime.thread, tmp_path / "thread.json")
    loaded = load_thread(tmp_path / "thread.json").messages[-1].tool_calls[0]
    assert loaded.result["for_user"]["mcp_app"]["html"] == app["html"]
    runtime.close()


async def test_a_saved_thread_keeps_each_apps_page_once_and_old_files_still_load(
    apps, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tools = apps(trust_annotations=True, requires_approval=False)
    calls = [call("show_counter", {"start": n}) for n in range(3)]
    runtime, _ = mcp_runtime(tools, *calls)
    message = await runtime.send("show three counters")
    html = message.tool_calls[0].result["for_user"]["mcp_app"]["html"]
    path = tmp_path / "thread.json"
    save_thread(runtime.thread, path)
    raw = path.read_text()
    assert raw.count("Counter app") == 1  # one page for the three calls
    assert json.loads(raw)["version"] == 3
    loaded = load_thread(path).messages[-1].tool_calls
    assert [c.result["for_user"]["mcp_app"]["html"] for c in loaded] == [html] * 3
    app_result = message.tool_calls[2].result["for_user"]["mcp_app"]["result"]
    assert loaded[2].result["for_user"]["mcp_app"]["result"] == app_result
    # the thread in memory still has the page in every call
    assert all(c.result["for_user"]["mcp_app"]["html"] == html for c in message.tool_calls)

    # a version 2 file, the page in every call, loads as it is
    old = {"format": "ipygenui.thread", "version": 2}
    old["thread"] = runtime.thread.model_dump(mode="json")
    path.write_text(json.dumps(old))
    loaded = load_thread(path).messages[-1].tool_calls
    assert [c.result["for_user"]["mcp_app"]["html"] for c in loaded] == [html] * 3

    # a page the table lacks: that call keeps its text, loses only its app
    save_thread(runtime.thread, path)
    cut = json.loads(path.read_text())
    cut["app_pages"] = {}
    path.write_text(json.dumps(cut))
    with caplog.at_level("WARNING", logger="ipygenui"):
        loaded = load_thread(path).messages[-1].tool_calls
    assert all("mcp_app" not in c.result["for_user"] for c in loaded)
    assert loaded[0].result["result"] == message.tool_calls[0].result["result"]
    assert "names a page the thread file lacks" in caplog.text
    runtime.close()


async def test_an_apps_tool_calls_are_checked_against_visibility_and_approval(
    apps, tmp_path: Path
) -> None:
    tools = apps(requires_approval=["save_note"])
    runtime, _ = mcp_runtime(tools)
    bumped = await tools.app_request("tools/call", {"name": "bump", "arguments": {"by": 2}}, False)
    assert bumped["structuredContent"] == {"count": 2}
    with pytest.raises(AppRequestError, match="not open to apps"):
        await tools.app_request("tools/call", {"name": "secret"}, True)  # model-only
    with pytest.raises(AppRequestError, match="not open to apps"):
        await tools.app_request("tools/call", {"name": "nonexistent"}, True)
    with pytest.raises(AppRequestError) as asked:
        await tools.app_request("tools/call", {"name": "save_note", "arguments": {"x": 1}}, False)
    assert asked.value.needs_approval
    assert not (tmp_path / "notes.txt").exists()  # nothing ran before the user said yes
    done = await tools.app_request(
        "tools/call", {"name": "save_note", "arguments": {"text": "y"}}, True
    )
    assert done["content"][0]["text"] == "saved 'y'"
    assert (tmp_path / "notes.txt").read_text() == "y\n"
    read = await tools.app_request("resources/read", {"uri": "ui://counter/app"}, False)
    assert read["contents"][0]["mimeType"] == APP_MIME
    with pytest.raises(AppRequestError, match="does not pass"):
        await tools.app_request("sampling/createMessage", {}, True)
    runtime.close()


def test_declared_csp_domains_are_kept_only_when_they_are_plain_origins() -> None:
    csp = {
        "connectDomains": ["https://api.example.com", "https://x.com; script-src *", "*"],
        "resourceDomains": ["https://*.cdn.example.com:8443", "javascript:alert(1)"],
        "frameDomains": "https://not-a-list.example.com",
    }
    assert clean_csp(csp, "ui://x") == {
        "connectDomains": ["https://api.example.com"],
        "resourceDomains": ["https://*.cdn.example.com:8443"],
    }


DROPPED_ORIGINS = {
    "http://127.0.0.1:8888": "a loopback address",
    "ws://localhost:8888": "a loopback name",
    "https://*.localhost": "a loopback name",
    "http://0.0.0.0:8888": "an unspecified address",
    "http://169.254.169.254": "a link-local address",
    "http://10.0.0.7": "a private address",
    "https://192.168.1.1:8443": "a private address",
    "http://172.20.0.1": "a private address",
    "http://2130706433": "a loopback address",  # 127.0.0.1 as the browser reads it
    "http://0x7f.1": "a loopback address",
    "http://0177.0.0.1": "a loopback address",
    "http://1.2.3.999": "not a valid address",
    "http://printer.local": "a private network name",
    "http://metadata.google.internal": "a private network name",
    "https://*.com": "a wildcard wider than one registrable domain",
    "https://*.co.uk": "a wildcard wider than one registrable domain",
    "https://*.github.io": "a wildcard wider than one registrable domain",
    "https://*.10.0.0.1": "a wildcard over an address",
}
KEPT_ORIGINS = [
    "https://api.example.com",
    "https://*.example.com",
    "https://*.example.co.uk",
    "wss://live.example.org:8443",
    "https://93.184.215.14",
]


@pytest.mark.parametrize(
    "key", ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"]
)
def test_origins_an_app_may_not_name_are_dropped_with_a_warning_naming_each(
    key: str, caplog: pytest.LogCaptureFixture
) -> None:
    dropped: list[dict[str, str]] = []
    with caplog.at_level("WARNING", logger="ipygenui"):
        clean = clean_csp({key: [*DROPPED_ORIGINS, *KEPT_ORIGINS]}, "ui://x", dropped)
    assert clean == {key: KEPT_ORIGINS}
    assert {d["origin"].strip("'"): d["reason"] for d in dropped} == DROPPED_ORIGINS
    assert all(d["key"] == key for d in dropped)
    for origin, reason in DROPPED_ORIGINS.items():
        assert any(origin in r.getMessage() and reason in r.getMessage() for r in caplog.records)


def test_the_browser_holds_the_same_public_suffixes() -> None:
    from ipygenui.mcp._app_origins import PUBLIC_SUFFIXES

    source = (Path(__file__).parents[2] / "js" / "src" / "mcp-apps" / "csp.js").read_text()
    listed = re.search(r"const PUBLIC_SUFFIXES = new Set\(\[(.*?)\]\)", source, re.S)
    assert listed, "csp.js has no PUBLIC_SUFFIXES"
    assert set(re.findall(r'"([^"]+)"', listed.group(1))) == PUBLIC_SUFFIXES


def load_thread_text(text: str) -> Thread:
    return Thread.model_validate_json(text)


def test_the_chat_has_each_model_tools_app_before_any_call(apps, tmp_path: Path) -> None:
    tools = apps(prefix="srv_")
    chat = gu.Chat(model=gu.testing.ScriptedModel(["done"]), tools=[tools])
    apps_shown = {"srv_show_counter", "srv_show_failing", "srv_show_hostile", "srv_show_csp"}
    assert set(chat.mcp_apps) == apps_shown  # not app-only bump
    assert chat.mcp_apps["srv_show_counter"]["uri"] == "ui://counter/app"
    assert '<h3 id="title">Counter app' in chat.mcp_apps["srv_show_counter"]["html"]
    listed = chat.mcp_apps["srv_show_counter"]["tool"]  # the server's own name, unprefixed
    assert listed["name"] == "show_counter" and "start" in listed["inputSchema"]["properties"]
    assert sorted(reads(tmp_path)) == ["ui://counter/app", "ui://csp/app", "ui://hostile/app"]
    chat.close()


async def test_an_app_call_carries_the_json_rpc_id_its_server_heard(tmp_path: Path) -> None:
    bundle = tmp_path / "sdk.js"
    bundle.write_text("/* no SDK needed to read the resource */")
    env = {"MCP_APPS_SDK": str(bundle)}
    tools = gu.MCPTools.stdio(
        sys.executable, [SERVER], env=env, trust_annotations=True, requires_approval=False
    )
    try:
        runtime, _ = mcp_runtime(
            tools, call("show_sdk", {"topic": "a"}, id="c1"), call("show_sdk", {"topic": "b"})
        )
        message = await runtime.send("show it twice")
        assert isinstance(message.status, Complete)
        ids = []
        for part in message.tool_calls:
            app = part.result["for_user"]["mcp_app"]
            # the id the tools/call went under, as the server itself saw it (not the chat's c1)
            heard = re.search(r"request (\S+)$", app["result"]["content"][0]["text"])
            assert heard is not None and app["request_id"] == heard.group(1)
            ids.append(app["request_id"])
        assert len(set(ids)) == 2 and "c1" not in ids
    finally:
        tools.close()


def test_an_apps_declared_permissions_reach_the_browser_as_the_spec_names_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bundle = tmp_path / "sdk.js"
    bundle.write_text("/* no SDK needed to read the resource */")
    tools = gu.MCPTools.stdio(sys.executable, [SERVER], env={"MCP_APPS_SDK": str(bundle)})
    chat = gu.Chat(model=gu.testing.ScriptedModel(["done"]), tools=[tools])
    try:
        asking = chat.mcp_apps["show_sdk_asking"]
        # asked for, not granted: the card asks the user before the app loads
        assert asking["permissions"] == {"camera": {}, "microphone": {}, "clipboardWrite": {}}
        assert "permissions" not in chat.mcp_apps["show_sdk"]  # none declared
        assert "permissions ['usb'] not known" in caplog.text
    finally:
        chat.close()
        tools.close()


def test_a_permission_is_kept_only_under_the_specs_name_with_an_object() -> None:
    declared = {"camera": True, "geolocation": {}, "clipboard-write": {}, "microphone": None}
    assert clean_permissions(declared, "ui://x") == {"geolocation": {}}
    assert clean_permissions(["camera"], "ui://x") == {}


class _Sent:
    """What the app bridge answered, as the widget would send it."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, content: Any, buffers: Any = None) -> None:
        self.messages.append(content)


async def _ask(bridge: Any, **fields: Any) -> dict[str, Any]:
    sent = bridge.widget
    before = len(sent.messages)
    bridge.answer(parse_client_message({"type": "mcp_app", "request": 1, **fields}))
    for task in list(bridge._tasks):
        await task
    [answer] = sent.messages[before:]
    return answer


async def test_an_apps_requests_from_the_browser_reach_only_its_calls_server(
    apps, tmp_path: Path
) -> None:
    from ipygenui.widget._mcp_apps import AppBridge

    tools = apps(requires_approval=["save_note"])
    runtime, model = mcp_runtime(tools, call("show_counter", {"start": 1}, id="c1"), "ok")
    await runtime.send("show it")
    bridge = AppBridge(runtime, _Sent())
    bumped = await _ask(bridge, tool_call_id="c1", method="tools/call", params={"name": "bump"})
    assert bumped["result"]["structuredContent"] == {"count": 1}
    asks = await _ask(bridge, tool_call_id="c1", method="tools/call", params={"name": "save_note"})
    assert asks["error"]["needs_approval"] is True  # the browser shows Approve, then asks again
    # a call that shows no app, or none at all: refused, nothing reaches the server
    unknown = await _ask(bridge, tool_call_id="nope", method="tools/call", params={"name": "bump"})
    assert "shows no MCP app" in unknown["error"]["message"]
    with pytest.raises(ValueError, match="invalid 'mcp_app' message: method"):
        parse_client_message({"type": "mcp_app", "tool_call_id": "c1", "request": 2, "method": "x"})
    # the last context before the next turn reaches the model with the user's message
    for text in ("count is 1", "count is 2"):
        context = {"content": [{"type": "text", "text": text}]}
        done = await _ask(
            bridge, tool_call_id="c1", method="ui/update-model-context", params=context
        )
        assert done["result"] == {}
    await runtime.send("what now?")
    last_user = str(model.requests[-1].messages[-1])
    assert "count is 2" in last_user and "count is 1" not in last_user
    runtime.close()


async def test_every_call_an_app_starts_that_runs_leaves_a_record_in_the_thread(
    apps, tmp_path: Path
) -> None:
    from ipygenui.widget._mcp_apps import AppBridge

    tools = apps(requires_approval=["save_note"])
    runtime, model = mcp_runtime(tools, call("show_counter", {"start": 1}, id="c1"), "ok", "ok")
    await runtime.send("show it")
    bridge = AppBridge(runtime, _Sent())
    await _ask(bridge, tool_call_id="c1", method="tools/call", params={"name": "bump"})
    asks = await _ask(
        bridge, tool_call_id="c1", method="tools/call",
        params={"name": "save_note", "arguments": {"text": "y"}},
    )  # fmt: skip
    assert asks["error"]["needs_approval"]  # not run: no record
    await _ask(
        bridge, tool_call_id="c1", method="tools/call",
        params={"name": "save_note", "arguments": {"text": "y"}}, approved=True,
    )  # fmt: skip
    await _ask(bridge, tool_call_id="c1", method="tools/call", params={"name": "secret"})
    message = runtime.thread.messages[1]
    records = [p for p in message.parts if isinstance(p, ToolCallPart) and p.synthetic]
    assert [(r.tool_name, r.args["tool"], r.args["arguments"]) for r in records] == [
        (APP_CALL, "bump", {}),
        (APP_CALL, "save_note", {"text": "y"}),
    ]  # the refused secret call ran nowhere: no record either
    bump, save = records
    assert all(r.has_result and r.args_complete and r.args["app_call"] == "c1" for r in records)
    assert bump.result["structuredContent"] == {"count": 1} and not bump.is_error
    assert bump.approval is None and "without asking" in bump.args["decided"]
    assert save.approval is not None and save.approval.status == "approved"
    assert save.approval.decided_by == "user" and "approved" in save.args["decided"]
    assert "saved 'y'" in json.dumps(save.result)
    # the thread file keeps them; the model's history holds its own call only
    loaded = load_thread_text(runtime.thread.model_dump_json())
    assert [p.tool_call_id for p in loaded.messages[1].parts if getattr(p, "synthetic", False)] == [
        bump.tool_call_id,
        save.tool_call_id,
    ]
    await runtime.send("and now?")
    assert_valid(model)
    sent = model.requests[-1].messages
    assert "save_note" not in json.dumps(sent) and [
        c["id"] for m in sent for c in m.get("tool_calls") or []
    ] == ["c1"]
    runtime.close()


async def test_the_offline_demo_model_opens_the_demo_servers_app() -> None:
    demo_server = Path(__file__).parents[2] / "notebooks" / "mcp_demo_server.py"
    tools = gu.MCPTools.stdio(sys.executable, [str(demo_server)], trust_annotations=True)
    runtime = gu.Runtime(model=gu.model("demo", delay=0), tools=[tools])
    message = await runtime.send("Show me the weather dashboard for Oslo")
    assert isinstance(message.status, Complete)
    [part] = message.tool_calls
    assert part.tool_name == "weather_dashboard" and part.args["city"] == "Oslo"
    app = part.result["for_user"]["mcp_app"]
    assert app["uri"] == "ui://ipygenui-demo/weather" and "ui/initialize" in app["html"]
    assert app["result"]["structuredContent"]["city"] == "Oslo"
    runtime.close()


@pytest.mark.parametrize(
    ("tool", "broken", "why"),
    [
        ("show_broken", "", "Error reading resource ui://broken/app"),
        ("show_broken", "huge", "over 2,097,152 bytes"),
        ("show_plain", "", "not 'text/html;profile=mcp-app'"),
    ],
)
async def test_an_app_the_host_cannot_show_leaves_the_tools_text(
    tool: str, broken: str, why: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tools = gu.MCPTools.stdio(
        sys.executable, [SERVER], env={"MCP_APPS_BROKEN": broken}, requires_approval=False
    )
    runtime, model = mcp_runtime(tools, call(tool, id="b1"))
    with caplog.at_level("WARNING", logger="ipygenui"):
        message = await runtime.send("show it")
    assert isinstance(message.status, Complete)
    [part] = message.tool_calls
    assert "for_user" not in part.result  # no app: the card shows the text
    assert tool_messages(model.requests[-1])["b1"] == part.result
    assert why in caplog.text
    runtime.close()


def test_app_origin_takes_only_an_https_or_local_url() -> None:
    from traitlets import TraitError

    model = gu.testing.ScriptedModel(["done"])
    assert gu.Chat(model=model, app_origin="https://apps.example.com/s.html").app_origin
    assert gu.Chat(model=model, app_origin="http://127.0.0.1:8123/proxy.html").app_origin
    for bad in ("javascript:alert(1)", "http://apps.example.com/s.html", 'https://a.com/"><x'):
        with pytest.raises(TraitError, match="app_origin"):
            gu.Chat(model=model, app_origin=bad)


@pytest.mark.parametrize(
    "same_server",
    [
        "http://localhost:8888/files/proxy.html",
        "http://127.0.0.1:8888/proxy.html",
        "https://hub.example.com/user/ada/files/proxy.html",
        "https://lab.example.com/lab/tree/proxy.html",
        "https://lab.example.com/files/proxy.html",
    ],
)
def test_app_origin_on_the_notebook_server_s_own_origin_is_refused(same_server: str) -> None:
    from traitlets import TraitError

    model = gu.testing.ScriptedModel(["done"])
    with pytest.raises(TraitError, match="the notebook's own origin"):
        gu.Chat(model=model, app_origin=same_server)


def test_app_origin_on_a_running_jupyter_server_s_port_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from traitlets import TraitError

    from ipygenui.widget import chat as chat_module

    monkeypatch.setattr(chat_module, "_running_jupyter_ports", lambda: {8123})
    model = gu.testing.ScriptedModel(["done"])
    with pytest.raises(TraitError, match="port 8123"):
        gu.Chat(model=model, app_origin="http://127.0.0.1:8123/proxy.html")
    assert gu.Chat(model=model, app_origin="http://127.0.0.1:8124/proxy.html").app_origin
