"""What an MCP server offers beside plain calls, through ``gu.MCPTools`` with
the test server (tests/mcp_server.py, written with the ``mcp`` SDK): progress
and log lines on the call's card (a progress token goes with every call),
resource links read through ``read_resource``, prompts as starters, content
for the user only kept from the model, roots only where the user allows
them, and a tool that runs only as a task left out."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.messages import Complete, RequiresAction
from ipygenui.persistence import load_thread, save_thread
from mcp_helpers import HostileServer, listed_tool, mcp_runtime
from runtime_helpers import assert_valid, call, tool_messages


async def test_progress_and_log_lines_of_a_call_reach_its_card_and_are_saved(
    files, tmp_path: Path
) -> None:
    runtime, model = mcp_runtime(files.tools(), call("steps", {"count": 3}, id="s1"))
    message = await runtime.send("take three steps")
    assert isinstance(message.status, Complete)
    part = message.tool_calls[0]
    assert part.result == {"result": "3 steps"}
    assert part.progress == 1.0  # 3 of 3, from the server's notifications
    assert part.status_message == "Step 3 of 3"
    assert part.log == [f"[info] steps: step {n} done" for n in (1, 2, 3)]
    # the model reads the result only, not the progress or the log
    assert tool_messages(model.requests[-1]) == {"s1": {"result": "3 steps"}}
    assert_valid(model)
    save_thread(runtime.thread, tmp_path / "thread.json")
    [loaded] = load_thread(tmp_path / "thread.json").messages[-1].tool_calls
    assert (loaded.progress, loaded.log) == (1.0, part.log)
    runtime.close()


async def test_a_resource_link_is_read_with_read_resource_after_approval(files) -> None:
    tools = files.tools(trust_annotations=False)
    runtime, model = mcp_runtime(
        tools,
        call("linked", id="l1"),
        call("read_resource", {"uri": "note://greeting"}, id="r1"),
    )
    message = await runtime.send("follow the link")
    assert isinstance(message.status, RequiresAction)  # linked asks (annotations not trusted)
    message = await runtime.approve("l1")
    assert isinstance(message.status, RequiresAction)
    [_, read] = message.tool_calls
    assert read.approval is not None and read.approval.status == "pending"
    assert "Reads a resource" in (read.approval.note or "")
    message = await runtime.approve("r1")
    assert isinstance(message.status, Complete)
    seen = tool_messages(model.requests[-1])
    assert seen["l1"]["content"] == [
        {"type": "resource_link", "uri": "note://greeting", "name": "greeting"}
    ]
    assert seen["r1"] == {
        "content": [
            {
                "type": "resource",
                "uri": "note://greeting",
                "mime_type": "text/plain",
                "text": "Hello from the greeting resource",
            }
        ]
    }
    assert_valid(model)
    runtime.close()


async def test_content_for_the_user_only_is_on_the_card_not_sent_to_the_model(files) -> None:
    runtime, model = mcp_runtime(files.tools(), call("linked", id="l1"))
    message = await runtime.send("link")
    part = message.tool_calls[0]
    assert part.result["for_user"] == {"text": "USER-ONLY: the link opens the greeting"}
    assert part.result["text"] == "see the greeting"
    sent = str(model.requests[-1].messages)
    assert "see the greeting" in sent
    assert "USER-ONLY" not in sent
    runtime.close()


async def test_a_servers_prompts_without_arguments_are_the_chats_starters(files) -> None:
    runtime = gu.Runtime(model=gu.testing.ScriptedModel(["hi"]), tools=[files.tools()])
    assert runtime.starters == ["Say hello to the test server"]  # ask_about needs a topic
    runtime.close()
    own = gu.Runtime(
        model=gu.testing.ScriptedModel(["hi"]), tools=[files.tools()], starters=["Mine"]
    )
    assert own.starters == ["Mine"]  # the user's own starters win
    own.close()


async def test_roots_are_advertised_only_when_the_user_allows_them(files, tmp_path: Path) -> None:
    async def folders(**kwargs: object) -> str:
        runtime, _ = mcp_runtime(files.tools(**kwargs), call("folders", id="f1"))
        message = await runtime.send("which folders?")
        runtime.close()
        return message.tool_calls[0].result["result"]

    assert (await folders()).startswith("no roots")  # not advertised: the server is refused
    assert (await folders(roots=False)).startswith("no roots")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    assert await folders(roots=[allowed]) == allowed.resolve().as_uri()
    assert await folders(roots=True) == Path(os.getcwd()).resolve().as_uri()


def test_roots_must_be_folders(files, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"write roots=\["):
        files.tools(roots=str(tmp_path))
    with pytest.raises(ValueError, match="is not a folder"):
        files.tools(roots=[tmp_path / "missing"])


async def test_a_task_only_tool_of_a_server_that_runs_no_tasks_is_left_out_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tools = HostileServer(tmp_path).tools(
        [
            listed_tool("later", execution={"taskSupport": "required"}),
            listed_tool("either", execution={"taskSupport": "optional"}),
            listed_tool("now"),
        ]
    )
    with caplog.at_level(logging.WARNING, logger="ipygenui"):
        runtime = gu.Runtime(model=gu.testing.ScriptedModel(["hi"]), tools=[tools])
    assert set(runtime.tools) == {"either", "now"}
    assert "MCP task" in tools.skipped["later"]
    [warning] = [r.getMessage() for r in caplog.records if "later" in r.getMessage()]
    assert tools.server in warning and "taskSupport" in warning
    runtime.close()
