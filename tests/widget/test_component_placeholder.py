"""A component call reaches the view by its name before its arguments.

Gemini, Ollama and Groq send a call's whole arguments in one piece, maybe a
while after its name: the view must know the call (its tool, the component it
shows) from the name's delta on, so it can show a placeholder, and get the
arguments in one append (one step, no half state). A call that ends with no
arguments, or text that is not JSON, gets an error result: the view never
waits on it. The model is ``ScriptedModel`` with ``whole_args`` and
``args_after`` (a name-only delta, then the arguments once an event is set).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

import ipygenui as gu
from comm_helpers import Wire, click, customs, settle
from ipygenui.models.base import ToolCallDelta
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply
from ipygenui.widget.chat import Chat

ROWS = [{"city": "Lima", "n": 1}, {"city": "Oslo", "n": 2}]


class CityProps(BaseModel):
    city: str


City = gu.Component("City", props=CityProps, esm="export function render() {}")


def ops_of(wire: Wire) -> list[dict[str, Any]]:
    """Every patch op the view was sent, in order."""
    return [op for f in customs(wire, "frame") for p in f["patches"] for op in p["ops"]]


async def until(check: Any, what: str) -> None:
    """Let the loop run until ``check()`` holds (bounded: a broken stream fails)."""
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


def added_calls(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        op["value"]
        for op in ops
        if op["op"] == "add_part" and op["value"].get("type") == "tool-call"
    ]


async def test_the_view_gets_a_calls_name_before_its_whole_arguments(wire: Wire) -> None:
    release = asyncio.Event()
    call = ScriptedCall(
        "show_component_Table",
        {"title": "Cities", "rows": ROWS},
        id="t1",
        whole_args=True,
        args_after=release,
    )
    chat = Chat(model=ScriptedModel([call, "Shown."]), components=[gu.Table])
    run = chat.send("table")
    await until(lambda: added_calls(ops_of(wire)), "the call's part reached the view")

    [part] = added_calls(ops_of(wire))
    assert part["tool_name"] == "show_component_Table"
    assert part["component_call"]["component"] == "Table"
    assert part["args_text"] == "" and not part["args_complete"]
    assert not any(op.get("field") == "args_text" for op in ops_of(wire))
    # a view that opens now (a second tab) gets the call in its snapshot too
    wire.clear()
    click(chat, {"type": "hello"})
    await asyncio.sleep(0)
    [snapshot] = customs(wire, "snapshot")
    parts = [p for m in snapshot["messages"] for p in m["message"]["parts"]]
    assert [(p["type"], p.get("tool_name")) for p in parts][-1] == (
        "tool-call",
        "show_component_Table",
    )
    assert chat.runtime.running  # still waiting for the arguments

    wire.clear()
    release.set()
    await run
    await settle(chat)
    whole = {"title": "Cities", "rows": ROWS}
    # the whole arguments in one piece: a frame's append, or the message's
    # final state when the run ended before the frame was due
    appends = [json.loads(op["value"]) for op in ops_of(wire) if op.get("field") == "args_text"]
    assert appends in ([whole], [])
    [final] = [p for m in chat.messages for p in m.message["parts"] if p["type"] == "tool-call"]
    assert json.loads(final["args_text"]) == whole
    [shown] = chat.shown_components()
    assert shown.props is not None and shown.props.model_dump()["rows"][1]["city"] == "Oslo"
    chat.close()


@pytest.mark.parametrize(
    ("args", "error"),
    [("", "field required"), ('{"city": "Os', "not valid json")],
    ids=["no-arguments", "cut-json"],
)
async def test_a_call_that_ends_without_valid_arguments_gets_its_error(
    wire: Wire, args: str, error: str
) -> None:
    call = ScriptedCall("show_component_City", args, id="c1", whole_args=True)
    chat = Chat(model=ScriptedModel([call, "Sorry."]), components=[City])
    await chat.send("city")
    await settle(chat)
    # what the view ends with: the call complete, its error shown
    [part] = [p for m in chat.messages for p in m.message["parts"] if p["type"] == "tool-call"]
    assert part["tool_name"] == "show_component_City"
    assert part["args_complete"] and part["has_result"] and part["is_error"]
    assert error in part["result"]["error"].lower()
    chat.close()


def test_scripted_whole_arguments_come_in_one_delta_after_the_name() -> None:
    model = ScriptedModel(chunk_size=2)
    args = {"rows": ROWS}
    text = json.dumps(args)
    whole = ScriptedCall("t", args, id="a", whole_args=True)
    together = model.deltas(ScriptedReply(tool_calls=[whole]))
    assert together[0] == ToolCallDelta(0, id="a", name="t", arguments=text)
    later = ScriptedCall("t", args, id="a", whole_args=True, args_after=0.0)
    split = model.deltas(ScriptedReply(tool_calls=[later]))
    assert split[:2] == [ToolCallDelta(0, id="a", name="t"), ToolCallDelta(0, arguments=text)]
    pieces = model.deltas(ScriptedReply(tool_calls=[ScriptedCall("t", args, id="a")]))
    assert len(pieces) == 1 + len(text) // 2 + 1  # name, two-character pieces, finish


async def test_a_stop_ends_the_wait_for_held_arguments(wire: Wire) -> None:
    never = asyncio.Event()
    call = ScriptedCall("show_component_Table", {"rows": ROWS}, whole_args=True, args_after=never)
    chat = Chat(model=ScriptedModel([call]), components=[gu.Table])
    run = chat.send("table")
    await until(lambda: added_calls(ops_of(wire)), "the call's part reached the view")
    chat.cancel()
    message = await run
    [part] = message.tool_calls
    assert part.args_complete and part.is_error  # answered: no call is left open
    chat.close()
