"""ProviderModel under faults: refusals, rate limits, cut streams, Stop, and
thread files that carry another provider's (or a forged) provider data: an
integer ``thought_signature`` is not sent back, a 2 MB blob is dropped on load
and as it streams (``MAX_PROVIDER_DATA_CHARS``).

Errors are raised by pydantic-ai's own ``FunctionModel`` stream functions
(the exception types its adapters raise for each provider) or, for Stop, come
from a real Anthropic SDK stream served on 127.0.0.1 that never finishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from pydantic_ai import messages as pm
from pydantic_ai.exceptions import ModelConnectionError, ModelHTTPError
from pydantic_ai.models.function import AgentInfo, FunctionModel

import ipygenui as gu
from ipygenui.messages import Message, ReasoningPart
from ipygenui.models._provider_messages import to_model_messages
from ipygenui.models.base import ModelError, ModelRequest, ReasoningDelta, TextDelta
from ipygenui.models.providers import ProviderModel
from ipygenui.runtime._loop.accumulator import Accumulator

CLAUDE_400 = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "messages.1.content.0.thinking.signature: Field required",
    },
}


def request() -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": "hi"}])


def failing(*errors: BaseException, text: str = "") -> Any:
    """A stream function that raises ``errors`` one per request (after ``text``), then answers."""
    pending = list(errors)

    async def stream(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        if text:
            yield text
        if pending:
            raise pending.pop(0)
        yield "fine"

    return stream


async def collect(model: ProviderModel, req: ModelRequest | None = None) -> list[Any]:
    return [d async for d in model.stream(req or request())]


async def test_a_refusal_reads_in_the_providers_own_words() -> None:
    model = ProviderModel(
        FunctionModel(stream_function=failing(ModelHTTPError(400, "claude", body=CLAUDE_400)))
    )
    with pytest.raises(ModelError) as caught:
        await collect(model)
    assert str(caught.value) == (
        f"{model.name} at {model.base_url} answered HTTP 400: "
        "messages.1.content.0.thinking.signature: Field required"
    )


async def test_a_rate_limit_is_retried_after_retry_after_and_said_aloud() -> None:
    said: list[str] = []
    limited = ModelHTTPError(429, "m", body={"error": {"message": "slow down"}}, retry_after=0.05)
    model = ProviderModel(FunctionModel(stream_function=failing(limited)))
    req = request()
    req.status = said.append
    deltas = await collect(model, req)
    assert TextDelta("fine") in deltas
    assert said[0].startswith(f"Rate limited by {model.base_url}: retrying in ")
    assert said[0].endswith("(retry 1 of 2)") and said[-1] == ""


async def test_a_wait_longer_than_max_retry_wait_fails_at_once() -> None:
    limited = ModelHTTPError(429, "m", body={"error": {"message": "quota"}}, retry_after=3600)
    model = ProviderModel(FunctionModel(stream_function=failing(limited)), max_retry_wait=5)
    with pytest.raises(ModelError, match=r"asks to wait 3600 s .* longer than max_retry_wait"):
        await collect(model)


async def test_an_error_mid_stream_keeps_the_text_and_says_so() -> None:
    in_stream = ModelHTTPError(529, "m", body={"error": {"message": "Overloaded"}}, in_stream=True)
    model = ProviderModel(FunctionModel(stream_function=failing(in_stream, text="Half")))
    got: list[Any] = []
    with pytest.raises(ModelError, match="the server reported an error mid-stream: Overloaded"):
        async for delta in model.stream(request()):
            got.append(delta)
    assert got == [TextDelta("Half")]  # nothing retried after text was shown


async def test_an_overloaded_event_before_any_text_is_retried() -> None:
    """Claude's ``event: error`` (``overloaded_error``) in an HTTP-200 stream
    that has shown nothing yet: as safe to retry as an HTTP 529."""
    overloaded = ModelHTTPError(
        529, "m", body={"error": {"message": "Overloaded"}}, in_stream=True, retry_after=0.05
    )
    said: list[str] = []
    req = request()
    req.status = said.append
    deltas = await collect(ProviderModel(FunctionModel(stream_function=failing(overloaded))), req)
    assert TextDelta("fine") in deltas
    assert said[0].startswith("HTTP 529 from ")


async def test_a_cut_connection_mid_stream_is_an_incomplete_reply() -> None:
    cut = httpx2.RemoteProtocolError("peer closed connection without sending complete body")
    model = ProviderModel(FunctionModel(stream_function=failing(cut, text="Half")))
    with pytest.raises(ModelError, match=r"the connection to .* lost mid-stream \(peer closed"):
        await collect(model)


async def test_no_connection_says_check_base_url() -> None:
    refused = ModelConnectionError("m", "Connection refused")
    model = ProviderModel(FunctionModel(stream_function=failing(refused)), max_retries=0)
    with pytest.raises(ModelError, match=r"could not reach .*: check base_url"):
        await collect(model)


async def test_the_runtime_ends_the_reply_with_the_error_and_keeps_the_text() -> None:
    in_stream = ModelHTTPError(500, "m", body="upstream died", in_stream=True)
    rt = gu.Runtime(
        model=ProviderModel(FunctionModel(stream_function=failing(in_stream, text="Hal")))
    )
    await rt.send("hi")
    message = rt.thread.messages[-1]
    assert message.text == "Hal"
    assert message.status.type == "incomplete"
    assert "upstream died" in str(message.status)


# --- Stop: a real SDK stream that never finishes -----------------------------------


class NeverEnding:
    """An Anthropic Messages stream on 127.0.0.1 that sends a first text delta
    and then nothing, until the client hangs up (bounded: 60 s)."""

    def __init__(self) -> None:
        self.hung_up = asyncio.Event()
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        events = [
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [],
                    "stop_reason": None,
                    "usage": {"input_tokens": 3, "output_tokens": 1},
                },
            },
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            },
        ]
        body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n" + f"{len(body.encode()):x}\r\n{body}\r\n".encode()
        )
        await writer.drain()
        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(reader.read(), 60)  # b"" when the client closes
        self.hung_up.set()
        writer.close()


async def test_stop_closes_a_stream_that_would_never_end() -> None:
    server = NeverEnding()
    async with server as base_url:
        model = gu.model("anthropic:claude-sonnet-4-5", api_key="k", base_url=base_url)
        req = request()
        got: list[Any] = []

        async def read() -> None:
            async for delta in model.stream(req):
                got.append(delta)
                # Stop, once the stream waits on the socket for its next event
                asyncio.get_running_loop().call_later(0.2, req.cancel.set)

        await asyncio.wait_for(read(), 30)  # a guard: without Stop this would wait 60 s
        await asyncio.wait_for(server.hung_up.wait(), 30)
        assert got == [TextDelta("Hi")]
        await model.aclose()


async def test_stop_ends_a_stream_its_model_cannot_close() -> None:
    """A pydantic-ai model whose stream has nothing to close (``FunctionModel``'s
    ``close_stream`` does nothing): Stop still ends the read it waits in."""
    closed: list[bool] = []

    async def stalls(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            yield "Hi"
            await asyncio.Event().wait()  # never set: only a cancel ends it
        finally:
            closed.append(True)

    model = ProviderModel(FunctionModel(stream_function=stalls))
    req = request()
    got: list[Any] = []

    async def read() -> None:
        async for delta in model.stream(req):
            got.append(delta)
            asyncio.get_running_loop().call_later(0.2, req.cancel.set)

    await asyncio.wait_for(read(), 30)  # a guard: without Stop this never ends
    assert got == [TextDelta("Hi")] and closed == [True]


# --- provider data from thread files --------------------------------------------------


def signed_step(key: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "sum?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "add", "arguments": "{}"},
                    "_provider_data": {key: data.get("call", {})},
                }
            ],
            "_reasoning": [{"text": "Think.", "provider_data": {key: data.get("reasoning", {})}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
    ]


def test_a_claude_signed_thought_is_never_sent_to_another_provider() -> None:
    history = signed_step(
        "pydantic-ai:anthropic",
        {
            "reasoning": {"parts": [{"signature": "CLAUDE-SIG", "provider_name": "anthropic"}]},
            "call": {"provider_name": "anthropic", "provider_details": {"secret": 1}},
        },
    )
    messages = to_model_messages(history, "pydantic-ai:google")
    response = next(m for m in messages if isinstance(m, pm.ModelResponse))
    assert [type(p) for p in response.parts] == [pm.ToolCallPart]
    assert "CLAUDE-SIG" not in repr(messages) and "secret" not in repr(messages)


def test_forged_provider_data_in_a_thread_file_is_read_by_type_only() -> None:
    forged = {
        "reasoning": {
            "parts": [
                {"signature": {"not": "a string"}, "provider_name": "anthropic", "id": 7},
                "not an object",
                {"signature": "S", "provider_details": "not an object"},  # no provider_name
            ],
            "response": {"provider_name": ["x"], "provider_url": "u"},
        },
        "call": {"id": ["x"], "provider_name": "anthropic", "provider_details": [1, 2]},
    }
    messages = to_model_messages(
        signed_step("pydantic-ai:anthropic", forged), "pydantic-ai:anthropic"
    )
    response = next(m for m in messages if isinstance(m, pm.ModelResponse))
    thoughts = [p for p in response.parts if isinstance(p, pm.ThinkingPart)]
    for part in thoughts:
        assert part.signature is None or isinstance(part.signature, str)
        assert part.id is None or isinstance(part.id, str)
        assert part.provider_details is None or isinstance(part.provider_details, dict)
        assert part.signature is None or part.provider_name is not None
    (call,) = [p for p in response.parts if isinstance(p, pm.ToolCallPart)]
    assert (call.id, call.provider_details) == (None, None)
    assert response.provider_name is None and response.provider_url == "u"


def test_reasoning_without_text_keeps_a_part_of_its_own() -> None:
    """Encrypted reasoning (a Responses item with no summary, Claude's redacted
    thinking) streams no text: its data still needs a part to live on, or the
    next request lacks the item its call needs."""
    message = Message(role="assistant")
    acc = Accumulator(message, {})
    data = {"pydantic-ai:openai-responses": {"parts": [{"id": "rs_1", "provider_name": "openai"}]}}
    acc.apply(ReasoningDelta("", data))
    acc.apply(TextDelta("Hi"))
    reasoning, text = message.parts
    assert isinstance(reasoning, ReasoningPart) and reasoning.provider_data == data
    assert reasoning.text == "" and text.text == "Hi"  # type: ignore[union-attr]


# --- provider data from a thread file: typed and bounded ----------------------------


def test_provider_data_from_a_thread_file_is_typed_and_bounded(tmp_path: Any) -> None:
    """An integer ``thought_signature`` and a 2 MB unknown blob in a hand-edited file."""
    from ipygenui.messages import MAX_PROVIDER_DATA_CHARS
    from ipygenui.models.history import to_openai_messages
    from ipygenui.models.openai import OpenAIModel
    from ipygenui.persistence import load_thread, save_thread

    key = "openai-compatible:http://127.0.0.1:9/v1"
    calls = [
        gu.messages.ToolCallPart(
            tool_call_id=f"c{i}",
            tool_name="f",
            args={},
            args_text="{}",
            args_complete=True,
            result="ok",
            has_result=True,
            provider_data={key: {"extra_content": {"google": {"thought_signature": signature}}}},
        )
        for i, signature in enumerate([12345, "sig-ok"])
    ]
    blob = ReasoningPart(text="thinking", provider_data={key: {"blob": "x" * 2_000_000}})
    thread = gu.Thread(
        messages=[
            Message(role="user", parts=[gu.messages.TextPart(text="hi")]),
            Message(role="assistant", parts=[blob, *calls]),
        ]
    )
    path = tmp_path / "t.json"
    save_thread(thread, path)
    loaded = load_thread(path)
    reasoning = loaded.messages[1].parts[0]
    assert reasoning.provider_data is None  # over MAX_PROVIDER_DATA_CHARS: dropped on load
    assert MAX_PROVIDER_DATA_CHARS < 2_000_000
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="x", provider_key=key)
    sent = model._wire_messages(to_openai_messages(loaded))
    wire_calls = next(m for m in sent if m.get("tool_calls"))["tool_calls"]
    assert "extra_content" not in wire_calls[0]  # an int is no signature: not sent
    assert wire_calls[1]["extra_content"] == {"google": {"thought_signature": "sig-ok"}}
    # and a stream's own oversized data is bounded as it arrives
    accumulator = Accumulator(Message(role="assistant"), {})
    accumulator.apply(ReasoningDelta("t", provider_data={key: {"blob": "y" * 2_000_000}}))
    part = accumulator.message.parts[0]
    assert isinstance(part, ReasoningPart) and part.provider_data is None
