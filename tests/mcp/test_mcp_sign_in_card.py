"""Signing in to an MCP server at the chat's card (``gu.MCPOAuth()`` with no
``redirect``), against a real OAuth-protected server (tests/mcp_oauth_server.py:
the MCP SDK's authorization server) where the test plays the browser: it
GETs the authorization URL the card shows and follows the redirect to the
kernel's loopback listener (a real HTTP request, no mock), or pastes the
address as a user on another machine would. What the card, the widget's
state and the thread file hold is checked for the code and the tokens."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import ipygenui as gu
from comm_helpers import click, customs, settle
from ipygenui.mcp._loopback import Loopback, check_landed, free_loopback_uri
from ipygenui.mcp._token_store import TOKEN_DIR_VARIABLE
from ipygenui.testing import ScriptedModel
from ipygenui.tools import sign_ins
from ipygenui.widget.chat import Chat
from mcp_helpers import listening
from runtime_helpers import call

pytest.importorskip("mcp")

SERVER = str(Path(__file__).parents[1] / "mcp_oauth_server.py")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def oauth_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The OAuth-protected server on a loopback port; tokens go to a folder of the test's."""
    monkeypatch.setenv(TOKEN_DIR_VARIABLE, str(tmp_path / "tokens"))
    port = _free_port()
    with listening([sys.executable, SERVER, str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


def _browser_visits(url: str) -> str:
    """The browser opens the authorization URL: the server signs the user in
    at once and sends the browser to the redirect URI; where it lands."""
    page = httpx.get(url, follow_redirects=False, timeout=10)
    assert page.status_code == 302, page.text
    return str(page.headers["location"])


async def _until(condition: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def _secrets(tmp_path: Path) -> list[str]:
    [file] = (tmp_path / "tokens").iterdir()
    tokens = json.loads(file.read_text())["tokens"]
    return [tokens["access_token"], tokens["refresh_token"]]


async def test_the_card_signs_in_through_the_loopback_listener(
    oauth_server: str, tmp_path: Path
) -> None:
    tools = gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth(), trust_annotations=True)
    model = ScriptedModel([call("read_note", id="r1"), "done"])
    runtime = gu.Runtime(model=model, tools=[tools])
    try:
        # built at once, without the server's tools: the card waits for the user
        [card] = runtime.sign_ins.pending
        assert card["server"].startswith("127.0.0.1:") and card["listening"] is True
        redirect = card["redirect_uri"]
        assert redirect.startswith("http://127.0.0.1:") and redirect.endswith("/callback")
        assert redirect not in oauth_server
        landed = _browser_visits(card["url"])
        assert landed.startswith(redirect + "?") and "code=" in landed
        code = landed.split("code=", 1)[1].split("&", 1)[0]
        back = await asyncio.to_thread(httpx.get, landed, timeout=10)  # to the kernel's listener
        assert back.status_code == 200 and "You can close this tab" in back.text
        await _until(lambda: tools.changes == 1)
        assert runtime.sign_ins.pending == []
        # the listener closed after its one redirect
        with pytest.raises(httpx.ConnectError):
            await asyncio.to_thread(httpx.get, landed, timeout=5)
        message = await runtime.send("read the note")
        assert message.tool_calls[0].result == {"result": "the signed-in note"}
        runtime.save(tmp_path / "thread.json")
        saved = (tmp_path / "thread.json").read_text()
        assert "signed-in note" in saved
        for secret in [code, *_secrets(tmp_path)]:
            assert secret not in saved
    finally:
        runtime.close()


async def test_a_card_no_chat_shows_is_said_in_the_log(
    oauth_server: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sign_ins, "UNSEEN_SECONDS", 0.1)
    runtime = gu.Runtime(
        model=ScriptedModel(["done"]), tools=[gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth())]
    )
    try:
        await _until(lambda: "no chat shows its card" in caplog.text)
        assert "code=" not in caplog.text and "state=" not in caplog.text
    finally:
        runtime.close()


async def test_the_next_chat_reuses_the_tokens_without_a_card(oauth_server: str) -> None:
    first = gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth())
    runtime = gu.Runtime(model=ScriptedModel(["done"]), tools=[first])
    try:
        [card] = runtime.sign_ins.pending
        await asyncio.to_thread(httpx.get, _browser_visits(card["url"]), timeout=10)
        await _until(lambda: first.changes == 1)
    finally:
        runtime.close()
    again = gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth())
    runtime = gu.Runtime(model=ScriptedModel(["done"]), tools=[again])
    try:
        assert runtime.sign_ins.pending == []
        assert [tool.name for tool in again.as_tools()] == ["read_note"]
    finally:
        runtime.close()


async def test_the_chat_card_takes_a_pasted_address_and_keeps_no_secret(
    oauth_server: str, tmp_path: Path, wire: Any
) -> None:
    tools = gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth(), trust_annotations=True)
    model = ScriptedModel([call("read_note", id="r1"), "done"])
    chat = Chat(model=model, tools=[tools])
    try:
        [card] = chat.sign_ins
        assert card["url"].startswith(oauth_server.rsplit("/", 1)[0] + "/authorize?")
        landed = _browser_visits(card["url"])  # a browser elsewhere: the listener never hears it
        code = landed.split("code=", 1)[1].split("&", 1)[0]
        wrong_state = landed.replace("state=", "state=x")
        click(chat, {"type": "sign_in", "id": card["id"], "action": "paste", "url": wrong_state})
        await _until(lambda: chat.sign_ins and chat.sign_ins[0]["error"])
        assert "another sign-in" in chat.sign_ins[0]["error"]
        [said] = customs(wire, "error")
        assert code not in json.dumps(said)  # the pasted address is not echoed back
        click(chat, {"type": "sign_in", "id": card["id"], "action": "paste", "url": landed})
        await _until(lambda: tools.changes == 1)
        await _until(lambda: chat.sign_ins == [])
        chat.send("read the note")
        await settle(chat)
        assert chat.thread.messages[-1].tool_calls[0].result == {"result": "the signed-in note"}
        state = json.dumps(chat.get_state(), default=str)
        sent = json.dumps(wire, default=str)
        chat.runtime.save(tmp_path / "thread.json")
        saved = (tmp_path / "thread.json").read_text()
        assert "signed-in note" in saved and "signed-in note" in sent
        for secret in [code, *_secrets(tmp_path)]:
            assert secret not in state
            assert secret not in saved
            assert secret not in sent
    finally:
        chat.close()


async def test_cancel_ends_the_sign_in_and_leaves_the_chat_usable(
    oauth_server: str, wire: Any
) -> None:
    tools = gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth())
    chat = Chat(model=ScriptedModel(["still here"]), tools=[tools])
    try:
        [card] = chat.sign_ins
        click(chat, {"type": "sign_in", "id": card["id"], "action": "cancel"})
        await _until(lambda: chat.sign_ins == [])
        [said] = customs(wire, "error")
        assert "cancelled" in said["message"] and "tools.connect()" in said["message"]
        chat.send("hello")
        await settle(chat)
        assert chat.thread.messages[-1].text == "still here"
        assert tools.changes == 0
        # a forged answer to a card that is gone changes nothing
        click(chat, {"type": "sign_in", "id": card["id"], "action": "paste", "url": "http://x"})
        await _until(lambda: len(customs(wire, "error")) == 2)
        assert "ended already" in customs(wire, "error")[1]["message"]
    finally:
        chat.close()


async def test_after_sign_out_a_call_waits_at_the_card_and_goes_on(oauth_server: str) -> None:
    tools = gu.MCPTools.http(oauth_server, auth=gu.MCPOAuth(), trust_annotations=True)
    model = ScriptedModel([call("read_note", id="r1"), "done", call("read_note", id="r2"), "done"])
    runtime = gu.Runtime(model=model, tools=[tools])
    try:
        [card] = runtime.sign_ins.pending
        await asyncio.to_thread(httpx.get, _browser_visits(card["url"]), timeout=10)
        await _until(lambda: tools.changes == 1)
        assert (await runtime.send("read it")).tool_calls[0].result == {
            "result": "the signed-in note"
        }
        assert tools.sign_out() is True
        run = asyncio.ensure_future(runtime.send("read it again"))
        await _until(lambda: runtime.sign_ins.pending)  # the call waits for the user
        [again] = runtime.sign_ins.pending
        assert again["id"] != card["id"]
        await asyncio.to_thread(httpx.get, _browser_visits(again["url"]), timeout=10)
        message = await asyncio.wait_for(run, 30)
        assert message.tool_calls[0].result == {"result": "the signed-in note"}
        assert runtime.sign_ins.pending == []
    finally:
        runtime.close()


async def test_the_listener_takes_only_its_own_redirect() -> None:
    uri = free_loopback_uri()
    landed: list[str] = []
    listener = Loopback(uri, "s1", landed.append)
    assert await listener.open()
    try:
        get = lambda url: asyncio.to_thread(httpx.get, url, timeout=5)  # noqa: E731
        assert (await get(f"{uri}?code=c&state=other")).status_code == 404
        assert (
            await get(uri.replace("/callback", "/elsewhere") + "?code=c&state=s1")
        ).status_code == 404
        assert landed == []  # still listening
        page = await get(f"{uri}?code=c&state=s1")
        assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
        assert landed == [f"{uri}?code=c&state=s1"]
        with pytest.raises(httpx.ConnectError):  # one sign-in, one redirect
            await get(f"{uri}?code=c&state=s1")
    finally:
        await listener.close()


def test_a_pasted_address_must_be_this_sign_ins_redirect() -> None:
    uri = "http://127.0.0.1:41234/callback"
    good = f"{uri}?code=abc&state=s1"
    assert check_landed(f"  {good}\n", uri, "s1") == good
    for bad, why in [
        ("", "paste the whole address"),
        ("http://127.0.0.1:41235/callback?code=abc&state=s1", "not this sign-in's"),
        ("https://127.0.0.1:41234/callback?code=abc&state=s1", "not this sign-in's"),
        ("http://evil.example:41234/callback?code=abc&state=s1", "not this sign-in's"),
        ("http://127.0.0.1:41234/other?code=abc&state=s1", "not this sign-in's"),
        ("http://127.0.0.1:41234/callback?code=abc&state=s2", "another sign-in"),
        ("http://127.0.0.1:41234/callback?state=s1", "no authorization code"),
    ]:
        with pytest.raises(ValueError, match=why):
            check_landed(bad, uri, "s1")
