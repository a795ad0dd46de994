"""Cancel, model errors, retry, persistence, suggestions and AG-UI events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from ag_ui.core import EventType

import ipygenui as gu
from ipygenui.events import SuggestionsChanged
from ipygenui.messages import Complete, Incomplete, RequiresAction
from ipygenui.models.history import check_openai_history, to_openai_messages
from ipygenui.runtime._loop.suggestions import parse_suggestions
from ipygenui.testing import ScriptedModel, ScriptedReply
from runtime_helpers import BlockingModel, TextDelta, ToolCallDelta, assert_valid, call


async def test_cancel_mid_text_keeps_what_streamed() -> None:
    model = BlockingModel([TextDelta("Once upon "), TextDelta("a time")])
    rt = gu.Runtime(model=model)
    run = rt.send("story")
    await model.reached.wait()
    rt.cancel()
    assert run.done() and not rt.running
    message = await run
    assert message.status == Incomplete(reason="cancelled", error=message.status.error)  # type: ignore[union-attr]
    assert message.text == "Once upon a time"
    await asyncio.sleep(0)  # let the cancelled task unwind
    assert model.cancelled
    assert message.text == "Once upon a time" and isinstance(message.status, Incomplete)


async def test_cancel_mid_tool_call_stream_answers_the_call() -> None:
    model = BlockingModel(
        [ToolCallDelta(0, id="c", name="get"), ToolCallDelta(0, arguments='{"a"')]
    )
    rt = gu.Runtime(model=model)  # "get" is not registered: still answered on cancel
    run = rt.send("x")
    await model.reached.wait()
    rt.cancel()
    message = await run
    part = message.tool_call("c")
    assert part is not None and part.has_result and part.is_error and part.args_complete
    check_openai_history(to_openai_messages(rt.thread))


async def test_cancel_mid_tool_stops_the_tool_and_the_next_request_is_valid() -> None:
    started, stopped = asyncio.Event(), asyncio.Event()

    @gu.tool
    async def slow() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()
        return "never"

    model = ScriptedModel([call("slow", id="s"), "next answer"])
    rt = gu.Runtime(model=model, tools=[slow])
    run = rt.send("go")
    await started.wait()
    assert rt.phase == "running-tool"
    rt.cancel()
    message = await run
    await asyncio.wait_for(stopped.wait(), 5)
    part = message.tool_call("s")
    assert part is not None and part.is_error and "Cancelled" in part.result["error"]
    assert isinstance(message.status, Incomplete) and message.status.reason == "cancelled"
    assert rt.phase == "idle"
    second = await rt.send("again")
    assert second.text == "next answer"
    assert_valid(model)


async def test_cancel_when_idle_does_nothing_and_when_waiting_closes_calls() -> None:
    rt = gu.Runtime(model=ScriptedModel(["hi"]))
    rt.cancel()
    await rt.send("x")
    before = rt.thread.model_dump()
    rt.cancel()
    assert rt.thread.model_dump() == before

    gated = gu.tool(requires_approval=True, name="gated")(lambda: 1)
    rt2 = gu.Runtime(model=ScriptedModel([call("gated", id="g")]), tools=[gated])
    message = await rt2.send("x")
    assert message.status == RequiresAction()
    rt2.cancel()
    assert isinstance(message.status, Incomplete) and message.tool_call("g").has_result  # type: ignore[union-attr]


async def test_send_while_running_cancels_the_active_run() -> None:
    model = BlockingModel([TextDelta("partial")])
    rt = gu.Runtime(model=model)
    first = rt.send("one")
    await model.reached.wait()
    model.deltas = [TextDelta("second")]
    model.reached = asyncio.Event()
    second = rt.send("two")
    assert (await first).status.type == "incomplete"
    await model.reached.wait()
    rt.cancel()
    await second
    roles = [m.role for m in rt.thread.messages]
    assert roles == ["user", "assistant", "user", "assistant"]


async def test_model_error_mid_stream_keeps_text_and_reports_error() -> None:
    reply = ScriptedReply(text="abcdefghijkl", error="provider exploded", error_after=2)
    model = ScriptedModel([reply, "recovered"], chunk_size=4)
    rt = gu.Runtime(model=model)
    message = await rt.send("x")
    assert message.status == Incomplete(reason="error", error="provider exploded")
    assert message.text == "abcdefgh"
    retried = await rt.retry()
    assert retried.id == message.id and retried.text == "recovered"
    assert retried.status == Complete(reason="stop")
    assert [m.role for m in rt.thread.messages] == ["user", "assistant"]
    assert model.requests[1].messages[-1] == {"role": "user", "content": "x"}


async def test_save_load_continue_with_a_pending_approval(tmp_path: Path) -> None:
    ran: list[str] = []

    @gu.tool(requires_approval=True)
    def deploy(env: str) -> str:
        ran.append(env)
        return f"deployed {env}"

    rt = gu.Runtime(model=ScriptedModel([call("deploy", {"env": "prod"}, id="d")]), tools=[deploy])
    await rt.send("ship it")
    path = tmp_path / "thread.json"
    rt.save(path)

    model = ScriptedModel(["Shipped.", "You're welcome."])
    loaded = gu.Runtime.load(path, model=model, tools=[deploy])
    assert loaded.thread == rt.thread
    final = await loaded.approve("d")  # type: ignore[misc]
    assert final.text == "Shipped." and ran == ["prod"]
    again = await loaded.send("thanks")
    assert again.text == "You're welcome."
    assert_valid(model)


async def test_persist_autosaves_atomically_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "chat.json"
    rt = gu.Runtime(model=ScriptedModel(["saved"]), persist=path)
    await rt.send("hello")
    # the file plus its journal hold every change; no temp files left; the lock
    # file holds the writers' claim on the path
    assert [m.text for m in gu.Runtime.load(path).thread.messages] == ["hello", "saved"]
    names = [".chat.json.journal", ".chat.json.lock", "chat.json"]
    assert sorted(p.name for p in path.parent.iterdir()) == names
    rt.close()  # one JSON file again
    data = json.loads(path.read_text())
    assert data["format"] == "ipygenui.thread"
    assert data["thread"]["messages"][1]["parts"][0]["text"] == "saved"
    resumed = gu.Runtime(model=ScriptedModel(["more"]), persist=path)
    assert resumed.thread == rt.thread
    await resumed.send("again")
    assert len(gu.Runtime(model=ScriptedModel([]), persist=path).thread.messages) == 4


def test_a_thread_saved_mid_run_loads_as_cancelled(tmp_path: Path) -> None:
    from ipygenui.messages import Message, Running, TextPart, Thread, ToolCallPart

    thread = Thread(
        messages=[
            Message(role="user", parts=[TextPart(text="hi")]),
            Message(
                role="assistant",
                status=Running(),
                parts=[TextPart(text="hal"), ToolCallPart(tool_call_id="c", tool_name="t")],
            ),
        ]
    )
    path = tmp_path / "t.json"
    gu.Runtime(model=ScriptedModel([]), thread=thread).save(path)
    loaded = gu.Runtime.load(path, model=ScriptedModel([]))
    last = loaded.thread.messages[-1]
    assert isinstance(last.status, Incomplete) and last.status.reason == "cancelled"
    check_openai_history(to_openai_messages(loaded.thread))


def test_loading_a_bad_file_fails_clearly(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "ipygenui.thread", "version": 99, "thread": {}}))
    with pytest.raises(ValueError, match="version"):
        gu.Runtime.load(path, model=ScriptedModel([]))


async def test_suggestions_after_a_complete_reply_and_cleared_by_a_new_send() -> None:
    model = ScriptedModel(["Answer.", '["Tell me more", "Why?", "How?", "Extra"]', "Second."])
    rt = gu.Runtime(model=model, suggestions=True)
    got = asyncio.Event()
    seen: list[list[str]] = []

    def on(event: object) -> None:
        if isinstance(event, SuggestionsChanged):
            seen.append(event.suggestions)
            got.set()

    rt.subscribe(on)
    await rt.send("q")
    await asyncio.wait_for(got.wait(), 5)
    assert seen[-1] == ["Tell me more", "Why?", "How?"]
    assert rt.current_suggestions == ["Tell me more", "Why?", "How?"]
    assert model.requests[1].tools == [] and model.requests[1].tool_choice == "none"
    rt.send("next")
    assert seen[-1] == [] and rt.current_suggestions == []


def test_parse_suggestions_reads_lists_and_lines() -> None:
    assert parse_suggestions('```json\n["a", "b"]\n```') == ["a", "b"]
    assert parse_suggestions("1. first\n- second\n\n* second\n• fourth\n5) fifth") == [
        "first",
        "second",
        "fourth",
    ]


async def test_agui_events_validate_and_follow_the_run() -> None:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    @gu.tool
    def add(a: int, b: int) -> int:
        return a + b

    model = ScriptedModel(
        [
            ScriptedReply(text="Let me add.", tool_calls=[call("add", {"a": 1, "b": 2}, id="t")]),
            "3",
        ]
    )
    rt = gu.Runtime(model=model, tools=[add])
    events: list = []
    rt.subscribe_agui(events.append)
    iterated: list = []

    async def consume() -> None:
        async for event in rt.agui_events():
            iterated.append(event)
            if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                return

    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0)
    await rt.send("1+2")
    await asyncio.wait_for(consumer, 5)
    adapter = TypeAdapter(Event)
    for event in events:  # each round-trips through the protocol's own union type
        assert adapter.validate_python(event.model_dump(by_alias=True)) == event
    types = [e.type for e in events]
    assert types[0] == EventType.RUN_STARTED and types[-1] == EventType.RUN_FINISHED
    order = [
        t for t in types if t != EventType.TEXT_MESSAGE_CONTENT and t != EventType.TOOL_CALL_ARGS
    ]
    assert order == [
        EventType.RUN_STARTED,
        EventType.MESSAGES_SNAPSHOT,
        EventType.STATE_SNAPSHOT,
        EventType.STEP_STARTED,
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_END,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_END,
        EventType.STEP_FINISHED,
        EventType.TOOL_CALL_RESULT,
        EventType.STEP_STARTED,
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_END,
        EventType.STEP_FINISHED,
        EventType.MESSAGES_SNAPSHOT,  # the run's end: what a client resumes from
        EventType.RUN_FINISHED,
    ]
    text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
    args = "".join(e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS)
    assert text == "Let me add.3" and json.loads(args) == {"a": 1, "b": 2}
    assert [e.type for e in iterated] == types


async def test_agui_reports_interrupts_and_errors() -> None:
    gated = gu.tool(requires_approval=True, name="gated")(lambda: 1)
    rt = gu.Runtime(
        model=ScriptedModel([call("gated", id="g"), ScriptedReply(error="boom")]),
        tools=[gated],
    )
    events: list = []
    rt.subscribe_agui(events.append)
    await rt.send("x")
    finished = events[-1]
    assert finished.type == EventType.RUN_FINISHED and finished.outcome.type == "interrupt"
    assert finished.outcome.interrupts[0].tool_call_id == "g"
    await rt.approve("g")  # type: ignore[misc]
    assert events[-1].type == EventType.RUN_ERROR and events[-1].message == "boom"
