"""OpenAIModel through the real openai client against a local SSE server.

The network faults (HTTP errors, retries, drops, stalls, garbage) are in
tests/faults/test_network.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from ipygenui._internal.partial_json import PartialJSONParser
from ipygenui._internal.standard_params import split_standard_arguments, with_standard_parameters
from ipygenui.models.base import (
    FinishDelta,
    ModelDelta,
    ModelRequest,
    ReasoningDelta,
    ToolCallDelta,
    UsageDelta,
)
from ipygenui.models.openai import OpenAIModel
from ipygenui.runtime._loop.tool_choice import resolve_tool_choice
from openai_helpers import HI, ModelFactory, collect, text_of
from openai_server import OpenAIServer, Reply, ToolCall, table_args


def tool(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "function",
        "function": {"name": name, "parameters": with_standard_parameters(schema)},
    }


def calls_of(deltas: list[ModelDelta]) -> dict[int, dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for d in deltas:
        if isinstance(d, ToolCallDelta):
            call = calls.setdefault(d.index, {"id": None, "name": None, "arguments": ""})
            call["id"] = d.id or call["id"]
            call["name"] = d.name or call["name"]
            call["arguments"] += d.arguments
    return calls


# --- replies ------------------------------------------------------------------


@pytest.mark.parametrize("typed", [False, True])
async def test_text_reply_with_usage_and_stop(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    openai_server.script(Reply.text_reply("Hello from the server, streamed in pieces."))
    deltas = await collect(make_model(typed_stream=typed, temperature=0))
    assert text_of(deltas) == "Hello from the server, streamed in pieces."
    assert deltas[-1] == FinishDelta("stop")
    assert UsageDelta(input_tokens=11, output_tokens=22) in deltas
    body = openai_server.requests[0]
    assert body["model"] == "test-model"
    assert body["messages"] == HI
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0
    assert "tools" not in body
    assert "tool_choice" not in body  # no tools: no tool_choice either


@pytest.mark.parametrize("typed", [False, True])
async def test_one_tool_call_and_tools_sent(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    args = {"_status_message": "looking up Beijing", "city": "Beijing"}
    openai_server.script(Reply.calls(ToolCall("get_weather", args, id="call_abc")))
    tools = [tool("get_weather", city={"type": "string"})]
    choice = resolve_tool_choice("get_weather", ["get_weather"])
    request = ModelRequest(messages=HI, tools=tools, tool_choice=choice)
    deltas = await collect(make_model(typed_stream=typed), request)
    assert calls_of(deltas) == {
        0: {"id": "call_abc", "name": "get_weather", "arguments": json.dumps(args)}
    }
    assert deltas[-1] == FinishDelta("tool_calls")
    body = openai_server.requests[0]
    assert body["tools"] == tools
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}


@pytest.mark.parametrize("interleave", [False, True])
async def test_parallel_tool_calls_each_keep_their_arguments(
    make_model: ModelFactory, openai_server: OpenAIServer, interleave: bool
) -> None:
    calls = [ToolCall("get_weather", {"city": c}, id=f"id_{c}") for c in ("Paris", "Oslo", "Rome")]
    openai_server.script(Reply.calls(*calls, interleave=interleave, chunk_size=3))
    deltas = await collect(make_model())
    got = calls_of(deltas)
    assert [got[i]["id"] for i in range(3)] == ["id_Paris", "id_Oslo", "id_Rome"]
    assert [json.loads(got[i]["arguments"]) for i in range(3)] == [
        {"city": "Paris"},
        {"city": "Oslo"},
        {"city": "Rome"},
    ]
    assert deltas[-1] == FinishDelta("tool_calls")


async def test_calls_all_sent_at_index_zero_are_told_apart_by_id(
    make_model: ModelFactory,
    openai_server: OpenAIServer,
) -> None:
    calls = [ToolCall("f", {"n": n}, id=f"c{n}") for n in (1, 2)]
    openai_server.script(Reply.calls(*calls, index_all_zero=True))
    got = calls_of(await collect(make_model()))
    assert {i: (c["id"], json.loads(c["arguments"])) for i, c in got.items()} == {
        0: ("c1", {"n": 1}),
        1: ("c2", {"n": 2}),
    }


async def test_component_props_stream_into_a_growing_partial_value(
    make_model: ModelFactory,
    openai_server: OpenAIServer,
) -> None:
    props = table_args(40)
    openai_server.script(Reply.calls(ToolCall("show_component_Table", props), chunk_size=4))
    parser = PartialJSONParser()
    row_counts = []
    statuses = []
    async for delta in make_model().stream(ModelRequest(messages=HI)):
        if isinstance(delta, ToolCallDelta) and delta.arguments:
            parser.feed(delta.arguments)
            value = parser.value
            row_counts.append(len(value.get("rows", [])))
            _, status, _ = split_standard_arguments(value, {"title", "rows"})
            statuses.append(status)
    assert parser.done
    assert parser.value == props
    assert row_counts == sorted(row_counts)  # rows only ever grow
    assert len(set(row_counts)) > 30  # and the component saw them arrive one by one
    assert "showing the" in statuses  # the status message was readable mid-stream
    assert statuses[-1] == "showing the table"
    kept, _, completion = split_standard_arguments(parser.value, {"title", "rows"})
    assert set(kept) == {"title", "rows"}
    assert completion == "showed the table"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_from_either_field(
    make_model: ModelFactory, openai_server: OpenAIServer, field: str
) -> None:
    openai_server.script(Reply(reasoning="Thinking it over.", reasoning_field=field, text="42"))
    deltas = await collect(make_model())
    thought = "".join(d.text for d in deltas if isinstance(d, ReasoningDelta))
    assert thought == "Thinking it over."
    assert text_of(deltas) == "42"


@pytest.mark.parametrize(
    ("reason", "expected"),
    [("length", "length"), ("content_filter", "content_filter"), ("weird", "other")],
)
async def test_finish_reasons_are_mapped(
    make_model: ModelFactory, openai_server: OpenAIServer, reason: str, expected: str
) -> None:
    openai_server.script(Reply(text="cut", finish_reason=reason))
    deltas = await collect(make_model())
    assert deltas[-1] == FinishDelta(expected)  # type: ignore[arg-type]


async def test_stop_after_tool_calls_reads_as_tool_calls(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.calls(ToolCall("f", {}), finish_reason="stop"))
    deltas = await collect(make_model())
    assert deltas[-1] == FinishDelta("tool_calls")


# --- cancel, tool_choice, construction --------------------------------------------


async def test_cancel_stops_reading_even_while_waiting(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("x" * 400, delay=0.05, chunk_size=1))
    request = ModelRequest(messages=HI)
    seen: list[ModelDelta] = []

    async def read() -> None:
        async for delta in make_model().stream(request):
            seen.append(delta)
            if len(seen) == 3:
                asyncio.get_running_loop().call_later(0.02, request.cancel.set)

    await asyncio.wait_for(read(), timeout=10)  # a guard against hanging, not a timing test
    assert 3 <= len(seen) < 100
    assert not any(isinstance(d, FinishDelta) for d in seen)


async def test_unknown_tool_choice_fails_before_any_request(openai_server: OpenAIServer) -> None:
    with pytest.raises(ValueError, match="get_weather"):
        resolve_tool_choice("get_wether", ["get_weather"])
    assert openai_server.requests == []


def test_missing_api_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIModel("gpt-4o-mini")
    local = OpenAIModel("llama3", base_url="http://127.0.0.1:11434/v1")
    assert local.name == "llama3"
    assert local.offline is False


async def test_own_client_is_made_per_event_loop(openai_server: OpenAIServer) -> None:
    model = OpenAIModel("m", base_url=openai_server.base_url, api_key="k")
    openai_server.default = Reply.text_reply("again")
    assert text_of(await collect(model)) == "again"
    first = model.client
    theirs: list[Any] = []

    async def text_and_client() -> str:
        text = await _text(model)
        theirs.append(model.client)
        return text

    def other_loop() -> str:
        return asyncio.run(text_and_client())

    assert await asyncio.to_thread(other_loop) == "again"
    assert theirs[0] is not first
    assert model.client is first  # each loop keeps its own until it closes


async def _text(model: OpenAIModel) -> str:
    return text_of(await collect(model))
