"""ipygenui as the client the MCP conformance suite tests
(``@modelcontextprotocol/conformance``, installed in tests/peers).

The suite starts a scenario's server (and authorization servers), then runs
``python tests/mcp_conformance_client.py <server-url>`` with the scenario's
name in ``MCP_CONFORMANCE_SCENARIO`` and what it hands the client (client
ids, secrets, keys) as JSON in ``MCP_CONFORMANCE_CONTEXT``. This script does
what the scenario asks through ipygenui's public API only: ``gu.MCPTools.http``
with ``gu.MCPOAuth``, and a headless ``gu.Runtime`` whose scripted model calls
the server's tools (its elicitation forms answered with their defaults, as a
person accepting the form unchanged would). The sign-in page is "opened" by
fetching it without following its redirect: the Location it answers is the
URL a browser would have come back to.

tests/mcp/test_mcp_conformance.py runs every client scenario through it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from typing import Any
from urllib.parse import urlparse

# jsonschema's import builds rfc3987-syntax's grammars (seconds of CPU here)
# for the iri formats, which no check of ours asks for: this process is one
# of 26, so it goes without them.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

import httpx  # noqa: E402

import ipygenui as gu  # noqa: E402
from ipygenui.testing import ScriptedCall, ScriptedModel  # noqa: E402

CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document the suite's CIMD scenario expects."""
REDIRECT_URI = "http://localhost:3000/callback"


def context() -> dict[str, Any]:
    text = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    return json.loads(text) if text else {}


def sign_in_page(authorization_url: str) -> str:
    """What a browser would come back with: the sign-in page's redirect."""
    response = httpx.get(authorization_url, follow_redirects=False, timeout=30)
    location = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise RuntimeError(f"the sign-in page answered {response.status_code}, not a redirect")
    return location


def protected_resource_issuer(server_url: str) -> str:
    """The authorization server the resource names (the identity-assertion
    scenario hands the client no issuer; a deployment would configure it)."""
    parsed = urlparse(server_url)
    well_known = f"{parsed.scheme}://{parsed.netloc}/.well-known/oauth-protected-resource"
    for url in (well_known + parsed.path, well_known):  # path-based first, then the root
        response = httpx.get(url, timeout=30)
        if response.status_code == 200:
            return str(response.json()["authorization_servers"][0])
    raise RuntimeError("no protected resource metadata")


def id_jag(given: dict[str, Any]) -> Any:
    """The enterprise identity provider's token exchange (RFC 8693) for an ID-JAG."""

    def exchange(audience: str, resource: str) -> str:
        response = httpx.post(
            given["idp_token_endpoint"],
            data={
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "subject_token": given["idp_id_token"],
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "audience": audience,
                "resource": resource,
                "client_id": given["idp_client_id"],
            },
        )
        response.raise_for_status()
        return str(response.json()["access_token"])

    return exchange


def oauth_for(scenario: str, server_url: str, token_dir: str) -> gu.MCPOAuth | None:
    if not scenario.startswith("auth/"):
        return None
    given = context()
    if scenario == "auth/client-credentials-jwt":
        return gu.MCPOAuth.client_credentials(
            given["client_id"],
            private_key=given["private_key_pem"],
            signing_algorithm=given.get("signing_algorithm", "ES256"),
            token_dir=token_dir,
        )
    if scenario == "auth/client-credentials-basic":
        return gu.MCPOAuth.client_credentials(
            given["client_id"], given["client_secret"], token_dir=token_dir
        )
    if scenario == "auth/cross-app-access-complete-flow":
        return gu.MCPOAuth.identity_assertion(
            given["client_id"],
            given["client_secret"],
            issuer=protected_resource_issuer(server_url),
            assertion=id_jag(given),
            token_dir=token_dir,
        )
    return gu.MCPOAuth(
        sign_in_page,
        client_id=given.get("client_id"),
        client_secret=given.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
        redirect_uri=REDIRECT_URI,
        client_name="ipygenui conformance client",
        token_dir=token_dir,
    )


def defaults_of(schema: dict[str, Any]) -> dict[str, Any]:
    """A form accepted as shown: every field with a default keeps it."""
    fields = schema.get("properties", {})
    return {name: field["default"] for name, field in fields.items() if "default" in field}


async def answer_forms(runtime: gu.Runtime, run: Any) -> None:
    """Accept each elicitation form the server shows during ``run``, unchanged."""
    answered: set[str] = set()
    while not run.done():
        message = runtime.thread.last_assistant
        for card in message.server_requests if message is not None else []:
            if card.tool_call_id in answered or card.args.get("mode") != "form":
                continue
            answered.add(card.tool_call_id)
            content = defaults_of(card.args.get("schema", {}))
            runtime.add_tool_result(card.tool_call_id, {"action": "accept", "content": content})
        await asyncio.sleep(0.02)


async def call(tools: gu.MCPTools, name: str, arguments: dict[str, Any]) -> Any:
    """Call one server tool as the chat's model would, through a headless runtime."""
    model = ScriptedModel([ScriptedCall(name, arguments), "done"])
    runtime = gu.Runtime(model=model, tools=[tools])
    run = asyncio.ensure_future(runtime.send(f"call {name}"))
    await answer_forms(runtime, run)
    message = await run
    result = message.tool_calls[0].result if message.tool_calls else None
    print(f"{name} -> {result!r}"[:2_000], file=sys.stderr)
    return result


SCENARIO_CALLS = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}


async def main(server_url: str) -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    token_dir = os.environ.get("IPYGENUI_MCP_TOKENS") or tempfile.mkdtemp(prefix="mcp-tokens-")
    tools = gu.MCPTools.http(
        server_url, auth=oauth_for(scenario, server_url, token_dir), requires_approval=False
    )
    try:
        await tools.connect()
        if scenario in SCENARIO_CALLS:
            await call(tools, *SCENARIO_CALLS[scenario])
        elif scenario.startswith("auth/"):
            listed = tools.as_tools()
            if listed:  # the scenario's server checks the token on a call too
                await call(tools, listed[0].name, {})
    finally:
        tools.close()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} <server-url>")
    asyncio.run(main(sys.argv[-1]))
