"""The local native provider servers (``tests/provider_servers/``), checked
with each provider's official SDK: the streams parse, their events have the
shapes of the recordings they were built from, and a follow-up request is
answered as the real provider answers it (200 with its data kept, its real
HTTP 400 without it or with another provider's).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from provider_servers import AnthropicServer, Call, GeminiServer, ResponsesServer, Turn
from provider_servers._http import recorded_events
from provider_servers.responses import error_body

ADD = Call("add", {"a": 1, "b": 2})
THINKING: Any = {"type": "enabled", "budget_tokens": 1024}


def _sse_events(frames: list[bytes]) -> list[dict[str, Any]]:
    events = []
    for frame in frames:
        for line in frame.decode().splitlines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :]))
    return events


def _shape(event: dict[str, Any], ignore: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(event) - ignore


# --- Anthropic Messages ------------------------------------------------------------


@pytest.fixture
async def claude() -> AsyncIterator[tuple[AnthropicServer, anthropic.AsyncAnthropic]]:
    with AnthropicServer() as server:
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="k", max_retries=0)
        yield server, client
        await client.close()


async def _claude(client: anthropic.AsyncAnthropic, **request: Any) -> anthropic.types.Message:
    """One streamed request's final message (the servers stream only, as pydantic-ai asks)."""
    request.setdefault("model", "claude-sonnet-4-5")
    request.setdefault("max_tokens", 2048)
    async with client.messages.stream(**request) as stream:
        return await stream.get_final_message()


def _anthropic_kind(event: dict[str, Any]) -> tuple[str, str]:
    inner = event.get("delta") or event.get("content_block") or {}
    return event["type"], inner.get("type", "") if event["type"].startswith("content") else ""


def test_anthropic_events_have_the_recorded_shapes() -> None:
    recorded = recorded_events("anthropic_thinking_text.sse") + recorded_events(
        "anthropic_tool_use_input_json.sse"
    )
    shapes = {_anthropic_kind(e): _shape(e) for e in recorded}
    blocks = {
        _anthropic_kind(e): _shape(e["content_block"]) for e in recorded if "content_block" in e
    }
    server = AnthropicServer()
    ours = _sse_events(list(server.events(Turn("Hi.", "Hmm.", [ADD]), "claude", thinking=True)))
    kinds = [_anthropic_kind(e) for e in ours]
    for wanted in [
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_delta", "text_delta"),
        ("content_block_delta", "input_json_delta"),
        ("message_delta", ""),
        ("message_stop", ""),
    ]:
        assert wanted in kinds, wanted
    for event in ours:
        kind = _anthropic_kind(event)
        assert _shape(event) == shapes[kind], kind
        if "content_block" in event:  # the recorded tool_use also names its "caller"
            assert _shape(event["content_block"]) <= blocks[kind], kind
    start = ours[0]["message"]
    assert _shape(start) == _shape(recorded[0]["message"])


async def test_anthropic_sdk_streams_thinking_text_and_a_tool_call(
    claude: tuple[AnthropicServer, anthropic.AsyncAnthropic],
) -> None:
    server, client = claude
    server.script(Turn(text="Adding.", reasoning="The user wants a sum.", calls=[ADD]))
    prompt: Any = [{"role": "user", "content": "1 + 2?"}]
    partials: list[str] = []
    async with client.messages.stream(
        model="claude-sonnet-4-5", max_tokens=2048, messages=prompt, thinking=THINKING
    ) as stream:
        async for event in stream:
            if event.type == "input_json":
                partials.append(event.partial_json)
        message = await stream.get_final_message()
    thinking, text, call = message.content
    assert thinking.type == "thinking" and thinking.thinking == "The user wants a sum."
    assert thinking.signature in server.signatures
    assert text.type == "text" and text.text == "Adding."
    assert call.type == "tool_use" and call.input == {"a": 1, "b": 2}
    assert len(partials) > 2 and "".join(partials) == json.dumps({"a": 1, "b": 2})
    assert message.stop_reason == "tool_use"
    assert message.usage.output_tokens == 34 and message.usage.cache_read_input_tokens == 5


async def test_anthropic_follow_up_needs_the_signed_thinking_block(
    claude: tuple[AnthropicServer, anthropic.AsyncAnthropic],
) -> None:
    server, client = claude
    server.script(Turn(reasoning="Sum.", calls=[ADD]), Turn(text="no"), Turn(text="no"))
    server.script(Turn(text="It is 3."))
    prompt: list[Any] = [{"role": "user", "content": "1 + 2?"}]
    first = await _claude(client, messages=prompt, thinking=THINKING)
    blocks = [block.model_dump(exclude_none=True) for block in first.content]
    for block in blocks:
        block.pop("caller", None)
    result = {"type": "tool_result", "tool_use_id": blocks[-1]["id"], "content": "3"}

    def follow_up(assistant: list[dict[str, Any]]) -> list[Any]:
        return [
            *prompt,
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": [result]},
        ]

    with pytest.raises(anthropic.BadRequestError) as missing:
        await _claude(client, messages=follow_up(blocks[1:]), thinking=THINKING)
    assert "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in str(missing.value)
    forged = [{**blocks[0], "signature": "c2lnbmVkIGJ5IHNvbWVvbmUgZWxzZQ=="}, *blocks[1:]]
    with pytest.raises(anthropic.BadRequestError) as invalid:
        await _claude(client, messages=follow_up(forged), thinking=THINKING)
    assert "messages.1.content.0: Invalid `signature` in `thinking` block" in str(invalid.value)
    answer = await _claude(client, messages=follow_up(blocks), thinking=THINKING)
    assert answer.content[0].type == "text" and answer.content[0].text == "It is 3."
    assert len(server.refusals) == 2


async def test_anthropic_streams_no_thinking_unless_asked(
    claude: tuple[AnthropicServer, anthropic.AsyncAnthropic],
) -> None:
    server, client = claude
    server.script(Turn(text="Hi.", reasoning="never shown"))
    message = await _claude(client, messages=[{"role": "user", "content": "hi"}])
    assert [block.type for block in message.content] == ["text"]


# --- Gemini ---------------------------------------------------------------------------


@pytest.fixture
async def gemini() -> AsyncIterator[tuple[GeminiServer, genai.Client]]:
    with GeminiServer() as server:
        client = genai.Client(
            api_key="k", http_options=genai_types.HttpOptions(base_url=server.base_url)
        )
        yield server, client
        await client.aio.aclose()


THOUGHTS = genai_types.GenerateContentConfig(
    thinking_config=genai_types.ThinkingConfig(include_thoughts=True)
)


async def _gemini_parts(
    client: genai.Client, contents: Any, config: Any = THOUGHTS
) -> tuple[list[genai_types.Part], Any]:
    parts: list[genai_types.Part] = []
    usage = None
    stream = await client.aio.models.generate_content_stream(
        model="gemini-2.5-flash", contents=contents, config=config
    )
    async for chunk in stream:
        assert chunk.candidates and chunk.candidates[0].content
        parts += chunk.candidates[0].content.parts or []
        usage = chunk.usage_metadata
    return parts, usage


def test_gemini_chunks_have_the_recorded_shapes() -> None:
    recorded = recorded_events("gemini_function_call_signature.sse")
    thought = recorded_events("gemini_thought_parts.sse")[0]
    server = GeminiServer()
    ours = _sse_events(list(server.chunks(Turn("Hi.", "Hmm.", [ADD]), "gemini", thoughts=True)))
    for chunk in ours:
        assert _shape(chunk) == _shape(recorded[0])
        usage = _shape(chunk["usageMetadata"]) - {"cachedContentTokenCount"}
        assert usage == _shape(recorded[0]["usageMetadata"])
    call_part = next(
        p for c in ours for p in c["candidates"][0]["content"]["parts"] if "functionCall" in p
    )
    assert _shape(call_part) == _shape(recorded[0]["candidates"][0]["content"]["parts"][0])
    thought_part = ours[0]["candidates"][0]["content"]["parts"][0]
    assert _shape(thought_part) == _shape(thought["candidates"][0]["content"]["parts"][0])
    assert _shape(ours[-1]["candidates"][0]) == _shape(recorded[-1]["candidates"][0])


async def test_gemini_sdk_streams_thoughts_and_a_whole_call_with_its_signature(
    gemini: tuple[GeminiServer, genai.Client],
) -> None:
    server, client = gemini
    server.script(Turn(reasoning="The user wants a sum.", calls=[ADD]))
    parts, usage = await _gemini_parts(client, "1 + 2?")
    thoughts = "".join(p.text or "" for p in parts if p.thought)
    assert thoughts == "The user wants a sum."
    (call,) = [p for p in parts if p.function_call]
    assert call.function_call is not None and call.function_call.args == {"a": 1, "b": 2}
    assert call.thought_signature in server.signatures
    assert usage.thoughts_token_count == 13 and usage.cached_content_token_count == 5


async def test_gemini_follow_up_needs_the_calls_thought_signature(
    gemini: tuple[GeminiServer, genai.Client],
) -> None:
    server, client = gemini
    server.script(Turn(reasoning="Sum.", calls=[ADD]), Turn(text="no"), Turn(text="no"))
    server.script(Turn(text="It is 3."), Turn(text="Also fine."))
    parts, _ = await _gemini_parts(client, "1 + 2?")
    (call,) = [p for p in parts if p.function_call]
    question = genai_types.Content(role="user", parts=[genai_types.Part(text="1 + 2?")])
    answer = genai_types.Part.from_function_response(name="add", response={"result": 3})

    def follow_up(call_part: genai_types.Part) -> list[genai_types.Content]:
        return [
            question,
            genai_types.Content(role="model", parts=[call_part]),
            genai_types.Content(role="user", parts=[answer]),
        ]

    unsigned = genai_types.Part(function_call=call.function_call)
    with pytest.raises(genai_errors.ClientError) as missing:
        await _gemini_parts(client, follow_up(unsigned))
    assert missing.value.code == 400
    assert "Function call is missing a thought_signature in functionCall parts" in str(
        missing.value
    )
    assert "`default_api:add` , position 2" in str(missing.value)
    foreign = genai_types.Part(function_call=call.function_call, thought_signature=b"elsewhere")
    with pytest.raises(genai_errors.ClientError, match="Corrupted thought signature"):
        await _gemini_parts(client, follow_up(foreign))
    parts, _ = await _gemini_parts(client, follow_up(call))
    assert "".join(p.text or "" for p in parts) == "It is 3."
    dummy = genai_types.Part(
        function_call=call.function_call, thought_signature=b"skip_thought_signature_validator"
    )
    parts, _ = await _gemini_parts(client, follow_up(dummy))  # documented, so accepted
    assert "".join(p.text or "" for p in parts) == "Also fine."


# --- OpenAI Responses -----------------------------------------------------------------


@pytest.fixture
async def responses() -> AsyncIterator[tuple[ResponsesServer, openai.AsyncOpenAI]]:
    with ResponsesServer() as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        yield server, client
        await client.close()


async def _respond(client: openai.AsyncOpenAI, **request: Any) -> Any:
    async with client.responses.stream(model="gpt-5", **request) as stream:
        return await stream.get_final_response()


def test_responses_events_have_the_recorded_shapes() -> None:
    ignore = frozenset({"sequence_number", "obfuscation"})
    recorded = recorded_events("responses_reasoning_summary.sse") + recorded_events(
        "responses_function_call.sse"
    )
    shapes: dict[str, frozenset[str]] = {}
    items: dict[str, frozenset[str]] = {}
    for event in recorded:
        shapes.setdefault(event["type"], _shape(event, ignore))
        if "item" in event:
            items.setdefault(event["item"]["type"], _shape(event["item"], frozenset({"status"})))
    server = ResponsesServer()
    turn = Turn("Hi.", "Hmm.", [ADD])
    ours = _sse_events(list(server.events(turn, "gpt-5", encrypted=True)))
    kinds = {event["type"] for event in ours}
    assert {
        "response.created",
        "response.output_item.added",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_text.delta",
        "response.completed",
    } <= kinds
    for event in ours:
        assert _shape(event, ignore) == shapes[event["type"]], event["type"]
        if "item" in event:
            kind = event["item"]["type"]
            assert _shape(event["item"], frozenset({"status"})) == items[kind], kind
    assert [e["sequence_number"] for e in ours] == list(range(len(ours)))
    recorded_response = recorded[0]["response"]
    assert _shape(ours[-1]["response"]) == _shape(recorded_response)


async def test_responses_sdk_streams_a_reasoning_summary_and_a_call(
    responses: tuple[ResponsesServer, openai.AsyncOpenAI],
) -> None:
    server, client = responses
    server.script(Turn(reasoning="The user wants a sum.", text="Adding.", calls=[ADD]))
    summary: list[str] = []
    arguments: list[str] = []
    async with client.responses.stream(
        model="gpt-5", input="1 + 2?", include=["reasoning.encrypted_content"]
    ) as stream:
        async for event in stream:
            if event.type == "response.reasoning_summary_text.delta":
                summary.append(event.delta)
            elif event.type == "response.function_call_arguments.delta":
                arguments.append(event.delta)
        final = await stream.get_final_response()
    reasoning, message, call = final.output
    assert reasoning.type == "reasoning" and reasoning.encrypted_content
    assert "".join(summary) == "The user wants a sum."
    assert message.type == "message" and final.output_text == "Adding."
    assert call.type == "function_call" and json.loads(call.arguments) == {"a": 1, "b": 2}
    assert len(arguments) > 1
    assert final.usage is not None
    assert final.usage.output_tokens_details.reasoning_tokens == 13
    assert final.usage.input_tokens_details.cached_tokens == 5


async def test_responses_follow_up_needs_the_calls_reasoning_item(
    responses: tuple[ResponsesServer, openai.AsyncOpenAI],
) -> None:
    server, client = responses
    server.script(Turn(reasoning="Sum.", calls=[ADD]), Turn(text="no"), Turn(text="no"))
    server.script(Turn(text="It is 3."))
    first = await _respond(client, input="1 + 2?", include=["reasoning.encrypted_content"])
    reasoning, call = (item.model_dump(exclude_none=True) for item in first.output)
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "3"}
    question = {"role": "user", "content": "1 + 2?"}
    with pytest.raises(openai.BadRequestError) as missing:
        await _respond(client, input=[question, call, output])
    expected = (
        f"Item '{call['id']}' of type 'function_call' was provided without its required "
        f"'reasoning' item: '{reasoning['id']}'."
    )
    assert missing.value.body == error_body(expected)["error"]
    anonymous = {key: value for key, value in call.items() if key != "id"}
    with pytest.raises(openai.BadRequestError) as orphan:
        await _respond(client, input=[question, reasoning, anonymous, output])
    expected = (
        f"Item '{reasoning['id']}' of type 'reasoning' was provided without its required "
        "following item."
    )
    assert orphan.value.body == error_body(expected)["error"]
    answer = await _respond(client, input=[question, reasoning, call, output])
    assert answer.output_text == "It is 3."
