"""``Runtime.ag_ui_app()`` driven as an AG-UI client would, over HTTP (httpx's
ASGI transport), its events parsed with the protocol's own types.

Every client sends the app's token (``Authorization: Bearer``); the refusals
of the endpoint are in ``tests/faults/test_agui_server.py``.

Faults tried: a body that is no RunAgentInput; an input with nothing to run;
a human tool's answer sent back by the client resuming the waiting run;
another runtime's ``gu.AGUIAgent`` with and without the token; a human tool's
interrupt answered by a resume payload.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from ag_ui.core import (
    EventType,
    ToolMessage,
    UserMessage,
)

import ipygenui as gu
from agui_helpers import client_headers, parse_sse, post, run_input
from ipygenui.agui._sequence import check_sequence
from ipygenui.messages import Incomplete
from ipygenui.testing import ScriptedModel
from runtime_helpers import call


@gu.tool
def add(a: int, b: int) -> int:
    return a + b


@gu.tool(human=True)
def ask(question: str) -> str:
    """Ask the user."""
    raise AssertionError("never runs")


async def test_a_client_runs_the_runtime_and_reads_a_valid_stream() -> None:
    model = ScriptedModel([call("add", {"a": 2, "b": 3}, id="a1"), "It is 5."])
    rt = gu.Runtime(model=model, tools=[add])
    response = await post(rt.ag_ui_app(), run_input(UserMessage(id="u1", content="2+3?")))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    check_sequence(events)
    assert events[0].type == EventType.RUN_STARTED and events[-1].type == EventType.RUN_FINISHED
    text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert text == "It is 5."
    results = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    assert [(r.tool_call_id, json.loads(r.content)) for r in results] == [("a1", 5)]
    assert rt.thread.messages[0].text == "2+3?"


async def test_a_clients_tool_answer_resumes_the_waiting_run() -> None:
    model = ScriptedModel([call("ask", {"question": "colour?"}, id="h1"), "Blue it is."])
    rt = gu.Runtime(model=model, tools=[ask])
    app = rt.ag_ui_app()
    first = parse_sse((await post(app, run_input(UserMessage(id="u1", content="pick")))).text)
    assert first[-1].outcome.type == "interrupt"
    assert first[-1].outcome.interrupts[0].tool_call_id == "h1"
    answer = ToolMessage(id="r1", tool_call_id="h1", content="blue")
    second = parse_sse((await post(app, run_input(answer))).text)
    check_sequence(second)
    assert second[-1].type == EventType.RUN_FINISHED and second[-1].outcome.type == "success"
    assert rt.thread.messages[-1].tool_calls[0].result == "blue"
    assert rt.thread.messages[-1].text == "Blue it is."


async def test_bad_inputs_get_readable_http_errors() -> None:
    rt = gu.Runtime(model=ScriptedModel(["hi"]))
    app = rt.ag_ui_app()
    bad = await post(app, {"hello": "world"})
    assert bad.status_code == 422 and "not a RunAgentInput" in bad.json()["error"]
    empty = await post(app, run_input())
    assert empty.status_code == 400 and "nothing to run" in empty.json()["error"]
    assert rt.thread.messages == []


async def test_served_from_another_thread_the_runtime_runs_on_its_own_loop() -> None:
    """uvicorn in a background thread (as in a notebook), the runtime on this loop."""
    from agui_agents import serve

    model = ScriptedModel([call("add", {"a": 2, "b": 3}, id="a1"), "It is 5."])
    rt = gu.Runtime(model=model, tools=[add])
    seen_on: list[Any] = []
    rt.subscribe(lambda e: seen_on.append(asyncio.get_running_loop()))
    app = rt.ag_ui_app()
    with serve(app) as url:
        async with httpx.AsyncClient(timeout=30) as client:
            body = run_input(UserMessage(id="u1", content="2+3?"))
            response = await client.post(url, json=body, headers=client_headers(app))
    events = parse_sse(response.text)
    check_sequence(events)
    assert events[-1].type == EventType.RUN_FINISHED
    assert rt.thread.messages[-1].text == "It is 5."
    assert set(seen_on) == {asyncio.get_running_loop()}


async def test_another_runtimes_agui_agent_passes_the_token_in_its_headers() -> None:
    """``gu.AGUIAgent(url, headers=...)``: the client a notebook uses for an
    AG-UI agent, here pointed at a runtime served with its token."""
    from agui_agents import serve

    served = gu.Runtime(model=ScriptedModel(["Hello from the served runtime."]))
    app = served.ag_ui_app()
    with serve(app) as url:
        headers = {"Authorization": f"Bearer {app.token}"}
        client = gu.Runtime(agent=gu.AGUIAgent(url, headers=headers))
        reply = await client.send("hi")
        assert reply.text == "Hello from the served runtime."
        refused = await gu.Runtime(agent=gu.AGUIAgent(url)).send("hi")
    assert isinstance(refused.status, Incomplete) and "HTTP 401" in (refused.status.error or "")
    assert "Authorization: Bearer <token>" in (refused.status.error or "")
    assert served.thread.messages[0].text == "hi"
    assert len(served.thread.messages) == 2
    client.close()


async def test_a_resume_payload_answers_a_human_tools_interrupt() -> None:
    """AG-UI's own way: the interrupt named by the call, its answer the payload."""
    model = ScriptedModel([call("ask", {"question": "colour?"}, id="h1"), "Green it is."])
    rt = gu.Runtime(model=model, tools=[ask])
    app = rt.ag_ui_app()
    first = parse_sse((await post(app, run_input(UserMessage(id="u1", content="pick")))).text)
    (interrupt,) = first[-1].outcome.interrupts
    assert (interrupt.id, interrupt.reason) == ("h1", "input_required")
    body = run_input()
    body["resume"] = [{"interruptId": "h1", "status": "resolved", "payload": "green"}]
    second = parse_sse((await post(app, body)).text)
    check_sequence(second)
    assert second[-1].outcome.type == "success"
    assert rt.thread.messages[-1].tool_calls[0].result == "green"
    assert rt.thread.messages[-1].text == "Green it is."
