"""Shared helpers for the MCP tests: the test server (tests/mcp_server.py) run
over stdio by ``gu.MCPTools``, with its side files in a temporary folder; the
hostile server (tests/mcp_hostile_server.py) listing the tools a test writes;
the MCP reference server (``@modelcontextprotocol/server-everything``,
installed in tests/peers)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.testing import ScriptedModel

SERVER = str(Path(__file__).with_name("mcp_server.py"))
HOSTILE_SERVER = str(Path(__file__).with_name("mcp_hostile_server.py"))

EVERYTHING = (
    Path(__file__).parent
    / "peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)

SAMPLING_AND_ELICITATION = {
    "trigger-sampling-request",
    "trigger-elicitation-request",
    "trigger-url-elicitation",
}
"""The reference server's tools listed once the client advertises sampling /
elicitation (tests/mcp/test_mcp_everything_requests.py calls them)."""

ASYNC_REQUESTS = {"trigger-sampling-request-async", "trigger-elicitation-request-async"}
"""Listed once the client also runs sampling and elicitation as tasks
(tests/mcp/test_mcp_everything_tasks.py calls them)."""


@dataclass
class ServerFiles:
    """The files the test server reads and writes (see tests/mcp_server.py)."""

    folder: Path
    opened: list[Any] = field(default_factory=list)

    @property
    def notes(self) -> Path:
        return self.folder / "notes.txt"

    @property
    def pid_file(self) -> Path:
        return self.folder / "server.pid"

    @property
    def crash_flag(self) -> Path:
        return self.folder / "crash-next-lookup"

    @property
    def started(self) -> Path:
        return self.folder / "slow-started"

    @property
    def refuse_flag(self) -> Path:
        return self.folder / "refuse-to-start"

    def env(self) -> dict[str, str]:
        return {
            "MCP_TEST_NOTES": str(self.notes),
            "MCP_TEST_PID": str(self.pid_file),
            "MCP_TEST_CRASH_FLAG": str(self.crash_flag),
            "MCP_TEST_REFUSE": str(self.refuse_flag),
            "MCP_TEST_STARTED": str(self.started),
        }

    def tools(self, **kwargs: Any) -> gu.MCPTools:
        """An MCPTools on a fresh test server, closed when the test ends. The
        test server is ours: its read-only marks are trusted unless a test
        passes ``trust_annotations=False``."""
        kwargs.setdefault("trust_annotations", True)
        tools = gu.MCPTools.stdio(sys.executable, [SERVER], env=self.env(), **kwargs)
        self.opened.append(tools)
        return tools

    def pid(self) -> int:
        return int(self.pid_file.read_text())

    def kill(self) -> int:
        """Kill the running server process (as a crash would); its pid."""
        pid = self.pid()
        os.kill(pid, signal.SIGKILL)
        return pid


@contextlib.contextmanager
def listening(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[None]:
    """``command`` run until the block ends, once it listens on loopback ``port``."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30  # setup only: wait until it listens
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{command[-2:]} did not start listening") from None
                time.sleep(0.1)
        yield
    finally:
        process.terminate()
        process.wait(10)


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def mcp_runtime(tools: gu.MCPTools, *replies: object) -> tuple[gu.Runtime, ScriptedModel]:
    """A runtime with ``tools`` whose scripted model says ``replies``, then "done"."""
    model = ScriptedModel([*replies, "done"])  # type: ignore[list-item]
    return gu.Runtime(model=model, tools=[tools]), model


@pytest.fixture
def files(tmp_path: Path) -> Iterator[ServerFiles]:
    """Files of a test MCP server (its notes, pid, flags); its connections close after the test."""
    made = ServerFiles(tmp_path)
    yield made
    for tools in made.opened:
        tools.close()


@dataclass
class HostileServer:
    """The hostile test server (tests/mcp_hostile_server.py) and the file of its calls."""

    folder: Path
    opened: list[Any] = field(default_factory=list)

    @property
    def calls(self) -> Path:
        return self.folder / "hostile-calls.txt"

    def tools(
        self,
        listed: list[dict[str, Any]],
        results: dict[str, Any] | None = None,
        info: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> gu.MCPTools:
        """An MCPTools on a server listing ``listed`` (tools in the protocol's
        form); ``results``: the structured content a tool answers with;
        ``info``: the ``serverInfo`` it gives (``name``, ``title``)."""
        env = {
            "MCP_HOSTILE_TOOLS": json.dumps(listed),
            "MCP_HOSTILE_RESULTS": json.dumps(results or {}),
            "MCP_HOSTILE_CALLS": str(self.calls),
            "MCP_HOSTILE_INFO": json.dumps(info or {}),
        }
        tools = gu.MCPTools.stdio(sys.executable, [HOSTILE_SERVER], env=env, **kwargs)
        self.opened.append(tools)
        return tools

    def ran(self) -> list[str]:
        """The tools the server ran, in order."""
        return self.calls.read_text().split() if self.calls.exists() else []


def listed_tool(name: str, schema: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A tool as a server lists it: ``name``, an input schema, more fields as given."""
    return {"name": name, "inputSchema": schema or {"type": "object"}, **fields}
