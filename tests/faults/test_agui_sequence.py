"""The AG-UI stream a runtime emits follows the protocol's sequence rules.

Faults tried:
- cancel while a tool call's arguments stream (RUN_FINISHED with the call
  still open, no TOOL_CALL_END), and cancel mid-text;
- ``reject()``, ``add_tool_result()`` and a send while calls wait, between
  runs (a TOOL_CALL_RESULT after RUN_FINISHED, before the next RUN_STARTED);
- ``retry()`` after a RUN_ERROR (events after RUN_ERROR in the same stream);
- a tool call naming as its parent a message that is no assistant's (a tool result);
- the verifier itself: each broken rule, fed by hand, is caught (reasoning
  spans left open, closed twice, reopened, too);
- ``import ipygenui; gu.Chat()`` importing ``ag_ui`` although nobody uses AG-UI;
- the whole scripted suite (runtime, tools, approvals, loop seams) replayed
  through the verifier.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    EventType,
    ReasoningEndEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

import ipygenui as gu
from agui_verifier import StreamVerifier
from ipygenui.agui._sequence import SequenceError, check_sequence
from ipygenui.models.base import TextDelta, ToolCallDelta
from ipygenui.testing import ScriptedModel, ScriptedReply
from runtime_helpers import BlockingModel, call

TESTS = Path(__file__).resolve().parents[1]


@gu.tool(requires_approval=True)
def drop(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


@gu.tool(human=True)
def ask(question: str) -> str:
    """Ask the user."""
    raise AssertionError("never runs")


@gu.tool
def add(a: int, b: int) -> int:
    return a + b


def verified(model: Any, **kwargs: Any) -> tuple[gu.Runtime, StreamVerifier]:
    rt = gu.Runtime(model=model, tools=kwargs.pop("tools", [drop, ask, add]), **kwargs)
    return rt, StreamVerifier(rt)


def types(verifier: StreamVerifier) -> list[EventType]:
    return [e.type for e in verifier.events]


async def cancel_mid_args() -> StreamVerifier:
    model = BlockingModel([ToolCallDelta(0, id="c", name="add", arguments='{"a": 1')])
    rt, v = verified(model)
    rt.send("x")
    await model.reached.wait()
    rt.cancel()
    await asyncio.sleep(0)
    ends = [e for e in v.events if e.type == EventType.TOOL_CALL_END]
    assert [e.tool_call_id for e in ends] == ["c"]
    return v


async def cancel_mid_text() -> StreamVerifier:
    model = BlockingModel([TextDelta("Hel")])
    rt, v = verified(model)
    rt.send("x")
    await model.reached.wait()
    rt.cancel()
    assert v.events[-1].outcome.type == "cancelled"
    return v


async def reject_between_runs() -> StreamVerifier:
    rt, v = verified(ScriptedModel([call("drop", {"name": "t"}, id="d"), "ok"]))
    await rt.send("x")
    run = rt.reject("d", "no")
    assert run is not None
    await run
    results = [e for e in v.events if e.type == EventType.TOOL_CALL_RESULT]
    assert not results  # the rejection reaches the next run in its MESSAGES_SNAPSHOT
    snapshot = [e for e in v.events if e.type == EventType.MESSAGES_SNAPSHOT][-1]
    assert any(getattr(m, "tool_call_id", None) == "d" for m in snapshot.messages)
    return v


async def answer_between_runs() -> StreamVerifier:
    rt, v = verified(ScriptedModel([call("ask", {"question": "?"}, id="h"), "ok"]))
    await rt.send("x")
    run = rt.add_tool_result("h", "yes")
    assert run is not None
    await run
    return v


async def send_while_waiting() -> StreamVerifier:
    rt, v = verified(ScriptedModel([call("drop", {"name": "t"}, id="d"), "ok"]))
    await rt.send("x")
    await rt.send("never mind")
    return v


async def retry_after_error() -> StreamVerifier:
    rt, v = verified(ScriptedModel([ScriptedReply(text="par", error="boom"), "fine"]))
    await rt.send("x")
    assert v.events[-1].type == EventType.RUN_ERROR
    await rt.retry()
    assert v.events[-1].type == EventType.RUN_FINISHED
    return v


async def text_then_call() -> StreamVerifier:
    reply = ScriptedReply(text="Adding.", tool_calls=[call("add", {"a": 1, "b": 2}, id="t")])
    rt, v = verified(ScriptedModel([reply, "3"]))
    await rt.send("x")
    start = next(e for e in v.events if e.type == EventType.TOOL_CALL_START)
    texts = {e.message_id for e in v.events if e.type == EventType.TEXT_MESSAGE_START}
    assert start.parent_message_id in texts
    return v


async def call_without_text() -> StreamVerifier:
    rt, v = verified(ScriptedModel([call("add", {"a": 1, "b": 2}, id="t"), "3"]))
    await rt.send("x")
    start = next(e for e in v.events if e.type == EventType.TOOL_CALL_START)
    step = rt.thread.messages[-1].id  # the step's message, which the call opens in a client
    assert start.parent_message_id == step
    return v


async def approve_always() -> StreamVerifier:
    script = [call("drop", {"name": "a"}, id="d1"), call("drop", {"name": "b"}, id="d2"), "ok"]
    rt, v = verified(ScriptedModel(script))
    await rt.send("x")
    run = rt.approve("d1", always=True)
    assert run is not None
    await run
    assert v.events[-1].outcome.type == "success"
    return v


async def approve_then_error() -> StreamVerifier:
    script = [call("drop", {"name": "a"}, id="d"), ScriptedReply(error="boom")]
    rt, v = verified(ScriptedModel(script))
    await rt.send("x")
    assert v.events[-1].outcome.interrupts[0].tool_call_id == "d"
    await rt.approve("d")  # type: ignore[misc]
    return v


async def suggestions() -> StreamVerifier:
    rt, v = verified(ScriptedModel(["hi", '["more"]']), suggestions=True)
    await rt.send("x")
    await asyncio.sleep(0.05)
    await rt.send("more")
    return v


async def component_state() -> StreamVerifier:
    form = {"fields": [{"name": "city"}]}
    model = ScriptedModel([call("show_component_Form", form, id="f1"), "Fill it in.", "ok"])
    rt = gu.Runtime(model=model, components=[gu.Form])
    v = StreamVerifier(rt)
    await rt.send("plan")
    rt.set_component_state("f1", {"values": {"city": "Lima"}, "submitted": True})
    await rt.send("done")
    states = [e.snapshot for e in v.events if e.type == EventType.STATE_SNAPSHOT]
    assert states[-1]["components"]["f1"]["values"] == {"city": "Lima"}
    return v


SCENARIOS: dict[str, Callable[[], Awaitable[StreamVerifier]]] = {
    "cancel mid-args": cancel_mid_args,
    "cancel mid-text": cancel_mid_text,
    "reject between runs": reject_between_runs,
    "answer a human tool between runs": answer_between_runs,
    "send while calls wait": send_while_waiting,
    "retry after an error": retry_after_error,
    "text then a call": text_then_call,
    "a call with no text": call_without_text,
    "approve always": approve_always,
    "approve, then the model fails": approve_then_error,
    "suggestions": suggestions,
    "component state": component_state,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_scenario_streams_pass_the_sequence_rules(name: str) -> None:
    verifier = await SCENARIOS[name]()
    assert verifier.events, "the scenario emitted nothing"
    assert verifier.errors == []
    assert EventType.STEP_STARTED in types(verifier)


async def test_retry_after_an_error_starts_a_new_stream() -> None:
    rt = gu.Runtime(model=ScriptedModel([ScriptedReply(error="boom"), "fine", "again"]))
    first: list[Any] = []
    rt.subscribe_agui(first.append)
    await rt.send("x")
    await rt.retry()
    assert first[-1].type == EventType.RUN_ERROR  # that stream ended there
    again: list[Any] = []
    rt.subscribe_agui(again.append)
    await rt.retry()
    assert again[0].type == EventType.RUN_STARTED and again[-1].type == EventType.RUN_FINISHED


# --- the rules, fed by hand ------------------------------------------------------

START = RunStartedEvent(thread_id="t", run_id="r")
FINISH = RunFinishedEvent(thread_id="t", run_id="r")
BROKEN: dict[str, tuple[list[Any], str]] = {
    "a call open at RUN_FINISHED": (
        [START, ToolCallStartEvent(tool_call_id="c", tool_call_name="f"), FINISH],
        "tool calls are open",
    ),
    "a result between runs": (
        [
            START,
            FINISH,
            ToolCallResultEvent(message_id="m", tool_call_id="c", content="x"),
        ],
        "only RUN_STARTED may follow RUN_FINISHED",
    ),
    "a run after RUN_ERROR": ([START, RunErrorEvent(message="x"), START], "follow RUN_ERROR"),
    "a tool result as parent": (
        [
            START,
            ToolCallResultEvent(message_id="m", tool_call_id="x", content="1"),
            ToolCallStartEvent(tool_call_id="c", tool_call_name="f", parent_message_id="m"),
        ],
        "a tool message",
    ),
    "content before start": (
        [START, TextMessageContentEvent(message_id="m", delta="x")],
        "not open",
    ),
    "args after end": (
        [
            START,
            ToolCallStartEvent(tool_call_id="c", tool_call_name="f"),
            ToolCallEndEvent(tool_call_id="c"),
            ToolCallArgsEvent(tool_call_id="c", delta="x"),
        ],
        "not open",
    ),
    "no RUN_STARTED": ([TextMessageStartEvent(message_id="m")], "open with RUN_STARTED"),
    "a reasoning span open at RUN_FINISHED": (
        [START, ReasoningStartEvent(message_id="s"), FINISH],
        "reasoning spans are open",
    ),
    "a reasoning span closed twice": (
        [
            START,
            ReasoningStartEvent(message_id="s"),
            ReasoningEndEvent(message_id="s"),
            ReasoningEndEvent(message_id="s"),
        ],
        "reasoning span s, which is not open",
    ),
    "a reasoning span reopened": (
        [START, ReasoningStartEvent(message_id="s"), ReasoningStartEvent(message_id="s")],
        "started while open",
    ),
    "overlapping runs": ([START, START], "still open"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_verifier_catches_each_broken_rule(name: str) -> None:
    events, rule = BROKEN[name]
    with pytest.raises(SequenceError, match=rule):
        check_sequence(events)


def test_a_chat_that_never_uses_agui_does_not_import_it() -> None:
    code = (
        "import sys, ipygenui as gu\n"
        "from ipygenui.testing import ScriptedModel\n"
        "chat = gu.Chat(model=ScriptedModel(['hi']))\n"
        "rt = gu.Runtime(model=ScriptedModel(['hi']))\n"
        "print(rt.run_sync('x').text)\n"
        "assert 'ag_ui' not in sys.modules, 'ag_ui imported'\n"
        "rt.subscribe_agui(print)\n"
        "assert 'ag_ui' in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hi"


REPLAYED = [
    "runtime/test_runtime_basic.py",
    "runtime/test_runtime_lifecycle.py",
    "runtime/test_runtime_parts.py",
    "runtime/test_runtime_tools.py",
    "runtime/test_should_continue.py",
    "components/test_components_runtime.py",
    "faults/test_approvals.py",
    "faults/test_loop_seams.py",
    "faults/test_tool_execution.py",
    "faults/test_tool_call_ids.py",
    "faults/test_odd_values.py",
]


def test_every_scripted_scenario_of_the_suite_passes_the_verifier() -> None:
    """The runtime and fault tests again, each Runtime's stream verified (agui_verifier.py)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "agui_verifier",
            "--agui-verify",
            "-p",
            "no:cacheprovider",
            *(str(TESTS / name) for name in REPLAYED),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=TESTS.parent,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
