"""Faults tried against MCP tool servers (``gu.MCPTools``, the real test server
tests/mcp_server.py over stdio).

- A command that does not exist, and one that starts and exits at once: the
  error names the command and quotes its stderr; building the chat raises it.
- The server killed while idle: the next call restarts it once and runs;
  two parallel calls that both find it dead restart it once between them.
- The server dying during a read-only call: restarted, the call repeated.
- The server dying during a call that may write: restarted, the call not
  repeated; the model reads an error saying so, with the stderr tail; the next
  call works.
- A run cancelled while a call waits on the server: the run ends cancelled
  and the same connection answers the next call.
- The server dead and refusing to start again: a clear error result naming
  the command, its stderr tail; the chat stays usable.
- ``requires_approval`` naming a tool the server does not offer (a typo would
  let the meant tool run unasked), or of a wrong type.
- The ``mcp`` SDK missing: an ImportError naming the extra.
- Raw JSON schemas: an unusable one is refused; without ``jsonschema`` the
  basics are still checked; a tool's own ``ToolError`` is its error result.
"""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

import ipygenui as gu
from ipygenui._internal import json_schema_check
from ipygenui.mcp_tools import MCPConnectionError
from ipygenui.messages import Complete, Incomplete
from mcp_helpers import alive, mcp_runtime
from runtime_helpers import call, tool_messages

# --- starting -----------------------------------------------------------------------


def test_a_command_that_does_not_exist_is_named() -> None:
    mcp = gu.MCPTools.stdio("/no/such/mcp-server", ["--flag"])
    try:
        with pytest.raises(MCPConnectionError) as caught:
            gu.Runtime(model=gu.ScriptedModel(["hi"]), tools=[mcp])
    finally:
        mcp.close()
    text = str(caught.value)
    assert "`/no/such/mcp-server --flag` failed to start" in text
    assert "No such file" in text or "FileNotFoundError" in text


def test_a_server_that_exits_at_start_shows_its_stderr_tail() -> None:
    script = "import sys; print('config missing: ~/.server.toml', file=sys.stderr); sys.exit(2)"
    mcp = gu.MCPTools.stdio(sys.executable, ["-c", script])
    try:
        with pytest.raises(MCPConnectionError) as caught:
            mcp.as_tools()
    finally:
        mcp.close()
    text = str(caught.value)
    assert "failed to start" in text
    assert sys.executable in text
    assert text.endswith("Its stderr ended with:\nconfig missing: ~/.server.toml")


# --- dying ---------------------------------------------------------------------------


async def test_a_server_killed_while_idle_is_restarted_for_the_next_call(files) -> None:
    mcp = files.tools()
    runtime, _ = mcp_runtime(mcp, call("lookup", {"key": "a"}, id="c1"))
    old = files.kill()
    message = await runtime.send("look")
    assert message.tool_calls[0].result == {"result": "value of a"}
    assert mcp.restarts == 1
    assert files.pid() != old and alive(files.pid())
    runtime.close()


async def test_parallel_calls_finding_the_server_dead_restart_it_once(files) -> None:
    mcp = files.tools()
    both = [call("lookup", {"key": "a"}, id="c1"), call("lookup", {"key": "b"}, id="c2")]
    runtime, _ = mcp_runtime(mcp, both)
    files.kill()
    message = await runtime.send("look twice")
    assert [p.result for p in message.tool_calls] == [
        {"result": "value of a"},
        {"result": "value of b"},
    ]
    assert mcp.restarts == 1
    runtime.close()


async def test_a_server_dying_during_a_read_only_call_is_restarted_and_the_call_repeated(
    files,
) -> None:
    mcp = files.tools()
    runtime, _ = mcp_runtime(mcp, call("lookup", {"key": "b"}, id="c1"))
    first = files.pid()
    files.crash_flag.write_text("once")
    message = await runtime.send("look")
    assert not files.crash_flag.exists()  # the server did die in the call
    assert not alive(first)
    assert message.tool_calls[0].result == {"result": "value of b"}
    assert mcp.restarts == 1
    runtime.close()


async def test_a_server_dying_during_a_write_call_is_restarted_but_the_call_not_repeated(
    files,
) -> None:
    mcp = files.tools(requires_approval=False)
    runtime, model = mcp_runtime(
        mcp, call("crash", {}, id="x1"), "it failed", call("lookup", {"key": "c"}, id="c2")
    )
    message = await runtime.send("crash it")
    part = message.tool_calls[0]
    assert part.is_error
    error = part.result["error"]
    assert "stopped during the call to crash" in error
    assert "was not repeated" in error
    assert part.result["stderr"].endswith("about to crash")
    assert tool_messages(model.requests[-1])["x1"] == part.result
    assert mcp.restarts == 1
    message = await runtime.send("again")  # the restarted server answers
    assert message.tool_calls[0].result == {"result": "value of c"}
    runtime.close()


async def test_a_run_cancelled_during_a_call_leaves_the_connection_usable(files) -> None:
    mcp = files.tools()
    runtime, _ = mcp_runtime(mcp, call("slow", {}, id="s1"), call("lookup", {"key": "e"}))
    pid = files.pid()
    run = runtime.send("take your time")
    deadline = time.monotonic() + 30  # setup: wait until the server is in the call
    while not files.started.exists():
        assert time.monotonic() < deadline, "the slow tool never started"
        await asyncio.sleep(0.05)
    runtime.cancel()
    message = await run
    assert isinstance(message.status, Incomplete)
    assert message.status.reason == "cancelled"
    message = await runtime.send("now look")
    assert message.tool_calls[0].result == {"result": "value of e"}
    assert mcp.restarts == 0
    assert files.pid() == pid  # the same server process
    runtime.close()


async def test_a_server_that_cannot_restart_gives_a_clear_error_and_the_chat_goes_on(
    files,
) -> None:
    mcp = files.tools()
    runtime, _ = mcp_runtime(mcp, call("lookup", {"key": "d"}, id="c1"))
    files.refuse_flag.write_text("no")
    files.kill()
    message = await runtime.send("look")
    assert isinstance(message.status, Complete)
    part = message.tool_calls[0]
    assert part.is_error
    error = part.result["error"]
    assert "stopped before lookup was called" in error
    assert "could not be restarted" in error
    assert "refuses to start: the refuse flag is set" in error
    runtime.close()


# --- definitions ---------------------------------------------------------------------


def test_requires_approval_naming_an_unknown_tool_is_refused(files) -> None:
    mcp = files.tools(requires_approval={"write_notes"})  # a typo of write_note
    with pytest.raises(ValueError, match="does not offer: write_notes"):
        gu.Runtime(model=gu.ScriptedModel(["hi"]), tools=[mcp])
    assert not mcp.connected  # the failed chat closed what it opened


def test_requires_approval_of_a_wrong_type_is_refused() -> None:
    with pytest.raises(TypeError, match="requires_approval"):
        gu.MCPTools.stdio(sys.executable, [], requires_approval="write_note")  # type: ignore[arg-type]


def test_the_missing_sdk_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(ImportError, match=r"ipygenui\[mcp\]"):
        gu.MCPTools.stdio(sys.executable, [])
    with pytest.raises(ImportError, match=r"ipygenui\[mcp\]"):
        gu.MCPTools.http("http://127.0.0.1:1/mcp")


def test_an_unusable_schema_is_refused() -> None:
    with pytest.raises(gu.ToolDefinitionError, match="must describe an object"):
        gu.Tool.from_json_schema("t", {"type": "string"}, lambda args: args)
    with pytest.raises(gu.ToolDefinitionError, match="invalid JSON schema"):
        gu.Tool.from_json_schema("t", {"type": "object", "required": "x"}, lambda args: args)
    with pytest.raises(gu.ToolDefinitionError, match="not JSON"):
        gu.Tool.from_json_schema("t", {"type": "object", "default": float("nan")}, print)


SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "tags": {"type": "array"}},
    "required": ["n"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("with_jsonschema", [True, False])
def test_schema_arguments_are_checked_with_or_without_jsonschema(
    monkeypatch, with_jsonschema: bool
) -> None:
    if not with_jsonschema:
        monkeypatch.setitem(sys.modules, "jsonschema", None)
    tool = gu.Tool.from_json_schema("t", SCHEMA, lambda args: args)
    assert tool.validate({"n": 3, "tags": []}).model_dump() == {"n": 3, "tags": []}
    for bad, where in (({}, "n"), ({"n": "3"}, "n"), ({"n": 1, "x": 2}, "x"), ({"n": True}, "n")):
        with pytest.raises(gu.ToolArgumentsError) as caught:
            tool.validate(bad)
        assert where in str(caught.value)
    assert json_schema_check is not None


async def test_a_tools_own_tool_error_is_its_error_result() -> None:
    async def refuse(args: dict) -> None:
        raise gu.ToolError({"error": "quota exceeded", "retry_after": 60})

    tool = gu.Tool.from_json_schema("refuse", {"type": "object"}, refuse)
    runtime = gu.Runtime(model=gu.ScriptedModel([call("refuse", {}, id="r1"), "ok"]), tools=[tool])
    message = await runtime.send("go")
    part = message.tool_calls[0]
    assert part.is_error
    assert part.result == {"error": "quota exceeded", "retry_after": 60}


def test_a_closed_server_is_not_handed_to_a_new_chat(files) -> None:
    mcp = files.tools()
    first = gu.Runtime(model=gu.ScriptedModel(["hi"]), tools=[mcp])
    first.close()
    with pytest.raises(MCPConnectionError, match="was closed with its chat"):
        gu.Runtime(model=gu.ScriptedModel(["hi"]), tools=[mcp])
