"""The headless runtime from a plain script, where no event loop runs.

Faults tried:
- ``asyncio.run(rt.send(...))`` (the idiom of every async library) refused
  because ``send()`` wanted a running loop;
- a run started lazily on the wrong loop, never started, or started twice;
- two sends with no loop: the first run left unresolved or the history invalid;
- ``cancel()`` of a run that has not started: its Run never resolves;
- ``retry`` / ``approve`` / ``reject`` / ``add_tool_result`` with no loop refused,
  or changing the thread before their run starts;
- ``run_sync`` inside a running loop recording the text anyway, or losing the
  suggestions the run asked for;
- a click reaching a chat with no loop left as a run nobody starts.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.testing import ScriptedModel
from ipygenui.widget.chat import Chat
from runtime_helpers import assert_valid, call

SRC = Path(__file__).resolve().parents[2] / "src"

SCRIPT = textwrap.dedent(
    """
    import asyncio, json
    import ipygenui as gu
    from ipygenui.testing import ScriptedCall, ScriptedModel

    @gu.tool
    def add(a: int, b: int) -> int:
        \"\"\"Add two numbers.\"\"\"
        return a + b

    @gu.tool(requires_approval=True)
    def drop_table(name: str) -> str:
        \"\"\"Drop a table.\"\"\"
        return f"dropped {name}"

    demo = gu.Runtime(model=gu.DemoModel(delay=0))
    first = asyncio.run(demo.send("hi"))
    again = asyncio.run(demo.send("hi"))  # a second loop, the same runtime

    scripted = gu.Runtime(
        model=ScriptedModel([ScriptedCall("add", {"a": 2, "b": 3}), "The sum is 5."]),
        tools=[add],
    )
    summed = scripted.run_sync("add 2 and 3")

    gated = gu.Runtime(
        model=ScriptedModel([ScriptedCall("drop_table", {"name": "t"}), "Dropped."]),
        tools=[drop_table],
    )
    waiting = gated.run_sync("drop t")
    waited = waiting.status.type  # the same message goes on when approved
    call_id = waiting.tool_calls[0].tool_call_id
    approved = asyncio.run(gated.approve(call_id))

    print(json.dumps({
        "demo": [first.text, first.status.type, again.text, len(demo.thread.messages)],
        "scripted": [summed.text, summed.status.type, summed.tool_calls[0].result],
        "gated": [waited, approved is waiting, approved.text, approved.status.type,
                  approved.tool_calls[0].result],
    }))
    """
)


def test_a_plain_script_runs_the_runtime_with_asyncio_run_and_run_sync(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])

    # The demo's answer in a script is the one it gives in a notebook cell.
    async def in_a_cell() -> gu.Message:
        return await gu.Runtime(model=gu.DemoModel(delay=0)).send("hi")

    expected = asyncio.run(in_a_cell()).text
    assert expected
    assert out["demo"] == [expected, "complete", expected, 4]
    assert out["scripted"] == ["The sum is 5.", "complete", 5]
    assert out["gated"] == ["requires-action", True, "Dropped.", "complete", "dropped t"]


def test_send_with_no_loop_records_the_text_and_starts_when_awaited(tmp_path: Path) -> None:
    model = ScriptedModel(["hello"])
    rt = gu.Runtime(model=model, persist=tmp_path / "chat.json")
    run = rt.send("hi")
    assert [m.text for m in rt.thread.messages] == ["hi"]  # the user's text, kept at once
    assert [m.text for m in gu.Runtime.load(tmp_path / "chat.json").thread.messages] == ["hi"]
    assert not run.done() and not rt.running and list(model.requests) == []
    assert "pending" in repr(run)
    with pytest.raises(asyncio.InvalidStateError):
        run.result()

    message = asyncio.run(run)  # the Run is a coroutine: asyncio.run takes it

    assert message.text == "hello" and message.status.type == "complete"
    assert message.id == run.message_id and rt.thread.messages[-1] is message
    assert run.done() and run.result() is message
    assert len(model.requests) == 1

    async def await_again() -> gu.Message:
        return await run

    assert asyncio.run(await_again()) is message  # its first loop is closed by now
    assert len(model.requests) == 1


def test_a_second_send_with_no_loop_ends_the_first_run_cancelled() -> None:
    model = ScriptedModel(["two"])
    rt = gu.Runtime(model=model)
    first = rt.send("one")
    second = rt.send("two")

    assert first.done()
    ended = first.result()
    assert ended.status.type == "incomplete" and ended.status.reason == "cancelled"
    assert [m.role for m in rt.thread.messages] == ["user", "assistant", "user"]

    message = asyncio.run(second)
    assert message.text == "two"
    assert [m.role for m in rt.thread.messages] == ["user", "assistant", "user", "assistant"]
    assert len(model.requests) == 1  # the first run never asked the model
    assert_valid(model)

    async def await_first() -> gu.Message:
        return await first

    assert asyncio.run(await_first()) is ended


def test_cancel_of_a_run_not_yet_started_resolves_it() -> None:
    model = ScriptedModel(["never"])
    rt = gu.Runtime(model=model)
    run = rt.send("hi")
    rt.cancel()

    assert run.done()
    message = run.result()
    assert message.status.type == "incomplete" and message.status.reason == "cancelled"
    assert rt.thread.messages[-1] is message and message.id == run.message_id
    assert asyncio.run(run) is message
    assert list(model.requests) == [] and not rt.running and rt.phase == "idle"


def test_retry_with_no_loop_changes_nothing_until_awaited() -> None:
    rt = gu.Runtime(model=ScriptedModel(["first", "second"]))
    answer = asyncio.run(rt.send("hi"))
    run = rt.retry()
    assert answer.text == "first" and answer.status.type == "complete"  # untouched so far

    again = asyncio.run(run)
    assert again is answer and again.text == "second"
    assert len(rt.thread.messages) == 2


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    drop_table.calls.append(name)  # type: ignore[attr-defined]
    return f"dropped {name}"


@gu.tool(human=True)
def ask_user(question: str) -> str:
    """Ask the user."""
    raise AssertionError("a human tool's body never runs")


@pytest.mark.parametrize("decision", ["approve", "reject", "add_tool_result"])
def test_decisions_with_no_loop_resume_when_awaited(decision: str) -> None:
    drop_table.calls = []  # type: ignore[attr-defined]
    tool = "ask_user" if decision == "add_tool_result" else "drop_table"
    model = ScriptedModel([call(tool, {"name": "t", "question": "sure?"}), "Done."])
    rt = gu.Runtime(model=model, tools=[drop_table, ask_user])
    waiting = rt.run_sync("go")
    assert waiting.status.type == "requires-action"
    call_id = waiting.tool_calls[0].tool_call_id

    decide: dict[str, Any] = {
        "approve": lambda: rt.approve(call_id),
        "reject": lambda: rt.reject(call_id, reason="not today"),
        "add_tool_result": lambda: rt.add_tool_result(call_id, "no", is_error=True),
    }
    run = decide[decision]()
    assert isinstance(run, gu.Run) and not run.done()
    assert drop_table.calls == [] and len(model.requests) == 1  # nothing ran yet

    message = asyncio.run(run)
    assert message is waiting and message.text == "Done."
    assert message.status.type == "complete"
    assert drop_table.calls == (["t"] if decision == "approve" else [])
    assert len(model.requests) == 2
    assert_valid(model)


def test_cancel_of_a_decision_not_yet_resumed_answers_the_call_cancelled() -> None:
    drop_table.calls = []  # type: ignore[attr-defined]
    model = ScriptedModel([call("drop_table", {"name": "t"}), "never"])
    rt = gu.Runtime(model=model, tools=[drop_table])
    waiting = rt.run_sync("go")
    run = rt.approve(waiting.tool_calls[0].tool_call_id)
    assert run is not None
    rt.cancel()
    assert run.done() and run.result() is waiting
    assert waiting.status.type == "incomplete" and waiting.status.reason == "cancelled"
    part = waiting.tool_calls[0]
    assert part.has_result and part.is_error
    assert drop_table.calls == [] and len(model.requests) == 1 and rt.phase == "idle"


async def test_with_a_loop_running_send_still_starts_at_once() -> None:
    rt = gu.Runtime(model=ScriptedModel(["hello"]))
    run = rt.send("hi")
    assert rt.running and "running" in repr(run)  # the notebook cell returns right away
    assert [m.role for m in rt.thread.messages] == ["user", "assistant"]
    assert (await run).text == "hello"


async def test_run_sync_inside_a_running_loop_says_to_await_and_records_nothing() -> None:
    rt = gu.Runtime(model=ScriptedModel(["hello"]))
    with pytest.raises(RuntimeError, match=r"await chat\.send"):
        rt.run_sync("hi")
    assert rt.thread.messages == []


def test_run_sync_returns_the_final_message_and_the_suggestions() -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0), suggestions=True)
    message = rt.run_sync("hi")
    assert message is rt.thread.messages[-1] and message.status.type == "complete"
    assert rt.current_suggestions  # the run asked for them; the loop waited for them
    again = rt.run_sync("hi")  # a fresh private loop
    assert again.status.type == "complete" and len(rt.thread.messages) == 4


def test_a_click_on_a_chat_with_no_loop_is_refused_not_left_pending(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    errors: list[str] = []
    monkeypatch.setattr(chat._handlers, "_error", lambda text, content: errors.append(text))
    chat._handlers.on_comm_msg(chat, {"type": "send", "text": "hi"}, None)
    assert errors and "event loop" in errors[0]
    assert chat.thread.messages == []
    chat.close()
