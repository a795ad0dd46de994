"""The MCP SDK's own OAuth client, without ipygenui, as the conformance suite's
client for its authorization-code scenarios: what the SDK's conformance
client does for them (``OAuthClientProvider`` with in-memory storage, the
sign-in page's redirect read without following it, then initialize, list
the tools, call the first).

tests/mcp/test_mcp_conformance.py runs the scenarios ipygenui is allowed to
fail through it: each must fail here too (ipygenui signs in through the SDK).
"""

from __future__ import annotations

import asyncio
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl


class Memory:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Browser:
    """Opens the sign-in page and keeps where it redirects."""

    def __init__(self) -> None:
        self.back = ""

    async def open(self, url: str) -> None:
        async with httpx2.AsyncClient() as client:
            response = await client.get(url, follow_redirects=False)
        self.back = response.headers.get("location", "")

    async def returned(self) -> AuthorizationCodeResult:
        query = parse_qs(urlparse(self.back).query)
        return AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )


async def main(server_url: str) -> None:
    browser = Browser()
    auth = OAuthClientProvider(
        server_url=server_url,
        client_metadata=OAuthClientMetadata(
            client_name="sdk conformance client",
            redirect_uris=[AnyUrl("http://localhost:3000/callback")],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=Memory(),
        redirect_handler=browser.open,
        callback_handler=browser.returned,
    )
    async with (
        httpx2.AsyncClient(auth=auth, timeout=30) as http,
        streamable_http_client(server_url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        if listed.tools:
            await session.call_tool(listed.tools[0].name, {})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[-1]))
