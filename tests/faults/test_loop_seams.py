"""The run loop's seams: its condition, its per-step toolset, and the runtime's
single "end a waiting reply" and "replace then save" paths.

Faults tried: a human tool's call that carries an approval decision (a thread
built by hand or edited), which ``should_continue`` lets through, sending the
model a history with an unanswered call; the runtime deciding by
``should_continue`` alone after a decision while the loop also wants no call
left open (one rule decides both: ``continuation.goes_on``), so a rejection
beside such a call started a run the loop ended at once, nothing run; the
rule letting an AG-UI client's call through, or stopping for a call the tool
phase runs next; a send or cancel while a reply waits
for the user leaving that reply waiting, its calls unanswered, or the change
unsaved; an update tool of a component shown after a step started being
offered to the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pydantic

import ipygenui as gu
from ipygenui.events import RunEnded, RunStarted
from ipygenui.messages import Approval, Incomplete, Message, RequiresAction, TextPart, ToolCallPart
from ipygenui.models.base import ModelRequest
from ipygenui.models.demo import demo_reply
from ipygenui.persistence import load_thread
from ipygenui.runtime._loop.ending import CANCELLED
from ipygenui.runtime._loop.toolset import Toolset
from ipygenui.runtime.continuation import goes_on
from ipygenui.testing import ScriptedModel

from ..runtime_helpers import assert_valid, call


@gu.tool(human=True)
def ask(question: str) -> str:
    """Ask the user."""
    return question


@gu.tool(requires_approval=True)
def delete(name: str) -> str:
    """Delete a file."""
    return f"deleted {name}"


def waiting_thread(human_approval: str | None) -> gu.Thread:
    """A reply whose human call (approval as given) and gated call both wait."""
    human = ToolCallPart(
        tool_call_id="h1",
        tool_name="ask",
        args={"question": "why?"},
        args_text='{"question": "why?"}',
        args_complete=True,
        approval=Approval(status=human_approval) if human_approval else None,  # type: ignore[arg-type]
    )
    gated = ToolCallPart(
        tool_call_id="d1",
        tool_name="delete",
        args={"name": "a.txt"},
        args_text='{"name": "a.txt"}',
        args_complete=True,
        approval=Approval(status="pending"),
    )
    steps = [{"start": 0, "end": 2, "tool_calls": 2}]
    return gu.Thread(
        messages=[
            Message(role="user", parts=[TextPart(text="clean up")]),
            Message(
                role="assistant",
                parts=[human, gated],
                status=RequiresAction(),
                metadata={"steps": steps},
            ),
        ]
    )


async def test_a_human_call_with_an_approval_still_waits_for_its_answer() -> None:
    model = ScriptedModel(["Done."])
    rt = gu.Runtime(model=model, tools=[ask, delete], thread=waiting_thread("approved"))
    run = rt.approve("d1")
    assert run is not None  # should_continue: the human call has a decision
    message = await run
    assert message.tool_call("d1").result == "deleted a.txt"
    assert not message.tool_call("h1").has_result
    assert isinstance(message.status, RequiresAction)
    assert list(model.requests) == []  # the model never saw the open call
    message = await rt.add_tool_result("h1", "because")  # type: ignore[misc]
    assert message.parts[-1].text == "Done."  # type: ignore[union-attr]
    assert_valid(model)


async def test_a_decision_resumes_only_when_the_loop_would_go_on() -> None:
    # the loop stopped on h1 (above, d1 answered by its run); a decision that
    # leaves the same state (d1 answered by a rejection) starts no run either
    model = ScriptedModel(["Done."])
    rt = gu.Runtime(model=model, tools=[ask, delete], thread=waiting_thread("approved"))
    runs: list[object] = []
    rt.subscribe(lambda e: runs.append(e) if isinstance(e, RunStarted | RunEnded) else None)
    assert rt.reject("d1", "not that one") is None
    assert runs == [] and not rt.running and list(model.requests) == []
    run = rt.add_tool_result("h1", "because")  # no call left open: it resumes
    assert run is not None
    assert (await run).parts[-1].text == "Done."  # type: ignore[union-attr]
    assert [type(e) for e in runs] == [RunStarted, RunEnded]
    assert_valid(model)


@gu.tool(human=True)
def pick(option: str) -> str:
    """A tool an AG-UI client declares (the client answers its calls)."""
    return option


def _call(
    call_id: str, tool: str, approval: str | None = None, answered: bool = False
) -> ToolCallPart:
    part = ToolCallPart(
        tool_call_id=call_id,
        tool_name=tool,
        args_complete=True,
        approval=Approval(status=approval) if approval else None,  # type: ignore[arg-type]
    )
    part.result, part.has_result = ("ok", True) if answered else (None, False)
    return part


def _reply(*parts: ToolCallPart) -> Message:
    return Message(role="assistant", parts=list(parts), status=RequiresAction())


def test_goes_on_case_by_case() -> None:
    tools, human = Toolset({"ask": ask, "delete": delete}), ["ask"]
    # a call the tool phase takes next: go on (it runs or asks, then the loop decides again)
    assert goes_on(_reply(_call("d1", "delete", "approved")), human, tools)
    assert goes_on(_reply(_call("d1", "delete")), human, tools)
    # ... even while a human call with a decision waits for its answer
    assert goes_on(
        _reply(_call("h1", "ask", "approved"), _call("d1", "delete", "approved")), human, tools
    )
    # that human call, nothing else to do: wait; every call answered: the next step
    assert not goes_on(
        _reply(_call("h1", "ask", "approved"), _call("d1", "delete", answered=True)), human, tools
    )
    assert goes_on(_reply(_call("h1", "ask", answered=True)), human, tools)
    assert not goes_on(_reply(_call("h1", "ask")), human, tools)
    # a call of no tool is answered "unknown tool" by the tool phase: go on
    assert goes_on(_reply(_call("x1", "gone")), human, tools)
    # an AG-UI client's tool: the client answers it, the loop waits
    client = Toolset(tools.own, client={"pick": pick})
    assert not goes_on(
        _reply(_call("p1", "pick"), _call("d1", "delete", answered=True)), human, client
    )
    # an agent's own call, approved: its next run answers it; pending: wait
    agent_call = _reply(_call("a1", "agent_tool", "approved"))
    agent_call.metadata["agent_interrupts"] = {"a1": "interrupt-1"}
    assert goes_on(agent_call, human, tools)
    agent_call.parts[0].approval = Approval(status="pending")  # type: ignore[union-attr]
    assert not goes_on(agent_call, human, tools)


async def test_send_ends_a_waiting_reply_and_saves_it(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    model = ScriptedModel(["Hello."])
    rt = gu.Runtime(model=model, tools=[ask, delete], thread=waiting_thread(None), persist=path)
    waiting = rt.thread.messages[-1]
    reply = await rt.send("never mind")
    assert waiting.status == Incomplete(reason="cancelled", error="The user sent a new message.")
    for part in waiting.tool_calls:
        assert part.is_error and part.result == {"error": "The user sent a new message."}
    assert waiting.tool_call("d1").approval.status == "rejected"  # type: ignore[union-attr]
    assert reply.parts[-1].text == "Hello."  # type: ignore[union-attr]
    saved = load_thread(path).model_dump(mode="json")["messages"][1]
    assert saved["status"]["error"] == "The user sent a new message."
    assert_valid(model)


async def test_cancel_ends_a_waiting_reply_saves_it_and_goes_idle(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    model = ScriptedModel([call("delete", {"name": "a.txt"}, id="d1")])
    rt = gu.Runtime(model=model, tools=[delete], persist=path)
    waiting = await rt.send("clean up")
    assert isinstance(waiting.status, RequiresAction) and rt.phase == "waiting"
    phases: list[str] = []
    rt.subscribe(lambda event: phases.append(getattr(event, "phase", "")))
    rt.cancel()
    assert waiting.status == Incomplete(reason="cancelled", error=CANCELLED)
    assert waiting.tool_call("d1").result == {"error": CANCELLED}
    assert waiting.tool_call("d1").approval.status == "rejected"  # type: ignore[union-attr]
    assert rt.phase == "idle" and "idle" in phases
    saved = load_thread(path).model_dump(mode="json")["messages"][1]
    assert saved["status"]["reason"] == "cancelled" and saved["status"]["error"] == CANCELLED
    rt.cancel()  # nothing waits any more: nothing changes
    assert waiting.status == Incomplete(reason="cancelled", error=CANCELLED)


class Note(pydantic.BaseModel):
    text: str


async def test_update_tools_are_chosen_before_each_step() -> None:
    note = gu.Component("Note", props=Note, esm="export function render() {}")
    model = ScriptedModel(
        [
            # shown and updated in one step: the update tool is not offered yet
            [
                call("show_component_Note", {"text": "a"}, id="n1"),
                call("update_component_n1", {"text": "b"}, id="u1"),
            ],
            [call("update_component_n1", {"text": "c"}, id="u2")],
            "Done.",
        ]
    )
    rt = gu.Runtime(model=model, components=[note])
    message = await rt.send("note")
    offered = [{t["function"]["name"] for t in r.tools} for r in model.requests]
    assert "update_component_n1" not in offered[0]
    assert "update_component_n1" in offered[1]
    assert message.tool_call("u1").is_error
    assert "Unknown tool" in json.dumps(message.tool_call("u1").result)
    assert not message.tool_call("u2").is_error
    assert_valid(model)


async def test_the_suggestions_request_says_what_it_is_for() -> None:
    model = ScriptedModel(["Hello.", '["Tell me more"]'])
    rt = gu.Runtime(model=model, suggestions=True)
    await rt.send("hi")
    assert rt._suggesting.task is not None
    await rt._suggesting.task
    assert [request.purpose for request in model.requests] == ["reply", "suggestions"]
    assert rt.current_suggestions == ["Tell me more"]


def test_the_demo_model_answers_a_suggestions_request_by_its_purpose() -> None:
    question = [{"role": "user", "content": "Anything at all"}]
    reply = demo_reply(ModelRequest(messages=question, purpose="suggestions"))
    assert isinstance(json.loads(reply.text), list)
    assert not (demo_reply(ModelRequest(messages=question)).text or "").startswith("[")
