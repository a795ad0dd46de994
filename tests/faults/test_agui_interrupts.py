"""``gu.AGUIAgent`` and an agent's own interrupts: what the chat shows and
sends when an agent pauses its run for the user's approval, and how it
refuses the interrupts it cannot show.

Scripted agent servers (Starlette on uvicorn, 127.0.0.1) each misbehave in
one way; a real pydantic-ai agent behind its own AG-UI adapter is the
well-behaved peer.

Faults tried:
- an interrupt for a call the run did not make, for no call at all, for a
  call of the chat's own (kernel) tool, for a call the agent answered in
  the same run: each a readable error, nothing shown to approve, nothing run;
- malformed interrupts (an empty list, no id): not AG-UI, a readable error;
- an agent that interrupts again for the call the user just decided, and
  one that interrupts for a new call forever: refused, and stopped by
  ``max_steps`` (with an "always allow" grant too); the resume payload each
  time as the user decided;
- a rejected call the agent reports as run anyway: the rejection stands;
- a new message while the approval waits: the call is not run, the next
  run resumes the interrupt as ``cancelled`` (AG-UI lets none stay open;
  the real agent reads its own "Cancelled by user."), once, and a late
  approve is refused;
- a reload (a new kernel on the saved thread) while the approval is
  pending: the card asks again, and the decision resumes the real agent.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

import ipygenui as gu
from agui_agents import DELETED, RAN, agui_app, drop_table, gated_agent, serve
from ipygenui.messages import Complete, Incomplete, RequiresAction

RECEIVED: dict[str, list[dict[str, Any]]] = {}
"""kind -> the bodies the scripted agent was sent."""


@pytest.fixture(autouse=True)
def _reset() -> None:
    RAN.clear()
    DELETED.clear()
    RECEIVED.clear()


def _interrupt(call_id: str | None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": f"int-{call_id}", "reason": "tool_call", **extra}
    if call_id is not None:
        entry["toolCallId"] = call_id
    return {"type": "interrupt", "interrupts": [entry]}


def _call(call_id: str, name: str = "wipe") -> list[Any]:
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
        ToolCallArgsEvent(tool_call_id=call_id, delta='{"where": "prod"}'),
        ToolCallEndEvent(tool_call_id=call_id),
    ]


def scripted_app(kind: str) -> Starlette:
    encoder = EventEncoder()

    async def run(request: Request) -> Response:
        data = await request.json()
        RECEIVED.setdefault(kind, []).append(data)
        ids = {"threadId": data["threadId"], "runId": data["runId"]}
        start = RunStartedEvent(thread_id=data["threadId"], run_id=data["runId"])
        resumed = bool(data.get("resume"))
        made = sum(len(m.get("toolCalls") or ()) for m in data["messages"])
        events: list[Any] = [start]
        outcome: dict[str, Any] | None = None
        if kind == "not-pending":
            events += _call("x1")
            outcome = _interrupt("ghost")
        elif kind == "no-call":
            outcome = _interrupt(None, message="Which region?")
        elif kind == "own-tool":
            events += _call("d1", "drop_table")
            outcome = _interrupt("d1")
        elif kind == "answered":
            events += _call("x1")
            events.append(ToolCallResultEvent(message_id="r", tool_call_id="x1", content="done"))
            outcome = _interrupt("x1")
        elif kind == "empty-list":
            events += _call("x1")
            outcome = {"type": "interrupt", "interrupts": []}
        elif kind == "no-id":
            events += _call("x1")
            outcome = {"type": "interrupt", "interrupts": [{"reason": "tool_call"}]}
        elif kind == "again":
            if not resumed:
                events += _call("x1")
            outcome = _interrupt("x1")
        elif kind == "forever":
            events += _call(f"x{made + 1}")
            outcome = _interrupt(f"x{made + 1}")
        else:
            assert kind == "runs-anyway"
            if not resumed:
                events += _call("x1")
                outcome = _interrupt("x1")
            else:
                events.append(
                    ToolCallResultEvent(message_id="r", tool_call_id="x1", content="wiped")
                )
        body = [encoder.encode(e) for e in events]
        finish = RunFinishedEvent(**{"thread_id": ids["threadId"], "run_id": ids["runId"]})
        finished = finish.model_dump(mode="json", by_alias=True, exclude_none=True)
        if outcome is not None:
            finished["outcome"] = outcome
        body.append(f"data: {json.dumps(finished)}\n\n")

        async def stream() -> Any:
            for chunk in body:
                yield chunk

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


REFUSED = {
    "not-pending": "for tool call ghost, which this run did not make",
    "no-call": "which names no tool call",
    "own-tool": "of the chat's own tool 'drop_table'",
    "answered": "for tool call x1, which it already answered",
    "empty-list": "not AG-UI",
    "no-id": "not AG-UI",
}
KINDS = [*REFUSED, "again", "forever", "runs-anyway"]


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    with contextlib.ExitStack() as stack:
        yield {kind: stack.enter_context(serve(scripted_app(kind))) for kind in KINDS}


@pytest.mark.parametrize("kind", list(REFUSED))
async def test_an_interrupt_the_chat_cannot_show_is_refused(
    kind: str, servers: dict[str, str]
) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers[kind]), tools=[drop_table])
    message = await rt.send("wipe prod")
    assert isinstance(message.status, Incomplete) and message.status.reason == "error"
    error = message.status.error or ""
    assert servers[kind] in error and REFUSED[kind] in error, error
    assert all(p.has_result for p in message.tool_calls)  # nothing left to approve
    assert all(p.approval is None for p in message.tool_calls)
    assert RAN == []  # not even the kernel's own gated tool


async def test_an_interrupt_again_for_a_decided_call_is_refused(servers: dict[str, str]) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers["again"]))
    message = await rt.send("wipe prod")
    assert isinstance(message.status, RequiresAction)
    final = await rt.approve("x1")  # type: ignore[misc]
    assert isinstance(final.status, Incomplete)
    assert "x1 again, which the user already decided" in (final.status.error or "")
    (call,) = final.tool_calls
    assert call.is_error  # approved, but the agent never ran it: no result came
    second = RECEIVED["again"][1]
    assert second["resume"] == [
        {"interruptId": "int-x1", "status": "resolved", "payload": {"approved": True}}
    ]
    # the placeholder answer of the paused call is not sent with its resume
    assert not [m for m in second["messages"] if m["role"] == "tool"]


async def test_an_agent_that_interrupts_forever_stops_at_max_steps(
    servers: dict[str, str],
) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers["forever"]), max_steps=3)
    message = await rt.send("wipe prod")
    for n in (1, 2):
        assert isinstance(message.status, RequiresAction)
        pending = [p for p in message.tool_calls if not p.has_result]
        assert [p.tool_call_id for p in pending] == [f"x{n}"]  # one card at a time
        message = await (rt.approve(f"x{n}") if n == 1 else rt.reject(f"x{n}", "stop"))  # type: ignore[misc]
    assert isinstance(message.status, RequiresAction)  # x3 waits: nothing decides it alone
    final = await rt.approve("x3")  # type: ignore[misc]
    assert isinstance(final.status, Incomplete)
    assert "Stopped after 3 model steps" in (final.status.error or "")
    resumes = [body.get("resume") for body in RECEIVED["forever"]]
    assert resumes[1] == [
        {"interruptId": "int-x1", "status": "resolved", "payload": {"approved": True}}
    ]
    assert resumes[2] == [
        {
            "interruptId": "int-x2",
            "status": "resolved",
            "payload": {"approved": False, "reason": "stop"},
        }
    ]


async def test_an_always_allow_grant_still_stops_at_max_steps(servers: dict[str, str]) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers["forever"]), max_steps=3)
    await rt.send("wipe prod")
    final = await rt.approve("x1", always=True)  # type: ignore[misc]
    assert isinstance(final.status, Incomplete)
    assert "Stopped after 3 model steps" in (final.status.error or "")
    decided = {p.tool_call_id: p.approval.decided_by for p in final.tool_calls if p.approval}
    assert decided == {"x1": "code", "x2": "grant", "x3": "grant"}


async def test_a_rejected_call_the_agent_reports_as_run_stays_rejected(
    servers: dict[str, str],
) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers["runs-anyway"]))
    await rt.send("wipe prod")
    final = await rt.reject("x1", "no")  # type: ignore[misc]
    assert isinstance(final.status, Complete)
    (call,) = final.tool_calls
    assert call.is_error and "rejected" in json.dumps(call.result)
    assert call.result != "wiped"


@pytest.fixture(scope="module")
def gated_url() -> Iterator[str]:
    with serve(agui_app(gated_agent())) as url:
        yield url


async def test_a_new_message_while_the_agents_approval_waits(gated_url: str) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(gated_url))
    first = await rt.send("delete everything")
    second = await rt.send("never mind")
    assert isinstance(second.status, Complete)
    (call,) = first.tool_calls
    assert call.is_error and call.approval is not None and call.approval.status != "approved"
    assert DELETED == []  # moving on decides nothing: the agent's tool never ran
    # the interrupt was resumed as cancelled: pydantic-ai told its model so, in its words
    assert second.text == "The agent read: Cancelled by user.."
    with pytest.raises(gu.errors.DecisionError):
        rt.approve("x1")  # too late: nothing to resume


async def test_a_new_message_resumes_the_open_interrupt_as_cancelled_once(
    servers: dict[str, str],
) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(servers["forever"]))
    await rt.send("wipe prod")  # x1 waits
    await rt.send("never mind")  # x2 waits (the agent interrupts every run)
    await rt.send("stop")
    first, second, third = RECEIVED["forever"]
    assert "resume" not in first
    assert second["resume"] == [{"interruptId": "int-x1", "status": "cancelled"}]
    assert not [m for m in second["messages"] if m["role"] == "tool"]  # no placeholder answer
    assert second["messages"][-1] == {"id": ANY, "role": "user", "content": "never mind"}
    assert third["resume"] == [{"interruptId": "int-x2", "status": "cancelled"}]  # x1 not again
    assert [m["toolCallId"] for m in third["messages"] if m["role"] == "tool"] == ["x1"]


async def test_a_reload_while_the_agents_approval_is_pending(
    gated_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "thread.json"
    first = gu.Runtime(agent=gu.AGUIAgent(gated_url), persist=path)
    message = await first.send("delete everything")
    assert isinstance(message.status, RequiresAction)
    first.close()  # the kernel goes away with the card waiting

    again = gu.Runtime(agent=gu.AGUIAgent(gated_url), persist=path)
    (call,) = again.thread.messages[-1].tool_calls
    assert call.approval is not None and call.approval.status == "pending"
    assert DELETED == []
    final = await again.approve("x1")  # type: ignore[misc]
    assert DELETED == ["prod"]
    assert isinstance(final.status, Complete)
    assert final.text.endswith("The agent read: deleted prod.")
    again.close()
