"""MCP tasks against the reference server (``@modelcontextprotocol/server-everything``,
tests/peers), through ``gu.MCPTools.stdio`` in a chat: its task-only tool
``simulate-research-query`` offered, called as a task (its stages on the
call's card, its report fetched when done), asking the user mid-task
(``input_required``: the question is a card of this call, the answer reaches
the report), and cancelled on the server when the run is stopped; and the
other way round, its ``-async`` tools sending a sampling or elicitation
request as a task this client runs (the server polls it and reads its
result), answered in the chat as usual."""

from __future__ import annotations

import asyncio
import shutil
import time
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import Complete
from ipygenui.testing import ScriptedModel
from mcp_asking import card, sample_approved, until
from mcp_helpers import ASYNC_REQUESTS, EVERYTHING
from runtime_helpers import call

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not EVERYTHING.exists(),
    reason="needs Node and tests/peers installed (make installs them)",
)

RESEARCH = "simulate-research-query"


def research(*replies: Any) -> tuple[gu.Runtime, gu.MCPTools, ScriptedModel]:
    tools = gu.MCPTools.stdio("node", [str(EVERYTHING), "stdio"], requires_approval=False)
    model = ScriptedModel([*replies, "done"])
    return gu.Runtime(model=model, tools=[tools]), tools, model


def text_of(result: Any) -> str:
    return result if isinstance(result, str) else str(result.get("text", result))


async def test_a_task_only_tool_runs_as_a_task_its_stages_on_the_card() -> None:
    runtime, tools, _ = research(call(RESEARCH, {"topic": "tidal power"}, id="c1"))
    assert RESEARCH in runtime.tools and RESEARCH not in tools.skipped
    run = asyncio.ensure_future(runtime.send("research it"))
    seen: list[str] = []

    def stage() -> bool:
        reply = runtime.thread.last_assistant
        parts = reply.tool_calls if reply is not None else []
        said = parts[0].status_message if parts else None
        if said and said not in seen:
            seen.append(said)
        return bool(parts) and parts[0].has_result

    await until(stage, "the task's result")
    message = await run
    assert isinstance(message.status, Complete)
    part = message.tool_calls[0]
    assert not part.is_error, part.result
    report = text_of(part.result)
    assert report.startswith("# Research Report: tidal power")
    # the server's stages went by on the card: the first from its answer to the
    # call, later ones polled from tasks/get (a poll a second apart may miss one)
    working = [s for s in seen if s.startswith("Working: ")]
    assert working[0] == "Working: Gathering sources...", seen
    assert len(working) >= 2, seen
    runtime.close()


async def test_a_task_asking_the_user_shows_the_question_on_its_call() -> None:
    runtime, _, _ = research(
        call(RESEARCH, {"topic": "python", "ambiguous": True}, id="c1"), "summed up"
    )
    run = asyncio.ensure_future(runtime.send("research python"))
    form = await card(runtime)
    assert form.tool_name == "mcp_elicitation" and form.args["mode"] == "form"
    assert "interpretation" in form.args["schema"]["properties"]
    reply = runtime.thread.last_assistant
    assert reply is not None
    call_part = next(p for p in reply.tool_calls if p.tool_call_id == "c1")
    assert call_part.status_message == "Waiting for your answer: " + (
        'Found multiple interpretations for "python". Requesting clarification...'
    )
    runtime.add_tool_result(
        form.tool_call_id, {"action": "accept", "content": {"interpretation": "snake"}}
    )
    message = await run
    report = text_of(message.tool_calls[0].result)
    assert report.startswith("# Research Report: python (snake)"), report
    runtime.close()


async def test_stop_cancels_the_task_on_the_server() -> None:
    runtime, tools, _ = research(call(RESEARCH, {"topic": "slow"}, id="c1"))
    sent: list[tuple[str, dict[str, Any]]] = []
    connection = tools._connection
    assert connection is not None and connection.session is not None
    session: Any = connection.session
    send_raw = session.send_raw

    async def spying(method: str, params: dict[str, Any], timeout: float | None) -> Any:
        sent.append((method, params))
        return await send_raw(method, params, timeout)

    session.send_raw = spying
    run = asyncio.ensure_future(runtime.send("research slowly"))
    await until(lambda: any(m == "tasks/get" for m, _ in sent), "the task polled")
    started = time.monotonic()
    runtime.cancel()
    message = await run
    assert time.monotonic() - started < 10
    assert not isinstance(message.status, Complete)
    await until(lambda: any(m == "tasks/cancel" for m, _ in sent), "tasks/cancel sent")
    created = next(p for m, p in sent if m == "tasks/get")["taskId"]
    assert next(p for m, p in sent if m == "tasks/cancel") == {"taskId": created}
    runtime.close()


async def test_a_server_that_does_not_run_tasks_keeps_its_task_only_tool_out() -> None:
    runtime, tools, _ = research()
    connection = tools._connection
    assert connection is not None and connection.session is not None
    capabilities: Any = connection.session.server_capabilities
    capabilities.tasks = None  # as a server without capabilities.tasks says
    tools._tools = None
    offered = {tool.name for tool in tools.as_tools()}
    assert RESEARCH not in offered
    assert "capabilities.tasks" in tools.skipped[RESEARCH]
    runtime.close()


# --- the server's requests run as tasks of this client ------------------------------------


async def test_its_sampling_request_as_a_task_is_answered_after_the_users_approvals() -> None:
    runtime, _, _ = research(
        call("trigger-sampling-request-async", {"prompt": "a limerick", "maxTokens": 40}, id="c1"),
        "A limerick from the chat's model",
    )
    assert set(runtime.tools) >= ASYNC_REQUESTS
    run = asyncio.ensure_future(runtime.send("ask me later"))
    await sample_approved(runtime, "a limerick")
    message = await run
    said = text_of(message.tool_calls[0].result)
    # the server created the task, polled it and read its result
    assert said.startswith("[COMPLETED] Async sampling completed!"), said
    assert "Task created: ipygenui-task-" in said and "Poll 1:" in said
    assert "A limerick from the chat's model" in said
    runtime.close()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            {"action": "accept", "content": {"name": "Ada", "favoriteColor": "Blue"}},
            "[COMPLETED] User provided the requested information!",
        ),
        ({"action": "decline"}, "[DECLINED] User declined"),
    ],
)
async def test_its_form_as_a_task_is_answered_in_the_chat(answer: dict, expected: str) -> None:
    runtime, _, _ = research(call("trigger-elicitation-request-async", {}, id="c1"))
    run = asyncio.ensure_future(runtime.send("ask me later"))
    form = await card(runtime)
    assert (
        form.tool_name == "mcp_elicitation" and "favoriteColor" in form.args["schema"]["properties"]
    )
    runtime.add_tool_result(form.tool_call_id, answer)
    message = await run
    said = text_of(message.tool_calls[0].result)
    assert expected in said, said
    if answer["action"] == "accept":
        assert "Ada" in said and "Blue" in said
    runtime.close()
