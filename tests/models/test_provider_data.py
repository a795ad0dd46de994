"""Provider data that must round-trip, through the official ``openai`` client
against the local OpenAI-compatible server (``tests/openai_server.py``).

Gemini's OpenAI-compatible endpoint streams a thought signature on each call
(``tool_calls[i].extra_content.google.thought_signature``) and DeepSeek's
reasoner streams ``reasoning_content``; each refuses the next request without
it (HTTP 400, bodies in ``openai_server.PROVIDER_ERRORS``, sources noted
there). We keep the data on the parts, keyed by the model's ``provider_key``,
in the thread file too, and send it back to that provider only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import Message, Thread, ToolCallPart
from ipygenui.models.base import ModelRequest, ReasoningDelta, ToolCallDelta
from ipygenui.models.history import assistant_messages
from ipygenui.models.openai import OpenAIModel
from ipygenui.persistence import decode_thread, encode_thread
from ipygenui.runtime._loop.accumulator import Accumulator
from ipygenui.widget._protocol import message_for_browser
from openai_helpers import collect_until_error
from openai_server import OpenAIServer, Reply, ToolCall

SIGNATURE = {"google": {"thought_signature": "c2lnLWZyb20tZ2VtaW5p"}}


@gu.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def gemini_call(call_id: str = "c1") -> Reply:
    return Reply.calls(ToolCall("add", {"a": 1, "b": 2}, id=call_id, extra_content=SIGNATURE))


def deepseek_call() -> Reply:
    return Reply.calls(
        ToolCall("add", {"a": 1, "b": 2}, id="d1"),
        reasoning="The user wants a sum: call add.",
        reasoning_field="reasoning_content",
    )


def assistant_calls(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "assistant" and m.get("tool_calls")]


def last_text(rt: gu.Runtime) -> str:
    message = rt.thread.messages[-1]
    return message.text


@pytest.mark.parametrize("typed_stream", [False, True])
async def test_gemini_thought_signature_goes_back_with_its_call(
    openai_server: OpenAIServer, make_model: Any, typed_stream: bool
) -> None:
    openai_server.script(gemini_call(), Reply(text="It is 3.", refuse_missing="thought_signature"))
    rt = gu.Runtime(model=make_model(typed_stream=typed_stream), tools=[add])
    await rt.send("1 + 2?")
    assert last_text(rt) == "It is 3.", rt.thread.messages[-1]
    (sent,) = assistant_calls(openai_server.requests[1])
    assert sent["tool_calls"][0]["extra_content"] == SIGNATURE
    assert "_provider_data" not in json.dumps(openai_server.requests[1])


@pytest.mark.parametrize("typed_stream", [False, True])
async def test_deepseek_reasoning_content_goes_back_with_the_steps_calls(
    openai_server: OpenAIServer, make_model: Any, typed_stream: bool
) -> None:
    openai_server.script(deepseek_call(), Reply(text="3.", refuse_missing="reasoning_content"))
    rt = gu.Runtime(model=make_model(typed_stream=typed_stream), tools=[add])
    await rt.send("1 + 2?")
    assert last_text(rt) == "3.", rt.thread.messages[-1]
    (sent,) = assistant_calls(openai_server.requests[1])
    assert sent["reasoning_content"] == "The user wants a sum: call add."
    assert "_reasoning" not in sent


async def test_the_signature_survives_a_save_and_load(
    openai_server: OpenAIServer, make_model: Any, tmp_path: Path
) -> None:
    path = tmp_path / "t.json"
    openai_server.script(gemini_call(), Reply(text="3."))
    rt = gu.Runtime(model=make_model(), tools=[add], persist=path)
    await rt.send("1 + 2?")
    rt.close()  # the file plus its journal held it; close() writes one JSON file
    assert "thought_signature" in path.read_text(encoding="utf-8")
    openai_server.script(Reply(text="Still 3.", refuse_missing="thought_signature"))
    loaded = gu.Runtime(model=make_model(), tools=[add], persist=path)
    await loaded.send("again?")
    assert last_text(loaded) == "Still 3.", loaded.thread.messages[-1]
    (sent,) = assistant_calls(openai_server.requests[-1])
    assert sent["tool_calls"][0]["extra_content"] == SIGNATURE


async def test_another_provider_gets_none_of_it(
    openai_server: OpenAIServer, make_model: Any, tmp_path: Path
) -> None:
    path = tmp_path / "t.json"
    openai_server.script(gemini_call(), Reply(text="3."), deepseek_call(), Reply(text="3 again."))
    rt = gu.Runtime(model=make_model(), tools=[add], persist=path)
    await rt.send("1 + 2?")
    await rt.send("and once more?")
    openai_server.script(Reply(text="From elsewhere."))
    other = gu.Runtime(
        model=make_model(provider_key="openai-compatible:http://elsewhere/v1"),
        tools=[add],
        persist=path,
    )
    await other.send("hello")
    assert last_text(other) == "From elsewhere."
    wire = json.dumps(openai_server.requests[-1])
    assert len(assistant_calls(openai_server.requests[-1])) == 2
    for leaked in ("extra_content", "thought_signature", "reasoning_content", "_provider_data"):
        assert leaked not in wire, leaked


async def test_geminis_refusal_reads_in_its_own_words(
    openai_server: OpenAIServer, make_model: Any
) -> None:
    """A call sent without its signature is a 400 whose body is a JSON list
    (``[{"error": {...}}]``): the chat shows Gemini's message, not "Error code: 400"."""
    openai_server.script(Reply(text="no", refuse_missing="thought_signature"))
    history = [
        {"role": "user", "content": "1 + 2?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
    ]
    model = make_model(max_retries=0)
    _, error = await collect_until_error(model, ModelRequest(messages=history))
    assert "HTTP 400" in str(error) and "missing a thought_signature" in str(error)


def test_a_thread_file_keeps_provider_data_and_an_old_one_loads(tmp_path: Path) -> None:
    call = {"type": "tool-call", "tool_call_id": "c1", "tool_name": "add", "args_text": "{}"}
    old = {"messages": [{"id": "m1", "role": "assistant", "parts": [call]}]}
    thread = Thread.model_validate(old)
    assert thread.messages[0].parts[0].provider_data is None  # type: ignore[union-attr]
    thread.messages[0].parts[0].provider_data = {"k": SIGNATURE}  # type: ignore[union-attr]
    again = decode_thread(encode_thread(thread), tmp_path / "t.json")
    assert again.messages[0].parts[0].provider_data == {"k": SIGNATURE}  # type: ignore[union-attr]
    # opaque and for the provider only: the browser's snapshot leaves it out
    assert "provider_data" not in message_for_browser(again.messages[0])["parts"][0]


def test_provider_data_in_a_batch_is_kept_and_sent_only_to_its_provider() -> None:
    """A batch joins a call's argument pieces into one delta: a piece that
    carries provider data (a late signature) is not joined away."""
    message = Message(role="assistant")
    acc = Accumulator(message, {})
    late = {"gemini": {"extra_content": SIGNATURE}}
    reasoning = {"deepseek": {"field": "reasoning_content"}}
    acc.apply_batch(
        [
            ReasoningDelta("Think", reasoning),
            ReasoningDelta("ing.", reasoning),
            ToolCallDelta(0, id="c1", name="add"),
            ToolCallDelta(0, arguments='{"a": 1, '),
            ToolCallDelta(0, arguments='"b": 2}', provider_data=late),
        ]
    )
    acc.materialize()
    call = message.parts[1]
    assert isinstance(call, ToolCallPart) and call.provider_data == late
    assert message.parts[0].provider_data == reasoning  # type: ignore[union-attr]
    call.result, call.has_result = 3, True
    history = assistant_messages(message)
    for key, field in (("gemini", "extra_content"), ("deepseek", "reasoning_content")):
        model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="k", provider_key=key)
        wire = model._wire_messages(history)
        text = json.dumps(wire)
        assert field in text and "_provider_data" not in text and "_reasoning" not in text
        assert ("extra_content" in text) is (key == "gemini")  # never the other's
        assert ("reasoning_content" in text) is (key == "deepseek")
    assert wire[0]["reasoning_content"] == "Thinking."
