"""The official AG-UI client (``@ag-ui/client``'s ``HttpAgent``, installed in
``tests/peers``) driven from a test: ``drive`` runs ``tests/peers/agui_client.mjs``
on a scenario (turns of messages to add, resume entries, tools, state) against
a served URL and returns what the client saw each turn: the events its own
verifier let through, ``newMessages``, the error a run threw (verifier errors
and HTTP refusals included), and its rebuilt ``messages``, ``state`` and
``pendingInterrupts``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

PEERS = Path(__file__).resolve().parent / "peers"
DRIVER = PEERS / "agui_client.mjs"


def official_client_available() -> None:
    """Skip unless Node and the installed peers are there (``make`` installs them)."""
    if shutil.which("node") is None:
        pytest.skip("needs node")
    if not (PEERS / "node_modules" / "@ag-ui" / "client").is_dir():
        pytest.skip("needs the peers: cd tests/peers && npm ci")


async def drive(url: str, token: str, turns: list[dict[str, Any]], **scenario: Any) -> list[Any]:
    """Run ``turns`` with the official client; one report per turn.

    Awaited, not run blocking: the runtime it talks to may run on this loop.
    """
    body = json.dumps({"url": url, "token": token, "turns": turns, **scenario}).encode()
    process = await asyncio.create_subprocess_exec(
        "node",
        str(DRIVER),
        cwd=PEERS,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(body), 120)
    assert process.returncode == 0, err.decode()[-4000:]
    reports: list[Any] = json.loads(out)["turns"]
    return reports
