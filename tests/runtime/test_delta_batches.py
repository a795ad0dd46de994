"""Batches of deltas: what one network read brought, applied as one change.

Checks that a batch changes the message exactly as its deltas one by one
would (text, reasoning, parallel calls, a surrogate pair split across
deltas, a name after the id), that it costs one op per part, that the
OpenAI adapter reads batches over its own aiohttp client (and keeps a given
client), and that the run loop reads a scripted burst as batches.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest

import ipygenui as gu
from ipygenui.events import MessagePatched
from ipygenui.messages import Message
from ipygenui.models.base import (
    FinishDelta,
    ModelDelta,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
    delta_batches,
)
from ipygenui.models.openai import _READ_PAUSE, OpenAIModel
from ipygenui.runtime._loop.accumulator import Accumulator
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply
from openai_server import OpenAIServer, Reply, ToolCall, table_args

HI = [{"role": "user", "content": "hi"}]


@gu.tool
def plot(title: str, rows: list[dict]) -> str:
    return "ok"


DELTAS: list[ModelDelta] = [
    ReasoningDelta("let me "),
    ReasoningDelta("think"),
    TextDelta("Hel"),
    TextDelta("lo \ud83d"),  # a surrogate pair split across two deltas
    TextDelta("\ude00 there"),
    ToolCallDelta(0, id="call_a", name="plot", arguments='{"ti'),
    ToolCallDelta(0, arguments='tle": "A", '),
    ToolCallDelta(1, id="call_b", arguments=""),
    ToolCallDelta(1, name="plot", arguments='{"title": "B"'),
    ToolCallDelta(0, arguments='"rows": [{"x": 1}'),
    ToolCallDelta(0, arguments="]}"),
    ToolCallDelta(1, arguments="}"),
    TextDelta("after"),
    TextDelta(" calls"),
    UsageDelta(3, 4),
    FinishDelta("tool_calls"),
]


def replay(batches: list[list[ModelDelta]]) -> tuple[Message, list[list[dict[str, Any]]]]:
    message = Message(role="assistant")
    accumulator = Accumulator(message, {"plot": plot})
    ops = [list(accumulator.apply_batch(batch)) for batch in batches]
    ops.append(list(accumulator.finish()))
    return message, ops  # type: ignore[return-value]


@pytest.mark.parametrize("size", [1, 2, 3, 5, len(DELTAS)])
def test_a_batch_changes_the_message_as_its_deltas_one_by_one(size: int) -> None:
    one_by_one, _ = replay([[d] for d in DELTAS])
    batched, _ = replay([DELTAS[i : i + size] for i in range(0, len(DELTAS), size)])
    assert [p.model_dump() for p in batched.parts] == [p.model_dump() for p in one_by_one.parts]
    assert batched.parts[1].text == "Hello \U0001f600 there"  # type: ignore[union-attr]


def test_a_batch_costs_one_op_per_part() -> None:
    text = [TextDelta(c) for c in "streamed one character at a time"]
    args = json.dumps({"title": "T", "rows": [{"x": i} for i in range(20)]})
    call = [ToolCallDelta(0, id="c", name="plot", arguments=args[:3])] + [
        ToolCallDelta(0, arguments=args[i : i + 3]) for i in range(3, len(args), 3)
    ]
    message, (text_ops, call_ops, _) = replay([text, call])
    assert [op["op"] for op in text_ops] == ["add_part"]
    assert text_ops[0]["value"]["text"] == "streamed one character at a time"
    assert [(op["op"], op.get("field")) for op in call_ops] == [
        ("add_part", None),
        ("append", "args_text"),
        ("set", "args"),
    ]
    assert call_ops[1]["value"] == args
    assert message.parts[1].args == json.loads(args)  # type: ignore[union-attr]


async def test_openai_model_reads_batches_over_its_own_aiohttp_client(
    openai_server: OpenAIServer,
) -> None:
    args = table_args(20)
    openai_server.script(Reply.calls(ToolCall("plot", args, id="c1")))
    model = OpenAIModel("test-model", base_url=openai_server.base_url, api_key="k")
    try:
        client = model.client
        assert type(client._client).__name__ != "AsyncHttpxClientWrapper"
        assert isinstance(client._client, openai.DefaultAioHttpClient)
        request = ModelRequest(messages=HI)
        batches = delta_batches(model, request)
        assert batches is not None
        read = [batch async for batch in batches]
    finally:
        await model.client.close()
    deltas = [d for batch in read for d in batch]
    assert max(len(batch) for batch in read) > 1  # the server writes frames in bursts
    text = "".join(d.arguments for d in deltas if isinstance(d, ToolCallDelta))
    assert json.loads(text) == args
    assert deltas[-1] == FinishDelta("tool_calls")


async def test_a_given_client_is_used_as_it_is(openai_server: OpenAIServer) -> None:
    client = openai.AsyncOpenAI(base_url=openai_server.base_url, api_key="k", max_retries=0)
    try:
        model = OpenAIModel("test-model", client=client)
        assert model.client is client
        assert not isinstance(client._client, openai.DefaultAioHttpClient)
        openai_server.script(Reply.text_reply("given"))
        deltas = [d async for d in model.stream(ModelRequest(messages=HI))]
    finally:
        await client.close()
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "given"


class _OneByOne(ScriptedModel):
    """Overrides ``stream``: the loop must read it, not the batches beneath."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        async for delta in super().stream(request):
            yield delta


async def test_the_loop_reads_a_scripted_burst_as_batches() -> None:
    args = {"title": "T", "rows": [{"x": i} for i in range(50)]}
    script = [ScriptedReply(tool_calls=[ScriptedCall("plot", args)]), "done"]
    counts = {}
    for kind in (ScriptedModel, _OneByOne):
        rt = gu.Runtime(model=kind(list(script)), tools=[plot])
        patches: list[MessagePatched] = []
        rt.subscribe(lambda e, patches=patches: isinstance(e, MessagePatched) and patches.append(e))
        message = await rt.send("go")
        assert message.parts[0].args == args  # type: ignore[union-attr]
        counts[kind] = len(patches)
        appends = [[op for op in p.ops if op["op"] == "append"] for p in patches if p.ops]
        assert all(len(a) <= 1 for a in appends)
    chunks = len(json.dumps(args)) // 4
    assert counts[_OneByOne] > chunks  # one patch per delta
    assert counts[ScriptedModel] < chunks / 8  # one per burst of 16


async def test_a_paced_trickle_is_read_in_batches(openai_server: OpenAIServer) -> None:
    # a provider sending one small frame at a time: our reads wait a moment
    # after a small read, so the next brings several frames as one batch
    text = "".join(f"w{i:03d} " for i in range(200))
    openai_server.script(Reply.text_reply(text, chunk_size=5, delay=0.0005))
    model = OpenAIModel("test-model", base_url=openai_server.base_url, api_key="k")
    try:
        batches = delta_batches(model, ModelRequest(messages=HI))
        assert batches is not None
        read = [batch async for batch in batches]
    finally:
        await model.client.close()
    texts = [d.text for batch in read for d in batch if isinstance(d, TextDelta)]
    assert "".join(texts) == text
    assert len(read) < 0.75 * len(texts)


async def test_our_clients_socket_is_left_unread_while_we_wait(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without it the event loop still wakes for every TCP packet during the
    # wait (one per frame at a paced provider's rate); paused, what arrives
    # meanwhile comes in one read. Reaching the socket uses the aiohttp
    # transport's internals: if they change, this fails rather than the
    # saving silently going away.
    from ipygenui.models import openai as openai_module

    calls: list[str] = []
    real_socket_of = openai_module._socket_of

    def spying_socket_of(response: Any) -> Any:
        socket = real_socket_of(response)
        assert socket is not None, "the aiohttp transport's socket was not found"
        pause, resume = socket.pause_reading, socket.resume_reading

        def paused() -> None:
            calls.append("pause")
            pause()

        def resumed() -> None:
            calls.append("resume")
            resume()

        monkeypatch.setattr(socket, "pause_reading", paused)
        monkeypatch.setattr(socket, "resume_reading", resumed)
        return socket

    monkeypatch.setattr(openai_module, "_socket_of", spying_socket_of)
    text = "".join(f"w{i:03d} " for i in range(200))
    openai_server.script(Reply.text_reply(text, chunk_size=5, delay=0.0005))
    model = OpenAIModel("test-model", base_url=openai_server.base_url, api_key="k")
    try:
        deltas = [d async for d in model.stream(ModelRequest(messages=HI))]
    finally:
        await model.client.close()
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert calls.count("pause") >= 3
    # every pause is undone before the next (aiohttp's flow control resumes too)
    ours = "".join(call[0] for call in calls)
    assert "pp" not in ours and not ours.endswith("p")


async def test_a_given_clients_reads_are_never_paused(openai_server: OpenAIServer) -> None:
    # its transport may yield one HTTP chunk per read however much arrived:
    # a pause after each would cap the stream at a few hundred frames a second
    client = openai.AsyncOpenAI(base_url=openai_server.base_url, api_key="k", max_retries=0)
    text = "".join(f"w{i:03d} " for i in range(200))
    openai_server.script(Reply.text_reply(text, chunk_size=5, delay=0.0005))
    model = OpenAIModel("test-model", client=client)
    pauses: list[float] = []
    real_sleep = asyncio.sleep

    async def counting_sleep(delay: float, *args: Any) -> Any:
        if delay == _READ_PAUSE:
            pauses.append(delay)
        return await real_sleep(delay, *args)

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(asyncio, "sleep", counting_sleep)
            deltas = [d async for d in model.stream(ModelRequest(messages=HI))]
    finally:
        await client.close()
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert pauses == []
