"""Faults tried against tool-call ids.

- Ids a provider repeats: two calls of one step with one id, the same id in
  every step ("call_0"), the same id in a later run, two gated calls with one
  id; through ScriptedModel and through the real openai client against the
  local SSE server. Every call runs once under its own id, each gated call can
  be approved, and every history sent is valid.
- A saved thread from before ids were made unique, with two calls of one step
  sharing an id: the history sent from it is still valid.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest

import ipygenui as gu
from ipygenui.messages import Complete, Message, RequiresAction, TextPart, Thread, ToolCallPart
from ipygenui.models.history import check_openai_history, to_openai_messages
from ipygenui.testing import ScriptedModel
from openai_server import OpenAIServer, Reply, ToolCall
from runtime_helpers import assert_valid, call, tool_messages

DROPPED: list[str] = []


@gu.tool
def get_weather(city: str) -> dict[str, str]:
    """Weather for a city."""
    return {"city": city, "sky": "sunny"}


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    DROPPED.append(name)
    return f"dropped {name}"


@pytest.fixture(autouse=True)
def _reset() -> None:
    DROPPED.clear()


def _runtime(script: list[Any]) -> tuple[gu.Runtime, ScriptedModel]:
    model = ScriptedModel(script)
    return gu.Runtime(model=model, tools=[get_weather, drop_table]), model


def _all_ids(rt: gu.Runtime) -> list[str]:
    return [p.tool_call_id for m in rt.thread.messages for p in m.tool_calls]


async def test_two_calls_of_one_step_with_one_id_each_run_once() -> None:
    rt, model = _runtime(
        [
            [
                call("get_weather", {"city": "Paris"}, id="dup"),
                call("get_weather", {"city": "Oslo"}, id="dup"),
            ],
            "Both sunny.",
        ]
    )
    message = await rt.send("weather")
    assert message.status == Complete(reason="stop")
    ids = _all_ids(rt)
    assert len(ids) == 2 and len(set(ids)) == 2 and "dup" in ids
    assert [p.result for p in message.tool_calls] == [
        {"city": "Paris", "sky": "sunny"},
        {"city": "Oslo", "sky": "sunny"},
    ]
    assert_valid(model)
    assert sorted(r["city"] for r in tool_messages(model.requests[-1]).values()) == [
        "Oslo",
        "Paris",
    ]


async def test_an_id_reused_in_every_step_and_run_stays_unique_in_the_thread() -> None:
    rt, model = _runtime(
        [
            call("get_weather", {"city": "A"}, id="call_0"),
            call("get_weather", {"city": "B"}, id="call_0"),
            "first",
            call("get_weather", {"city": "C"}, id="call_0"),
            "second",
        ]
    )
    await rt.send("one")
    await rt.send("two")
    ids = _all_ids(rt)
    assert len(ids) == 3 and len(set(ids)) == 3
    assert_valid(model)
    sent = [tc["id"] for m in model.requests[-1].messages for tc in m.get("tool_calls") or []]
    assert sorted(sent) == sorted(ids)


async def test_two_gated_calls_with_one_id_can_each_be_approved() -> None:
    rt, model = _runtime(
        [
            [
                call("drop_table", {"name": "a"}, id="same"),
                call("drop_table", {"name": "b"}, id="same"),
            ],
            "Dropped.",
        ]
    )
    message = await rt.send("drop both")
    assert message.status == RequiresAction()
    first, second = message.tool_calls
    assert first.tool_call_id != second.tool_call_id
    assert first.approval is not None and first.approval.status == "pending"
    assert second.approval is not None and second.approval.status == "pending"
    assert rt.approve(first.tool_call_id) is None  # the other call still waits
    final = await rt.approve(second.tool_call_id)  # type: ignore[misc]
    assert final.status == Complete(reason="stop")
    assert sorted(DROPPED) == ["a", "b"]
    assert_valid(model)


@pytest.fixture
async def openai_client(openai_server: OpenAIServer) -> AsyncIterator[openai.AsyncOpenAI]:
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key="test-key", max_retries=0, timeout=10.0
    )
    yield client
    await client.close()


async def test_duplicate_ids_from_a_real_openai_stream(
    openai_server: OpenAIServer, openai_client: openai.AsyncOpenAI
) -> None:
    openai_server.script(
        Reply.calls(
            ToolCall("get_weather", {"city": "Paris"}, id="call_0"),
            ToolCall("get_weather", {"city": "Oslo"}, id="call_0"),
        ),
        Reply.calls(ToolCall("get_weather", {"city": "Rome"}, id="call_0")),
        Reply.text_reply("All sunny."),
    )
    model = gu.OpenAIModel("test-model", client=openai_client)
    rt = gu.Runtime(model=model, tools=[get_weather])
    message = await rt.send("weather in three cities")
    assert message.status == Complete(reason="stop"), message.status
    assert len(set(_all_ids(rt))) == 3
    body = openai_server.requests[-1]["messages"]
    check_openai_history(body)
    calls = [tc for m in body if m["role"] == "assistant" for tc in m.get("tool_calls") or []]
    answers = [m for m in body if m["role"] == "tool"]
    assert len(calls) == 3 and len({tc["id"] for tc in calls}) == 3
    assert sorted(m["tool_call_id"] for m in answers) == sorted(tc["id"] for tc in calls)
    cities = sorted(json.loads(m["content"])["city"] for m in answers)
    assert cities == ["Oslo", "Paris", "Rome"]


async def test_a_saved_thread_with_duplicate_ids_still_sends_a_valid_history() -> None:
    calls = [
        ToolCallPart(
            tool_call_id="call_0",
            tool_name="get_weather",
            args_text=json.dumps({"city": city}),
            args={"city": city},
            args_complete=True,
            result={"city": city},
            has_result=True,
        )
        for city in ("Paris", "Oslo")
    ]
    thread = Thread(
        messages=[
            Message(role="user", parts=[TextPart(text="weather")]),
            Message(role="assistant", parts=[*calls, TextPart(text="Both sunny.")]),
        ]
    )
    history = to_openai_messages(thread)
    check_openai_history(history)
    answers = [json.loads(m["content"])["city"] for m in history if m["role"] == "tool"]
    assert answers == ["Paris", "Oslo"]

    model = ScriptedModel(["Still sunny."])
    rt = gu.Runtime(model=model, tools=[get_weather], thread=thread)
    message = await rt.send("and now?")
    assert message.status == Complete(reason="stop")
    assert_valid(model)
