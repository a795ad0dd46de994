"""The official ``@ag-ui/client`` (``HttpAgent``) with its own tools and state
against ``rt.ag_ui_app()`` over uvicorn (``tests/agui_peer.py`` drives it).

- A client tool answered by the client: the model calls the tool the client
  declared, the run ends with the call pending, the client adds its tool
  message and runs again, and the run goes on with that answer.
- Client state kept: the client's initial state becomes the runtime's, its
  first snapshot does not overwrite it, and the STATE_DELTA a tool's change
  makes is applied by the client's own JSON Patch (fast-json-patch), leaving
  the client's state equal to the runtime's.
"""

from __future__ import annotations

from typing import Any

import ipygenui as gu
from agui_peer import drive, official_client_available
from ipygenui.testing import ScriptedModel
from runtime_helpers import call

CONFIRM = {
    "name": "browser_confirm",
    "description": "Ask the user to confirm in the browser.",
    "parameters": {
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    },
}


def types(report: dict[str, Any]) -> list[str]:
    return [e["type"] for e in report["events"]]


async def test_a_client_tool_is_answered_by_the_official_client() -> None:
    official_client_available()
    from agui_agents import serve

    model = ScriptedModel(
        [call("browser_confirm", {"question": "Delete it?"}, id="c1"), "Deleted, as you said."]
    )
    rt = gu.Runtime(model=model)
    app = rt.ag_ui_app()
    turns = [
        {"add": [{"role": "user", "content": "delete it"}], "tools": [CONFIRM]},
        {
            "add": [{"role": "tool", "toolCallId": "c1", "content": '{"confirmed": true}'}],
            "tools": [CONFIRM],
        },
    ]
    with serve(app) as url:
        first, second = await drive(url, app.token, turns)
    assert "error" not in first, first.get("error")
    finished = first["events"][-1]
    assert finished["type"] == "RUN_FINISHED"
    assert finished["outcome"] == {"type": "success", "pendingToolCallIds": ["c1"]}
    assert first["pendingInterrupts"] == []  # nothing the client must resume
    [asked] = [m for m in first["messages"] if m.get("toolCalls")]
    assert asked["toolCalls"][0]["function"]["name"] == "browser_confirm"
    assert not [m for m in first["messages"] if m["role"] == "tool"]  # the client's to answer
    assert "error" not in second, second.get("error")
    assert second["events"][-1]["outcome"]["type"] == "success"
    assert second["messages"][-1]["content"] == "Deleted, as you said."
    assert rt.thread.messages[-1].tool_calls[0].result == '{"confirmed": true}'
    assert rt.thread.messages[-1].text == "Deleted, as you said."
    run_ids = {e["runId"] for r in (first, second) for e in r["events"] if "runId" in e}
    assert len(run_ids) == 2  # each run named by the client's own runId
    threads = {e["threadId"] for r in (first, second) for e in r["events"] if "threadId" in e}
    assert threads == {"thread-1"}


async def test_the_official_clients_state_is_kept_and_our_deltas_apply_to_it() -> None:
    official_client_available()
    from agui_agents import serve

    rt: gu.Runtime

    @gu.tool
    async def add_item(item: str) -> str:
        """Add an item to the shared list."""
        rt.set_agent_state({**rt.agent_state, "items": [*rt.agent_state["items"], item]})
        return "added"

    model = ScriptedModel(
        [call("add_item", {"item": "milk"}, id="a1"), "Added milk.", "Still here."]
    )
    rt = gu.Runtime(model=model, tools=[add_item])
    app = rt.ag_ui_app()
    initial = {"items": ["eggs"], "owner": {"name": "Ada"}}
    turns = [
        {"add": [{"role": "user", "content": "add milk"}]},
        {"add": [{"role": "user", "content": "and now?"}], "setState": {"items": ["tea"]}},
    ]
    with serve(app) as url:
        first, second = await drive(url, app.token, turns, state=initial)
    assert "error" not in first, first.get("error")
    assert types(first).count("STATE_SNAPSHOT") == 1
    [snapshot] = [e["snapshot"] for e in first["events"] if e["type"] == "STATE_SNAPSHOT"]
    assert snapshot == initial  # the client's state, not ours over it
    assert "STATE_DELTA" in types(first)
    assert first["state"] == {"items": ["eggs", "milk"], "owner": {"name": "Ada"}}
    assert "error" not in second, second.get("error")
    assert second["state"] == {"items": ["tea"]} == rt.agent_state  # the client's change taken
    started = first["events"][0]
    assert started["type"] == "RUN_STARTED" and started["protocolVersion"] == "1.0"
