"""The basic text path through gu.Runtime with ScriptedModel."""

from __future__ import annotations

import ipygenui as gu
from ipygenui.events import MessageAdded, MessagePatched, MessageReplaced, RunChanged
from ipygenui.messages import Complete, Running
from ipygenui.models.history import check_openai_history
from ipygenui.testing import ScriptedModel, ScriptedReply


async def test_text_reply_streams_into_an_optimistic_running_message() -> None:
    # paced: one delta per read (unpaced, a burst of deltas is one batch)
    model = ScriptedModel(["Hello **world**, nice to meet you."], chunk_size=3, delay=0.001)
    rt = gu.Runtime(model=model)
    events: list[object] = []
    rt.subscribe(events.append)

    run = rt.send("hi")
    # the user message and the empty running assistant message exist before the model answers
    added = [e for e in events if isinstance(e, MessageAdded)]
    assert [e.message.role for e in added] == ["user", "assistant"]
    assert isinstance(added[1].message.status, Running) and added[1].message.parts == []
    assert rt.running

    message = await run
    assert run.done() and not rt.running
    assert message.id == run.message_id
    assert message.text == "Hello **world**, nice to meet you."
    assert message.status == Complete(reason="stop")
    appended = "".join(
        op["value"]
        for e in events
        if isinstance(e, MessagePatched)
        for op in e.ops
        if op["op"] in ("append",) and op["field"] == "text"
    )
    first = next(e for e in events if isinstance(e, MessagePatched)).ops[0]
    assert first["op"] == "add_part" and first["value"]["text"] == "Hel"
    assert first["value"]["text"] + appended == message.text
    assert isinstance(events[-1], (RunChanged, MessageReplaced))
    phases = [e.phase for e in events if isinstance(e, RunChanged)]
    assert phases[0] == "thinking" and phases[-1] == "idle"
    # what the model saw: system prompt then the user message
    request = model.requests[0]
    assert request.messages[0]["role"] == "system"
    assert request.messages[-1] == {"role": "user", "content": "hi"}
    check_openai_history(request.messages)


async def test_second_turn_sees_the_first_reply() -> None:
    model = ScriptedModel(["one", "two"])
    rt = gu.Runtime(model=model)
    await rt.send("a")
    await rt.send("b")
    roles = [(m["role"], m["content"]) for m in model.requests[1].messages[1:]]
    assert roles == [("user", "a"), ("assistant", "one"), ("user", "b")]
    assert [m.role for m in rt.thread.messages] == ["user", "assistant"] * 2


async def test_usage_and_timing_are_recorded_per_step_and_run() -> None:
    model = ScriptedModel([ScriptedReply(text="ok", usage=(12, 3))])
    rt = gu.Runtime(model=model)
    message = await rt.send("x")
    counts = {"input_tokens": 12, "output_tokens": 3, "reasoning_tokens": 0}
    counts |= {"cache_read_tokens": 0, "cache_write_tokens": 0}
    assert message.metadata["usage"] == counts
    assert message.metadata["steps"][0]["usage"] == counts
    assert message.metadata["ended_at"] >= message.metadata["started_at"]
