"""``Runtime.ag_ui_app()``: the tools and the state an AG-UI client brings.

A client's declared tools (``RunAgentInput.tools``) are offered to the model
for its run, and their calls answered by the client: the run ends with them
pending (``outcome.pendingToolCallIds``), the client's next input carries the
tool message and the run goes on. A client's state (``RunAgentInput.state``)
becomes the runtime's shared state, so the run's first STATE_SNAPSHOT is the
client's; later changes go as STATE_DELTA (JSON Patch). RUN_STARTED and
RUN_FINISHED carry the client's ``threadId`` / ``runId`` and RUN_STARTED the
protocol version. Over HTTP (httpx's ASGI transport); the refusals of hostile
tools and states are in ``tests/faults/test_agui_server.py``.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonpatch
import pytest
from ag_ui.core import EventType, RunAgentInput, Tool, ToolMessage, UserMessage

import ipygenui as gu
from agui_helpers import parse_sse
from comm_helpers import settle
from ipygenui.messages import RequiresAction
from ipygenui.persistence import load_thread
from ipygenui.runtime import DecisionError
from ipygenui.testing import ScriptedModel
from ipygenui.widget.chat import Chat
from runtime_helpers import call

CONFIRM = Tool(
    name="browser_confirm",
    description="Ask the user to confirm in the browser.",
    parameters={
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    },
)


def run_input(
    *messages: Any, tools: list[Tool] | None = None, state: Any = None, run_id: str = "client-run"
) -> dict[str, Any]:
    data = RunAgentInput(
        thread_id="client-thread",
        run_id=run_id,
        messages=list(messages),
        tools=tools or [],
        context=[],
        state=state,
    )
    return data.model_dump(mode="json", by_alias=True, exclude_none=True)


async def post(app: Any, body: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    headers = {"accept": "text/event-stream", "authorization": f"Bearer {app.token}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.post("/", json=body, headers=headers)


def confirming_runtime() -> gu.Runtime:
    model = ScriptedModel(
        [call("browser_confirm", {"question": "Delete it?"}, id="c1"), "Deleted, as you said."]
    )
    return gu.Runtime(model=model)


async def test_a_client_tool_is_offered_to_the_model_and_its_call_left_to_the_client() -> None:
    rt = confirming_runtime()
    app = rt.ag_ui_app()
    response = await post(
        app, run_input(UserMessage(id="u1", content="delete it"), tools=[CONFIRM])
    )
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    model = rt.model
    assert isinstance(model, ScriptedModel)
    offered = [t["function"] for t in model.requests[0].tools]
    assert [t["name"] for t in offered] == ["browser_confirm"]
    assert offered[0]["parameters"] == CONFIRM.parameters  # the client's schema, as given
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    assert [(s.tool_call_id, s.tool_call_name) for s in starts] == [("c1", "browser_confirm")]
    assert not [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    finished = events[-1]
    assert finished.type == EventType.RUN_FINISHED
    assert finished.outcome.type == "success"
    assert finished.outcome.pending_tool_call_ids == ["c1"]
    last = rt.thread.messages[-1]
    assert isinstance(last.status, RequiresAction) and not last.tool_calls[0].has_result


async def test_the_notebook_chat_shows_the_clients_call_as_the_clients_to_answer(
    tmp_path,
) -> None:
    """Nothing in the notebook answers it: its card says who will, and offers no form."""
    path = tmp_path / "t.json"
    model = ScriptedModel([call("browser_confirm", {"question": "Delete it?"}, id="c1"), "ok"])
    chat = Chat(model=model, persist=path)
    app = chat.runtime.ag_ui_app()
    await post(app, run_input(UserMessage(id="u1", content="delete it"), tools=[CONFIRM]))
    await settle(chat)
    waiting = chat.thread.messages[-1].tool_calls[0]
    assert waiting.status_message == "Waiting for the AG-UI client to answer"
    assert "browser_confirm" not in chat.human_tools  # the card has no answer form
    saved = load_thread(path).messages[-1].tool_calls[0]
    assert saved.status_message == waiting.status_message and not saved.has_result
    chat.close()


async def test_the_clients_tool_message_answers_its_call_and_the_run_goes_on() -> None:
    rt = confirming_runtime()
    app = rt.ag_ui_app()
    await post(app, run_input(UserMessage(id="u1", content="delete it"), tools=[CONFIRM]))
    answer = ToolMessage(id="r1", tool_call_id="c1", content='{"confirmed": true}')
    response = await post(app, run_input(answer, tools=[CONFIRM], run_id="client-run-2"))
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    assert events[-1].type == EventType.RUN_FINISHED and events[-1].outcome.type == "success"
    assert not events[-1].outcome.pending_tool_call_ids
    part = rt.thread.messages[-1].tool_calls[0]
    assert part.result == '{"confirmed": true}' and not part.is_error  # the text, as sent
    assert rt.thread.messages[-1].text == "Deleted, as you said."
    model = rt.model
    assert isinstance(model, ScriptedModel)
    assert [m["content"] for m in model.requests[-1].messages if m["role"] == "tool"] == [
        '{"confirmed": true}'
    ]
    # the client's tools go with its run: the notebook's next run is not offered them
    assert rt._client_tool_names == frozenset()


async def test_only_the_client_that_declared_the_tool_answers_its_call() -> None:
    rt = confirming_runtime()
    app = rt.ag_ui_app()
    await post(app, run_input(UserMessage(id="u1", content="delete it"), tools=[CONFIRM]))
    with pytest.raises(DecisionError, match="calls no tool of this chat"):
        rt.add_tool_result("c1", {"confirmed": True})  # the widget, or notebook code
    answer = ToolMessage(id="r1", tool_call_id="c1", content="yes")
    refused = await post(app, run_input(answer))  # a client that does not declare it
    assert refused.status_code == 403 and "browser_confirm" in refused.json()["error"]
    assert not rt.thread.messages[-1].tool_calls[0].has_result


async def test_run_events_carry_the_clients_ids_and_the_protocol_version() -> None:
    rt = gu.Runtime(model=ScriptedModel(["hi"]))
    events = parse_sse(
        (await post(rt.ag_ui_app(), run_input(UserMessage(id="u1", content="x")))).text
    )
    started, finished = events[0], events[-1]
    assert (started.thread_id, started.run_id) == ("client-thread", "client-run")
    assert (finished.thread_id, finished.run_id) == ("client-thread", "client-run")
    assert started.protocol_version == "1.0"


async def test_the_clients_state_is_the_runs_and_changes_come_as_json_patch() -> None:
    rt: gu.Runtime

    @gu.tool
    async def add_item(item: str) -> str:
        """Add an item to the shared list."""
        rt.set_agent_state({**rt.agent_state, "items": [*rt.agent_state["items"], item]})
        return "added"

    model = ScriptedModel([call("add_item", {"item": "milk"}, id="a1"), "Added milk."])
    rt = gu.Runtime(model=model, tools=[add_item])
    state = {"items": ["eggs"], "owner": {"name": "Ada"}}
    body = run_input(UserMessage(id="u1", content="add milk"), state=state)
    events = parse_sse((await post(rt.ag_ui_app(), body)).text)
    snapshots = [e for e in events if e.type == EventType.STATE_SNAPSHOT]
    deltas = [e for e in events if e.type == EventType.STATE_DELTA]
    assert [s.snapshot for s in snapshots] == [state]  # one snapshot: the client's state
    assert deltas
    client_side = snapshots[0].snapshot
    for delta in deltas:  # as the client applies them
        ops = [op.model_dump(mode="json", by_alias=True, exclude_none=True) for op in delta.delta]
        client_side = jsonpatch.apply_patch(client_side, ops)
    assert client_side == rt.agent_state == {"items": ["eggs", "milk"], "owner": {"name": "Ada"}}
    assert json.loads(json.dumps(client_side)) == client_side


async def test_a_state_the_client_sends_back_changes_nothing_and_no_state_keeps_ours() -> None:
    rt = gu.Runtime(model=ScriptedModel(["one", "two"]))
    rt.set_agent_state({"mode": "notebook"})
    app = rt.ag_ui_app()
    events = parse_sse((await post(app, run_input(UserMessage(id="u1", content="x")))).text)
    [snapshot] = [e.snapshot for e in events if e.type == EventType.STATE_SNAPSHOT]
    assert snapshot == {"mode": "notebook"} == rt.agent_state  # the client sent no state
    body = run_input(UserMessage(id="u2", content="y"), state={"mode": "browser"})
    await post(app, body)
    assert rt.agent_state == {"mode": "browser"}


async def test_a_snapshots_placeholder_sent_back_is_not_taken_for_the_clients_answer() -> None:
    """A snapshot answers a waiting call with a placeholder tool message (the
    history stays valid); a client that sends its history back sends that
    too, before its own answer: the answer is the client's, not ours."""
    from ipygenui.agui import to_agui_messages

    rt = confirming_runtime()
    app = rt.ag_ui_app()
    await post(app, run_input(UserMessage(id="u1", content="delete it"), tools=[CONFIRM]))
    history = to_agui_messages(rt.thread.messages)
    assert any(isinstance(m, ToolMessage) and m.tool_call_id == "c1" for m in history)
    answer = ToolMessage(id="r1", tool_call_id="c1", content="yes")
    response = await post(app, run_input(*history, answer, tools=[CONFIRM]))
    assert response.status_code == 200, response.text
    assert rt.thread.messages[-1].tool_calls[0].result == "yes"
