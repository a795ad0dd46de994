"""``gu.AGUIAgent``: a real pydantic-ai agent behind its own AG-UI adapter,
served by uvicorn on a loopback port, driven from a chat.

Faults tried:
- an approval-gated frontend tool running before the user approves (or at all
  when rejected); the agent not receiving its result on the next run;
- state deltas (JSON Patch) not reaching ``chat.agent_state``; a delta that does
  not apply; CUSTOM events not reaching the thread listeners;
- the URL down, an HTML page instead of an event stream, an HTTP error,
  events out of order, RUN_ERROR, a stream cut before RUN_FINISHED, an event
  the protocol does not know: each a readable error naming the URL and what
  broke, and the thread valid for the next run;
- the agent's stream not streaming into the message like a model's (patch
  events before the step's end), and the stream the runtime re-emits breaking
  the protocol's rules;
- the agent's own approval-gated tool (an AG-UI interrupt) not shown as an
  approval card, run before the user decides, or the agent not resumed with
  the decision (approved: it runs the tool and answers; rejected: it reads
  the reason); the run input without ``protocolVersion``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from ag_ui.core import (
    CustomEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import ipygenui as gu
from agui_agents import (
    DELETED,
    RAN,
    agui_app,
    drop_table,
    failing_agent,
    free_port,
    gated_agent,
    ops_agent,
    serve,
)
from agui_verifier import StreamVerifier
from ipygenui.events import AgentCustomEvent, MessagePatched, MessageReplaced
from ipygenui.messages import Complete, Incomplete, RequiresAction


@pytest.fixture(autouse=True)
def _reset() -> None:
    RAN.clear()
    DELETED.clear()


@pytest.fixture(scope="module")
def ops_url() -> Iterator[str]:
    with serve(agui_app(ops_agent())) as url:
        yield url


def ops_chat(url: str) -> gu.Chat:
    return gu.Chat(agent=gu.AGUIAgent(url), tools=[drop_table], components=[gu.Metric])


async def test_an_agent_drives_a_component_and_an_approved_tool(ops_url: str) -> None:
    chat = ops_chat(ops_url)
    verifier = StreamVerifier(chat.runtime)
    events: list[Any] = []
    chat.runtime.subscribe(events.append)
    message = await chat.send("drop table t")
    assert isinstance(message.status, RequiresAction)
    calls = {p.tool_name: p for p in message.tool_calls}
    assert calls["remember"].result == "noted"  # the agent's own tool, answered by it
    assert calls["show_component_Metric"].args == {"metrics": [{"label": "rows", "value": 42}]}
    assert calls["show_component_Metric"].has_result  # shown in the kernel's widget
    assert calls["drop_table"].approval is not None and not calls["drop_table"].has_result
    assert RAN == []  # nothing runs before the user approves
    assert chat.agent_state == {"note": "drop t"}  # the agent's STATE_DELTA
    streamed = [e for e in events if isinstance(e, MessagePatched)]
    first_replace = next(i for i, e in enumerate(events) if isinstance(e, MessageReplaced))
    assert streamed and events.index(streamed[0]) < first_replace  # streamed like a model's

    run = chat.approve("d1")
    assert run is not None
    final = await run
    assert RAN == ["t"]
    assert isinstance(final.status, Complete)
    assert final.text.endswith("Done: dropped t.")  # the agent read the result
    assert verifier.errors == []


async def test_a_rejected_call_never_runs_and_the_agent_hears_why(ops_url: str) -> None:
    chat = ops_chat(ops_url)
    await chat.send("drop table t")
    final = await chat.reject("d1", "not today")  # type: ignore[misc]
    assert RAN == []
    assert "not today" in final.text
    assert isinstance(final.status, Complete)


async def test_the_agent_is_sent_the_thread_tools_and_state(ops_url: str) -> None:
    agent = gu.AGUIAgent(ops_url, context={"user": "ada"})
    rt = gu.Runtime(agent=agent, tools=[drop_table], components=[gu.Metric])
    rt.set_agent_state({"notes": ["old"]})
    await rt.send("drop table t")
    from ipygenui.models.agent import AgentRequest

    request = AgentRequest(
        thread_id=rt.thread.id,
        messages=rt.thread.messages,
        tools=[t.openai_schema(standard_parameters=True) for t in rt.tools.values()],
        state=rt.agent_state,
    )
    data = agent.run_input(request)
    assert {t.name for t in data.tools or ()} >= {"drop_table", "show_component_Metric"}
    assert data.context is not None and data.context[0].value == "ada"
    assert rt.agent_state == {"notes": ["old"], "note": "drop t"}  # the delta patched what we sent
    roles = [m.role for m in data.messages]
    assert roles[0] == "user" and "tool" in roles


@pytest.fixture(scope="module")
def gated_url() -> Iterator[str]:
    with serve(agui_app(gated_agent())) as url:
        yield url


async def test_the_agents_own_gated_tool_is_approved_in_the_chat(gated_url: str) -> None:
    chat = gu.Chat(agent=gu.AGUIAgent(gated_url), tools=[drop_table])
    verifier = StreamVerifier(chat.runtime)
    message = await chat.send("delete everything")
    assert isinstance(message.status, RequiresAction)
    (call,) = message.tool_calls
    assert call.tool_name == "delete_everything" and call.args == {"where": "prod"}
    assert call.approval is not None and call.approval.status == "pending"
    assert call.approval.note == 'The agent asks: Approve delete_everything({"where":"prod"})?'
    assert not call.has_result and DELETED == []  # the agent waits for the user
    final = await chat.approve("x1")  # type: ignore[misc]
    assert DELETED == ["prod"]  # the agent ran its own tool, once
    assert RAN == []
    assert call.result == "deleted prod" and not call.is_error
    assert call.approval.status == "approved" and call.approval.decided_by == "code"
    assert isinstance(final.status, Complete)
    assert final.text.endswith("The agent read: deleted prod.")
    assert verifier.errors == []


async def test_a_kernel_call_and_the_agents_gated_call_in_one_step(gated_url: str) -> None:
    chat = gu.Chat(agent=gu.AGUIAgent(gated_url), components=[gu.Metric])
    message = await chat.send("delete everything")
    metric, gated = message.tool_calls
    assert metric.has_result and metric.approval is None  # shown in the kernel at once
    assert gated.approval is not None and gated.approval.status == "pending"
    final = await chat.approve("x1")  # type: ignore[misc]
    assert DELETED == ["prod"]  # the kernel's result and the resume went together
    assert final.text.endswith("The agent read: deleted prod.")


async def test_the_agents_own_gated_tool_rejected_with_a_reason(gated_url: str) -> None:
    chat = gu.Chat(agent=gu.AGUIAgent(gated_url))
    await chat.send("delete everything")
    final = await chat.reject("x1", "not today")  # type: ignore[misc]
    assert DELETED == []
    (call,) = final.tool_calls
    assert call.is_error and "not today" in json.dumps(call.result)
    assert isinstance(final.status, Complete)
    assert final.text.endswith("The agent read: not today.")  # the agent heard why


async def test_the_agents_own_gated_tool_approved_with_edited_arguments(gated_url: str) -> None:
    chat = gu.Chat(agent=gu.AGUIAgent(gated_url))
    await chat.send("delete everything")
    final = await chat.approve("x1", args={"where": "staging"})  # type: ignore[misc]
    assert DELETED == ["staging"]  # the agent ran what the user approved
    (call,) = final.tool_calls
    assert call.args == {"where": "staging"} and call.approval is not None
    assert call.approval.edited
    assert final.text.endswith("The agent read: deleted staging.")


def test_the_run_input_declares_the_protocol_version_and_resumes() -> None:
    from ipygenui.agui._state_limits import StateLimits
    from ipygenui.models.agent import AgentDecision, AgentRequest

    agent = gu.AGUIAgent("http://127.0.0.1:1/")
    rt = gu.Runtime(agent=agent, tools=[drop_table])
    request = AgentRequest(
        thread_id="t",
        messages=[],
        tools=[t.openai_schema(standard_parameters=True) for t in rt.tools.values()],
        state={},
        resume=[
            AgentDecision("int-x1", "x1", False, "no"),
            AgentDecision("int-x2", "x2", True, args={"where": "staging"}),
        ],
    )
    data, _ = agent._body(request, StateLimits())
    assert data["protocolVersion"] == "1.0"
    assert [t["name"] for t in data["tools"]] == ["drop_table"]
    assert data["resume"] == [
        {
            "interruptId": "int-x1",
            "status": "resolved",
            "payload": {"approved": False, "reason": "no"},
        },
        {
            "interruptId": "int-x2",
            "status": "resolved",
            "payload": {"approved": True, "editedArgs": {"where": "staging"}},
        },
    ]


def scripted_app(kind: str) -> Starlette:
    """An agent server that misbehaves in one way (``kind``)."""
    encoder = EventEncoder()

    def sse(events: list[Any], cut: bool = False) -> Response:
        async def body() -> Any:
            for event in events:
                yield encoder.encode(event)

        return StreamingResponse(body(), media_type="text/event-stream")

    async def run(request: Request) -> Response:
        data = await request.json()
        start = RunStartedEvent(thread_id=data["threadId"], run_id=data["runId"])
        finish = RunFinishedEvent(thread_id=data["threadId"], run_id=data["runId"])
        if kind == "html":
            return HTMLResponse("<html><body>Login</body></html>")
        if kind == "http-500":
            return JSONResponse({"detail": "the agent crashed"}, status_code=500)
        if kind == "out-of-order":
            return sse([start, TextMessageContentEvent(message_id="m", delta="hi"), finish])
        if kind == "run-error":
            text = TextMessageStartEvent(message_id="m")
            content = TextMessageContentEvent(message_id="m", delta="Partial")
            return sse([start, text, content, RunErrorEvent(message="quota exceeded")])
        if kind == "cut":
            return sse([start, TextMessageStartEvent(message_id="m")])
        if kind == "slow":

            async def slow() -> Any:
                yield encoder.encode(start)
                yield encoder.encode(TextMessageStartEvent(message_id="m"))
                yield encoder.encode(TextMessageContentEvent(message_id="m", delta="Thinking"))
                await asyncio.sleep(600)

            return StreamingResponse(slow(), media_type="text/event-stream")
        if kind == "not-agui":

            async def junk() -> Any:
                yield f"data: {json.dumps({'type': 'RUN_STARTED', 'threadId': 1})}\n\n"

            return StreamingResponse(junk(), media_type="text/event-stream")
        if kind == "bad-delta":
            bad = StateDeltaEvent(delta=[{"op": "replace", "path": "/missing/x", "value": 1}])
            return sse([start, bad, finish])
        assert kind == "good"
        return sse(
            [
                start,
                CustomEvent(name="progress", value={"done": 1}),
                TextMessageStartEvent(message_id="m"),
                TextMessageContentEvent(message_id="m", delta="All good."),
                TextMessageEndEvent(message_id="m"),
                finish,
            ]
        )

    return Starlette(routes=[Route("/", run, methods=["POST"])])


BAD = {
    "html": "text/html",
    "http-500": "HTTP 500",
    "out-of-order": "TEXT_MESSAGE_CONTENT for message m, which is not open",
    "run-error": "failed: quota exceeded",
    "cut": "closed its event stream before RUN_FINISHED",
    "not-agui": "not AG-UI",
    "bad-delta": "STATE_DELTA that does not apply",
}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    with contextlib.ExitStack() as stack:
        kinds = [*BAD, "good", "slow"]
        yield {kind: stack.enter_context(serve(scripted_app(kind))) for kind in kinds}


@pytest.mark.parametrize("kind", list(BAD))
async def test_a_misbehaving_agent_gets_a_readable_error(
    kind: str, servers: dict[str, str]
) -> None:
    url = servers[kind]
    rt = gu.Runtime(agent=gu.AGUIAgent(url))
    message = await rt.send("hello")
    assert isinstance(message.status, Incomplete) and message.status.reason == "error"
    error = message.status.error or ""
    assert url in error and BAD[kind] in error, error
    if kind == "run-error":
        assert message.text == "Partial"  # what streamed is kept
    rt.agent = gu.AGUIAgent(servers["good"])  # the thread stays valid for the next run
    custom: list[Any] = []
    rt.subscribe(lambda e: custom.append(e) if isinstance(e, AgentCustomEvent) else None)
    again = await rt.send("again")
    assert isinstance(again.status, Complete) and again.text == "All good."
    assert custom == [AgentCustomEvent("progress", {"done": 1})]


async def test_an_agent_that_is_down_says_so() -> None:
    url = f"http://127.0.0.1:{free_port()}/"
    rt = gu.Runtime(agent=gu.AGUIAgent(url, timeout=5))
    message = await rt.send("hello")
    assert isinstance(message.status, Incomplete)
    assert "not reachable" in (message.status.error or "") and url in (message.status.error or "")


def test_an_agent_needs_an_http_url_and_chat_needs_an_agent() -> None:
    with pytest.raises(ValueError, match="http"):
        gu.AGUIAgent("localhost:8000")
    with pytest.raises(TypeError, match="agent"):
        gu.Runtime(agent="http://localhost:8000")  # type: ignore[arg-type]


async def test_cancel_while_the_agent_streams_keeps_the_text(servers: dict[str, str]) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers["slow"]))
    verifier = StreamVerifier(rt)
    streamed = asyncio.Event()
    rt.subscribe(lambda e: streamed.set() if isinstance(e, MessagePatched) else None)
    run = rt.send("hello")
    await asyncio.wait_for(streamed.wait(), 30)
    rt.cancel()
    message = await run
    assert isinstance(message.status, Incomplete) and message.status.reason == "cancelled"
    assert message.text == "Thinking"
    assert verifier.errors == []
    assert not rt.running


async def test_a_real_agents_run_error_ends_the_reply_with_its_words_kept() -> None:
    # pydantic-ai's own AG-UI adapter turns the model's failure into RUN_ERROR
    with serve(agui_app(failing_agent())) as url:
        rt = gu.Runtime(agent=gu.AGUIAgent(url))
        message = await rt.send("hello")
        assert isinstance(message.status, Incomplete) and message.status.reason == "error"
        error = message.status.error or ""
        assert url in error and "the model's quota is exhausted" in error, error
        assert message.text == "Let me check. "  # what streamed is kept
        rt.agent = gu.AGUIAgent(url)
        again = await rt.send("again")  # the thread stays usable
        assert isinstance(again.status, Incomplete) and again.status.reason == "error"
        assert [m.role for m in rt.thread.messages] == ["user", "assistant", "user", "assistant"]
