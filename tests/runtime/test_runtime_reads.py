"""Reading the thread while a reply streams gives exactly what has streamed.

The accumulator joins streamed text on read (not per delta, which would be
quadratic), so these guard the reads: ``Runtime.thread`` mid-stream, a
cancel, and a model error all see every character that arrived.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ipygenui as gu
from ipygenui.events import MessagePatched
from ipygenui.testing import ScriptedCall, ScriptedModel


def streamed_text(events: list[Any], message_id: str) -> str:
    out = []
    for event in events:
        if isinstance(event, MessagePatched) and event.message_id == message_id:
            for op in event.ops:
                if op["op"] == "add_part" and op["value"]["type"] == "text":
                    out.append(op["value"]["text"])
                elif op["op"] == "append" and op["field"] == "text":
                    out.append(op["value"])
    return "".join(out)


async def wait_for_text(rt: gu.Runtime, events: list[Any], message_id: str, size: int) -> None:
    while len(streamed_text(events, message_id)) < size:
        await asyncio.sleep(0.001)


async def test_thread_read_mid_stream_is_exact_and_cancel_keeps_every_character() -> None:
    text = "".join(f"w{i} " for i in range(3000))
    rt = gu.Runtime(model=ScriptedModel([text], chunk_size=3, delay=0.0005))
    events: list[Any] = []
    rt.subscribe(events.append)
    run = rt.send("go")
    await wait_for_text(rt, events, run.message_id, 200)
    live = rt.thread.message(run.message_id)
    assert live is not None
    assert live.text == streamed_text(events, run.message_id)  # exact, not lagging
    await wait_for_text(rt, events, run.message_id, 600)
    rt.cancel()
    message = await run
    assert message.status.type == "incomplete"
    kept = message.text
    assert len(kept) >= 600 and kept == streamed_text(events, run.message_id)
    assert text.startswith(kept)


async def test_tool_arguments_are_whole_when_a_model_fails_mid_call() -> None:
    class Failing(ScriptedModel):
        async def stream(self, request: gu.models.ModelRequest):  # type: ignore[override]
            async for delta in super().stream(request):
                yield delta
            raise gu.errors.ModelError("connection dropped")

    args = {"rows": [{"id": i} for i in range(300)]}
    model = Failing([ScriptedCall("plot", args)], chunk_size=4)
    rt = gu.Runtime(model=model)
    message = await rt.send("plot")
    assert message.status.type == "incomplete" and "connection dropped" in (
        message.status.error or ""
    )
    part = message.tool_calls[0]
    assert '"rows"' in part.args_text and part.args_text.count('"id"') == 300
