"""Signing in to an MCP server over HTTP, apart from the conformance suite
(tests/mcp/test_mcp_conformance.py runs the real flows): where the tokens are
kept and who can read them, what ``gu.MCPOAuth`` shows of itself, the
``redirect`` function's answer read back, and what a 401 without ``auth=``
says."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from _local_server import LocalServer, send_json
from ipygenui.errors import MCPConnectionError, MCPSignInError
from ipygenui.mcp._oauth import _SignIn, token_store
from ipygenui.mcp._token_store import TOKEN_DIR_VARIABLE, TokenFile, default_token_dir

pytest.importorskip("mcp")
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SERVER = "https://mcp.example.org/mcp"
ACCESS = "access-token-that-must-stay-secret"
REFRESH = "refresh-token-that-must-stay-secret"
SECRET = "client-secret-that-must-stay-secret"


# --- where the tokens go ----------------------------------------------------------


def test_the_tokens_go_to_the_users_data_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv(TOKEN_DIR_VARIABLE, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_token_dir() == tmp_path / ".local/share/ipygenui/mcp-tokens"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_token_dir() == tmp_path / "data/ipygenui/mcp-tokens"
    monkeypatch.setenv(TOKEN_DIR_VARIABLE, str(tmp_path / "elsewhere"))
    assert default_token_dir() == tmp_path / "elsewhere"


def test_a_token_folder_inside_the_notebooks_folder_is_refused(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="inside the notebook's folder"):
        gu.MCPOAuth(token_dir=tmp_path / "tokens")
    with pytest.raises(ValueError, match="inside the notebook's folder"):
        gu.MCPOAuth(token_dir=".")
    assert gu.MCPOAuth(token_dir=tmp_path.parent / "other").token_dir == tmp_path.parent / "other"
    # a hidden folder (the data folder under a home folder Jupyter started in) is not shown
    hidden = tmp_path / ".local/share/ipygenui/mcp-tokens"
    assert gu.MCPOAuth(token_dir=hidden).token_dir == hidden


async def test_the_tokens_are_kept_in_a_file_only_the_user_reads(tmp_path: Path) -> None:
    folder = tmp_path / "tokens"
    store = token_store(gu.MCPOAuth(token_dir=folder), SERVER)
    await store.set_tokens(OAuthToken(access_token=ACCESS, refresh_token=REFRESH, expires_in=60))
    await store.set_client_info(
        OAuthClientInformationFull(client_id="registered", client_secret=SECRET, issuer=SERVER)
    )
    [file] = folder.iterdir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert "example" not in file.name  # the name says nothing of the server
    again = token_store(gu.MCPOAuth(token_dir=folder), SERVER)  # the next session reads it
    tokens = await again.get_tokens()
    client = await again.get_client_info()
    assert tokens is not None and tokens.refresh_token == REFRESH
    assert client is not None and client.client_secret == SECRET and client.issuer == SERVER
    assert not list(folder.glob(".tokens-*"))  # no temporary file left


async def test_each_server_and_client_has_its_own_file(tmp_path: Path) -> None:
    first = token_store(gu.MCPOAuth(token_dir=tmp_path), SERVER)
    await first.set_tokens(OAuthToken(access_token=ACCESS))
    other_server = token_store(gu.MCPOAuth(token_dir=tmp_path), "https://other.example.org/mcp")
    other_client = token_store(gu.MCPOAuth(client_id="mine", token_dir=tmp_path), SERVER)
    assert await other_server.get_tokens() is None
    assert await other_client.get_tokens() is None
    assert len({first.path, other_server.path, other_client.path}) == 3
    # a file that names another server is not read for this one
    other_server.path.write_text(first.path.read_text())
    assert await other_server.get_tokens() is None


async def test_a_damaged_file_reads_as_no_tokens(tmp_path: Path) -> None:
    store = TokenFile(tmp_path / "t.json", SERVER)
    store.path.write_text("{not json")
    assert await store.get_tokens() is None
    await store.set_tokens(OAuthToken(access_token=ACCESS))  # and is rewritten whole
    assert json.loads(store.path.read_text())["tokens"]["access_token"] == ACCESS


async def test_forgetting_deletes_the_file(tmp_path: Path) -> None:
    store = token_store(gu.MCPOAuth(token_dir=tmp_path), SERVER)
    await store.set_tokens(OAuthToken(access_token=ACCESS))
    assert store.forget() is True
    assert not store.path.exists() and await store.get_tokens() is None
    assert store.forget() is False


def test_sign_out_forgets_the_servers_tokens(tmp_path: Path) -> None:
    tools = gu.MCPTools.http(SERVER, auth=gu.MCPOAuth(token_dir=tmp_path))
    store = token_store(tools._transport.auth, SERVER)
    asyncio.run(store.set_tokens(OAuthToken(access_token=ACCESS)))
    assert tools.sign_out() is True
    assert list(tmp_path.iterdir()) == []
    assert tools.sign_out() is False
    assert gu.MCPTools.http(SERVER).sign_out() is False  # no auth=: nothing to forget


# --- no secret shown --------------------------------------------------------------


async def test_no_secret_in_a_repr_or_a_log(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    oauth = gu.MCPOAuth(client_id="mine", client_secret=SECRET, token_dir=tmp_path)
    keyed = gu.MCPOAuth.client_credentials("app", private_key="-----BEGIN PRIVATE KEY-----x")
    store = token_store(oauth, SERVER)
    await store.set_tokens(OAuthToken(access_token=ACCESS, refresh_token=REFRESH))
    tools = gu.MCPTools.http(SERVER, auth=oauth)
    shown = " ".join([repr(oauth), repr(keyed), repr(store), repr(tools), caplog.text])
    for secret in (SECRET, ACCESS, REFRESH, "PRIVATE KEY"):
        assert secret not in shown
    assert "client_secret=<hidden>" in repr(oauth) and "private_key=<hidden>" in repr(keyed)


# --- the options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: gu.MCPOAuth(client_secret="s"), "needs the client_id"),
        (lambda: gu.MCPOAuth(client_metadata_url="http://x.org/c.json"), "https URL with a path"),
        (lambda: gu.MCPOAuth(client_metadata_url="https://x.org/"), "https URL with a path"),
        (lambda: gu.MCPOAuth.client_credentials("app"), "one of client_secret= and private_key="),
        (
            lambda: gu.MCPOAuth(client_id="a", token_endpoint_auth_method="client_secret_post"),
            "needs client_secret",
        ),
        (lambda: gu.MCPOAuth.client_credentials("a", "s", issuer="auth.example"), "http"),
    ],
)
def test_options_that_cannot_work_are_refused(make: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_the_grants() -> None:
    assert gu.MCPOAuth().grant == "authorization_code"
    assert gu.MCPOAuth(client_id="a").token_endpoint_auth_method == "none"
    assert gu.MCPOAuth(client_id="a", client_secret="s").token_endpoint_auth_method == (
        "client_secret_basic"
    )
    assert gu.MCPOAuth().token_endpoint_auth_method is None  # registration: the server says
    keyed = gu.MCPOAuth.client_credentials("app", private_key="k")
    assert (keyed.grant, keyed.token_endpoint_auth_method) == (
        "client_credentials",
        "private_key_jwt",
    )
    enterprise = gu.MCPOAuth.identity_assertion(
        "app", "s", issuer="https://auth.example", assertion=lambda audience, resource: "jag"
    )
    assert enterprise.grant == "identity_assertion" and enterprise.issuer == "https://auth.example"
    # a person signing in gets ten minutes more to start; a program does not
    person = gu.MCPTools.http(SERVER, auth=gu.MCPOAuth(), startup_timeout=5)
    program = gu.MCPTools.http(SERVER, auth=keyed, startup_timeout=5)
    assert (person._start_wait, program._start_wait) == (605, 5)
    with pytest.raises(TypeError, match=r"gu\.MCPOAuth"):
        gu.MCPTools.http(SERVER, auth={"client_id": "a"})  # type: ignore[arg-type]


# --- the redirect function --------------------------------------------------------


async def test_the_url_the_browser_came_back_to_is_read() -> None:
    opened: list[str] = []

    def redirect(url: str) -> str:
        opened.append(url)
        return "http://127.0.0.1:33418/callback?code=abc&state=xyz&iss=https%3A%2F%2Fauth.example"

    sign_in = _SignIn(redirect, SERVER)
    await sign_in.open("https://auth.example/authorize?client_id=a")
    result = await sign_in.returned()
    assert opened == ["https://auth.example/authorize?client_id=a"]
    assert (result.code, result.state, result.iss) == ("abc", "xyz", "https://auth.example")


async def test_an_async_redirect_is_awaited() -> None:
    async def redirect(url: str) -> str:
        await asyncio.sleep(0)
        return "http://127.0.0.1/callback?code=c1&state=s1"

    sign_in = _SignIn(redirect, SERVER)
    await sign_in.open("https://auth.example/authorize")
    assert (await sign_in.returned()).code == "c1"


@pytest.mark.parametrize(
    ("redirect", "match"),
    [
        (None, "asks you to sign in.*redirect="),
        (lambda url: "http://127.0.0.1/cb?error=access_denied&error_description=No", "refused"),
        (lambda url: "http://127.0.0.1/cb?state=s", "no authorization code"),
        (lambda url: None, "must return the URL"),
    ],
)
async def test_a_sign_in_that_cannot_go_on_says_why(redirect: Any, match: str) -> None:
    sign_in = _SignIn(redirect, SERVER)
    with pytest.raises(MCPSignInError, match=match):
        await sign_in.open("https://auth.example/authorize")
        await sign_in.returned()


# --- a 401 without auth= ----------------------------------------------------------


class Refusing(LocalServer):
    """Answers every MCP request 401; publishes OAuth metadata only if told to."""

    name = "refusing"

    def __init__(self, publishes: bool) -> None:
        super().__init__()
        self.publishes = publishes

    async def _respond(self, method, path, body, reader, writer) -> bool:
        if path.startswith("/.well-known/oauth-protected-resource") and self.publishes:
            base = f"http://127.0.0.1:{self.port}"
            await send_json(
                writer, 200, {"resource": f"{base}/mcp", "authorization_servers": [base]}
            )
        elif path.startswith("/.well-known/"):
            await send_json(writer, 404, {"error": "not found"})
        else:
            challenge = {"WWW-Authenticate": 'Bearer error="invalid_token"'}
            await send_json(writer, 401, {"error": "unauthorized"}, challenge)
        return True


@pytest.mark.parametrize("publishes", [False, True])
async def test_a_401_says_the_server_needs_sign_in(publishes: bool) -> None:
    with Refusing(publishes) as server:
        url = f"http://127.0.0.1:{server.port}/mcp"
        tools = gu.MCPTools.http(url, startup_timeout=10)
        with pytest.raises(MCPConnectionError) as raised:
            await tools.connect()
        tools.close()
    said = str(raised.value)
    assert f"The MCP server {url} needs sign-in: it answered 401 Unauthorized" in said
    assert "Server returned an error response" not in said
    if publishes:
        assert "publishes OAuth metadata" in said and "auth=gu.MCPOAuth(...)" in said
    else:
        assert "no OAuth metadata was found" in said
        assert f"http://127.0.0.1:{server.port}/.well-known/oauth-protected-resource/mcp" in said
