"""Comm faults: what a hostile or broken browser can send to the kernel.

Faults tried:
- forged payloads at the protocol (not an object, unknown or missing type,
  wrong field types, extra fields, empty and over-long text, over-long refs):
  each is refused with a readable ProtocolError;
- the same at the widget, delivered like a click (decisions on unknown calls,
  stop with nothing running, an unoffered suggestion, forged component
  state, an absurd 5,000,000-character message): each is answered with an
  ``error`` message and changes nothing;
- ids at the limit: a provider's tool_call id of 250 (or 5,000) characters is
  approved, rejected and answered from the browser (the kernel put it in
  the thread, so it accepts it back; no length limit strands a call);
- text at the limit: a message over the old 100,000-character limit is
  taken; one over MAX_TEXT is refused with the length and the limit, and
  the refusal carries the send's ``ref`` so the view keeps the text in the
  box; a message taken is acknowledged with its ``ref`` (the view clears
  the box only then); a send while a run streams is refused the same way.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ipygenui as gu
from comm_helpers import Wire, click, customs, settle
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget._protocol import MAX_TEXT, ApproveMsg, ProtocolError, parse_client_message
from ipygenui.widget.chat import Chat

# --- forged payloads, at the protocol -------------------------------------------


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "not an object"),
        ("send", "not an object"),
        ([{"type": "send", "text": "hi"}], "not an object"),
        ({}, "unknown message type"),
        ({"type": "rm -rf"}, "unknown message type"),
        ({"type": "SEND", "text": "hi"}, "unknown message type"),
        ({"type": ["send"], "text": "hi"}, "unknown message type"),
        ({"type": None}, "unknown message type"),
        ({"type": "send"}, "text"),
        ({"type": "send", "text": ""}, "text"),
        ({"type": "send", "text": 5}, "text"),
        ({"type": "send", "text": None}, "text"),
        ({"type": "send", "text": ["a", "b"]}, "text"),
        ({"type": "send", "text": "x" * (MAX_TEXT + 1)}, "too long"),
        ({"type": "send", "text": "hi", "ref": "r" * 65}, "ref"),
        ({"type": "send", "text": "hi", "ref": 7}, "ref"),
        ({"type": "suggestion"}, "text"),
        ({"type": "suggestion", "text": "x" * (MAX_TEXT + 1)}, "too long"),
        ({"type": "approve"}, "tool_call_id"),
        ({"type": "approve", "tool_call_id": ""}, "tool_call_id"),
        ({"type": "approve", "tool_call_id": 5}, "tool_call_id"),
        ({"type": "approve", "tool_call_id": None}, "tool_call_id"),
        ({"type": "approve", "tool_call_id": "c", "args": [1, 2]}, "args"),
        ({"type": "approve", "tool_call_id": "c", "args": "{}"}, "args"),
        ({"type": "always", "tool_call_id": {"id": "c"}}, "tool_call_id"),
        ({"type": "reject", "tool_call_id": "c", "reason": {"x": 1}}, "reason"),
        ({"type": "reject", "tool_call_id": "c", "reason": "x" * (MAX_TEXT + 1)}, "reason"),
        ({"type": "hello", "extra": 1}, "extra"),
        ({"type": "cancel", "now": True}, "now"),
        ({"type": "tool_result", "tool_call_id": "c"}, "result"),
    ],
)
def test_forged_payloads_raise_a_readable_protocol_error(content: Any, fragment: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client_message(content)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("length", [201, 250, 5_000, 100_000])
def test_long_tool_call_ids_parse(length: int) -> None:
    msg = parse_client_message({"type": "approve", "tool_call_id": "c" * length})
    assert isinstance(msg, ApproveMsg) and len(msg.tool_call_id) == length


# --- forged payloads, delivered to the widget -------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        None,
        "approve",
        42,
        {"type": "nope"},
        {"type": "send", "text": ""},
        {"type": "send", "text": "x" * 5_000_000},
        {"type": "approve", "tool_call_id": "call_missing"},
        {"type": "approve", "tool_call_id": "c" * 250},
        {"type": "reject", "tool_call_id": "call_missing", "reason": "x"},
        {"type": "tool_result", "tool_call_id": "call_missing", "result": 1},
        {"type": "cancel"},
        {"type": "suggestion", "text": "never offered"},
        {"type": "component_state", "tool_call_id": "call_missing", "state": {}},
        {"type": "component_state", "tool_call_id": 3, "state": {}},
        {"type": "component_state", "tool_call_id": "c", "state": "x"},
    ],
)
async def test_forged_clicks_change_nothing_and_get_an_error(wire: Wire, content: Any) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    await chat.send("hi")
    await settle(chat)
    before = chat.thread.model_dump_json()
    wire.clear()
    click(chat, content)
    await asyncio.sleep(0)
    [error] = customs(wire, "error")
    assert error["message"] and len(error["message"]) <= 2000
    assert customs(wire, "accepted") == []
    assert chat.thread.model_dump_json() == before
    assert not chat.runtime.running


# --- ids at the limit ------------------------------------------------------------


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    DROPPED.append(name)
    return f"dropped {name}"


DROPPED: list[str] = []


async def _waiting_on(call_id: str) -> tuple[Chat, str]:
    DROPPED.clear()
    call = ScriptedCall("drop_table", {"name": "sales"}, id=call_id)
    chat = Chat(model=ScriptedModel([call, "All done."]), tools=[drop_table])
    await chat.send("drop it")
    await settle(chat)
    assert chat.phase == "waiting"
    return chat, chat.thread.messages[-1].tool_calls[0].tool_call_id


@pytest.mark.parametrize("length", [250, 5_000])
async def test_a_long_provider_id_is_approved_from_the_browser(wire: Wire, length: int) -> None:
    chat, call_id = await _waiting_on("c" * length)
    assert len(call_id) >= length  # the id the kernel keeps, as long as the provider's
    wire.clear()
    click(chat, {"type": "approve", "tool_call_id": call_id})
    await settle(chat)
    assert customs(wire, "error") == []
    assert DROPPED == ["sales"]
    assert chat.thread.messages[-1].text == "All done."


async def test_a_long_provider_id_is_rejected_from_the_browser(wire: Wire) -> None:
    chat, call_id = await _waiting_on("c" * 250)
    click(chat, {"type": "reject", "tool_call_id": call_id, "reason": "not today"})
    await settle(chat)
    assert customs(wire, "error") == []
    assert DROPPED == []
    assert chat.thread.messages[-1].text == "All done."


async def test_component_state_for_a_long_id_is_taken(wire: Wire) -> None:
    call = ScriptedCall("show_component_Form", {"fields": [{"name": "city"}]}, id="f" * 250)
    chat = Chat(model=ScriptedModel([call, "ok"]), components=[gu.Form])
    await chat.send("form")
    await settle(chat)
    call_id = chat.thread.messages[-1].tool_calls[0].tool_call_id
    state = {"values": {"city": "Lima"}, "submitted": False}
    wire.clear()
    click(chat, {"type": "component_state", "tool_call_id": call_id, "state": state})
    await asyncio.sleep(0)
    assert customs(wire, "error") == []
    assert chat.thread.messages[-1].tool_calls[0].component_state == state
    chat.close()


# --- text at the limit -----------------------------------------------------------


async def test_a_message_taken_is_acknowledged_with_its_ref(wire: Wire) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    long = "y" * 150_000  # over the old 100,000 limit: a pasted log is a message
    click(chat, {"type": "send", "text": long, "ref": "view1-1"})
    await settle(chat)
    assert customs(wire, "accepted") == [{"type": "accepted", "request": "send", "ref": "view1-1"}]
    assert [m.text for m in chat.thread.messages] == [long, "ok"]


async def test_an_over_limit_message_is_refused_with_its_ref_and_reason(wire: Wire) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    click(chat, {"type": "send", "text": "z" * (MAX_TEXT + 1), "ref": "view1-2"})
    await asyncio.sleep(0)
    [error] = customs(wire, "error")
    assert error["request"] == "send" and error["ref"] == "view1-2"
    assert f"{MAX_TEXT + 1:,}" in error["message"] and f"{MAX_TEXT:,}" in error["message"]
    assert customs(wire, "accepted") == []
    assert chat.thread.messages == [] and not chat.runtime.running


async def test_a_send_while_streaming_is_refused_with_its_ref(wire: Wire) -> None:
    chat = Chat(model=ScriptedModel(["x " * 2000], chunk_size=2, delay=0.001))
    chat.send("first")
    await asyncio.sleep(0.02)
    click(chat, {"type": "send", "text": "second", "ref": "view1-3"})
    await asyncio.sleep(0)
    [error] = customs(wire, "error")
    assert error["ref"] == "view1-3" and "already streaming" in error["message"]
    chat.cancel()
    await settle(chat)
    assert [m.text for m in chat.thread.messages if m.role == "user"] == ["first"]
