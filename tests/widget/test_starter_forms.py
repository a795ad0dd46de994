"""Starters with a form in the chat widget, against a real MCP server written
with the ``mcp`` SDK (tests/mcp_changing_server.py): the server's prompt with
arguments is offered with its fields, submitted from the browser, filled by
the server and sent as the user's message; a failure keeps the form (the
answer carries its ref); a field is completed by the server with the other
fields as context; malformed or unknown requests are refused with a clear
error; and an open chat's starters follow the server's ``list_changed``
(a prompt added shows, one removed goes) without being displayed again.

Faults tried: the trait built once at construction (the list change never
reaching it); the filled text not sent; a refused fill sent as ``accepted``;
the context dropped; no cap on completions in flight.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from comm_helpers import customs, settle
from ipygenui.testing import ScriptedModel, last_user_text
from ipygenui.widget import _starter_forms
from ipygenui.widget.chat import Chat
from runtime_helpers import call

SERVER = str(Path(__file__).parent.parent / "mcp_changing_server.py")
PLAN = "0/plan_trip"


@pytest.fixture
def changing() -> Iterator[gu.MCPTools]:
    tools = gu.MCPTools.stdio(sys.executable, [SERVER], requires_approval=False)
    yield tools
    tools.close()


def echo(request: Any) -> str:
    return f"You asked: {last_user_text(request)}"


async def answered(wire: list[Any], kind: str, count: int = 1) -> list[dict[str, Any]]:
    for _ in range(400):
        if len(customs(wire, kind)) >= count:
            break
        await asyncio.sleep(0.01)
    return customs(wire, kind)


async def test_a_prompt_with_arguments_is_a_starter_whose_form_fills_and_sends_it(
    changing: gu.MCPTools, wire: list[Any]
) -> None:
    await changing.connect()
    chat = Chat(model=ScriptedModel(echo), tools=[changing])
    assert chat.starter_forms == [
        {
            "id": PLAN,
            "title": "plan_trip",
            "description": "Plan a trip.",
            "arguments": [
                {"name": "city", "description": "", "required": True},
                {"name": "days", "description": "", "required": False},
            ],
        }
    ]
    form = {"type": "starter_form", "prompt": PLAN, "fields": {"city": "Oslo", "days": "2"}}
    chat._handlers._dispatch({**form, "ref": "v-1"})
    [accepted] = await answered(wire, "accepted")
    assert accepted == {"type": "accepted", "request": "starter_form", "ref": "v-1"}
    await settle(chat)
    user, reply = chat.thread.messages
    assert user.text == "Plan a 2-day trip to Oslo"
    assert reply.text == "You asked: Plan a 2-day trip to Oslo"
    assert customs(wire, "error") == []
    chat.new_thread()
    blank = {"city": "Oslo", "days": " "}  # a blank field is not given: the prompt's default
    chat._handlers._dispatch({**form, "fields": blank, "ref": "v-2"})
    await answered(wire, "accepted", 2)
    await settle(chat)
    assert chat.thread.messages[0].text == "Plan a 3-day trip to Oslo"
    chat.close()


async def test_a_fill_the_server_refuses_keeps_the_form_and_says_why(
    changing: gu.MCPTools, wire: list[Any]
) -> None:
    await changing.connect()
    chat = Chat(model=ScriptedModel(echo), tools=[changing])
    chat._handlers._dispatch(
        {"type": "starter_form", "prompt": PLAN, "fields": {"days": "2"}, "ref": "v-2"}
    )
    [error] = await answered(wire, "error")
    assert error["request"] == "starter_form" and error["ref"] == "v-2"
    assert error["message"] == "plan_trip could not be filled: the prompt 'plan_trip' needs city"
    assert customs(wire, "accepted") == [] and chat.thread.messages == []
    chat.close()


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ({"type": "starter_form", "prompt": "0/nope", "fields": {}}, "no longer offered"),
        ({"type": "starter_form", "prompt": PLAN, "fields": {"city": 3}}, "fields.city"),
        ({"type": "starter_form", "prompt": PLAN, "fields": "Oslo"}, "fields"),
        ({"type": "starter_form", "prompt": PLAN}, "fields"),
        (
            {"type": "complete", "prompt": PLAN, "argument": "town", "value": "", "context": {}},
            "has no field town",
        ),
        (
            {"type": "complete", "prompt": PLAN, "argument": "city", "value": "x" * 10_001},
            "value",
        ),
    ],
)
async def test_a_malformed_or_unknown_request_is_refused_with_a_clear_error(
    changing: gu.MCPTools, wire: list[Any], message: dict[str, Any], says: str
) -> None:
    await changing.connect()
    chat = Chat(model=ScriptedModel(echo), tools=[changing])
    if message["type"] == "complete":
        chat._handlers._dispatch({"request": 1, "context": {}, **message})
    else:
        chat._handlers._dispatch({**message, "ref": "v-3"})
    [error] = customs(wire, "error")
    assert says in error["message"] and error["request"] == message["type"]
    assert chat.thread.messages == []
    chat.close()


async def test_the_server_completes_a_field_with_the_other_fields_as_context(
    changing: gu.MCPTools, wire: list[Any]
) -> None:
    await changing.connect()
    chat = Chat(model=ScriptedModel(echo), tools=[changing])
    ask = {"type": "complete", "prompt": PLAN, "argument": "city", "value": "pa", "context": {}}
    chat._handlers._dispatch({**ask, "request": 1})
    chat._handlers._dispatch(
        {**ask, "argument": "days", "value": "", "context": {"city": "Oslo"}, "request": 2}
    )
    answers = {a["request"]: a for a in await answered(wire, "completion", 2)}
    assert answers[1]["values"] == ["Paris", "Padua"] and answers[1]["argument"] == "city"
    assert answers[2]["values"] == ["2 days in Oslo", "3 days in Oslo"]
    assert "error" not in answers[1] and customs(wire, "error") == []
    chat.close()


async def test_completions_in_flight_are_capped(
    changing: gu.MCPTools, wire: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    await changing.connect()
    monkeypatch.setattr(_starter_forms, "MAX_COMPLETING", 1)
    chat = Chat(model=ScriptedModel(echo), tools=[changing])
    ask = {"type": "complete", "prompt": PLAN, "argument": "city", "value": "p", "context": {}}
    chat._handlers._dispatch({**ask, "request": 1})
    chat._handlers._dispatch({**ask, "request": 2})  # the first one is still out
    answers = {a["request"]: a for a in await answered(wire, "completion", 2)}
    assert answers[2] == {**answers[2], "values": [], "error": "too many completions at once"}
    assert answers[1]["values"] == ["Paris", "Padua", "Porto"]
    chat._handlers._dispatch({**ask, "request": 3})  # answered: one may go again
    answers = {a["request"]: a for a in await answered(wire, "completion", 3)}
    assert answers[3]["values"] == ["Paris", "Padua", "Porto"]
    chat.close()


async def wait_for(check: Any) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the chat's starters did not follow the server")


async def test_an_open_chats_starters_follow_the_servers_list_changes(
    changing: gu.MCPTools, wire: list[Any]
) -> None:
    await changing.connect()
    model = ScriptedModel(
        [call("add_prompt", id="p1"), "added", call("remove_prompt", id="p2"), "x"]
    )
    chat = Chat(model=model, tools=[changing])
    assert [f["id"] for f in chat.starter_forms] == [PLAN]
    assert "Welcome me to the changed server" not in chat.starters
    await chat.send("add a prompt")
    await wait_for(lambda: "Welcome me to the changed server" in chat.starters)
    await chat.send("remove the trip")
    await wait_for(lambda: chat.starter_forms == [])
    assert "Welcome me to the changed server" in chat.starters
    # the view hears each change as a trait update, not a new display
    updates = [d for t, _, d in wire if t == "comm_msg" and d.get("method") == "update"]
    assert any("starter_forms" in u["state"] for u in updates)
    chat._handlers._dispatch({"type": "starter_form", "prompt": PLAN, "fields": {"city": "Oslo"}})
    [error] = customs(wire, "error")
    assert "no longer offered" in error["message"]
    # a completion asked as it went answers with why, in the form's own message
    ask = {"type": "complete", "prompt": PLAN, "argument": "city", "value": "p", "context": {}}
    chat._handlers._dispatch({**ask, "request": 9})
    [late] = customs(wire, "completion")
    assert late["values"] == [] and "no longer offered" in late["error"]
    assert len(customs(wire, "error")) == 1
    chat.close()


async def test_given_starters_replace_the_servers_forms_too(changing: gu.MCPTools) -> None:
    await changing.connect()
    chat = Chat(model=ScriptedModel(echo), tools=[changing], starters=["Say hi"])
    assert chat.starters == ["Say hi"] and chat.starter_forms == []
    chat.close()
