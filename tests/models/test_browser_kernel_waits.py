"""Timed waits work on a browser kernel's event loop.

Pyodide's ``WebLoop`` (the JupyterLite kernel) schedules ``call_at(when)`` as
``call_later(when - time())`` and refuses a negative delay with "Can't
schedule in the past". Python ≥ 3.12's ``asyncio.wait_for`` reads the clock,
then calls ``call_at`` with a deadline that may have passed by then: a paced
replay of notebooks/07_replay.ipynb failed its run that way on the Lite
site. The loop here schedules as WebLoop does, and its ``call_at`` reads a
clock that moved ``CLOCK_MOVED`` since the caller's read: a browser's clock
moves far less between two reads, so there the failure is rare; here every
near deadline meets it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

import ipygenui as gu
from ipygenui._internal.timed_wait import wait_set

ROOT = Path(__file__).resolve().parents[2]
CASSETTE = ROOT / "notebooks" / "cassettes" / "tools_lesson.cassette"
CLOCK_MOVED = 0.2  # seconds: more than any wait between the cassette's frames
T = TypeVar("T")


class WebLoopScheduling(asyncio.SelectorEventLoop):
    """``call_at`` and ``call_later`` as Pyodide's WebLoop has them."""

    def call_later(self, delay: float, callback: Any, *args: Any, context: Any = None) -> Any:
        if delay < 0:
            raise ValueError("Can't schedule in the past")
        return super().call_at(self.time() + delay, callback, *args, context=context)

    def call_at(self, when: float, callback: Any, *args: Any, context: Any = None) -> Any:
        return self.call_later(when - (self.time() + CLOCK_MOVED), callback, *args, context=context)


async def _wait_for_as_in_python_3_12(awaitable: Awaitable[T], timeout: float | None) -> T:
    async with asyncio.timeout(timeout):
        return await awaitable


def _run_on_web_loop(main: Callable[[], Awaitable[T]], monkeypatch: pytest.MonkeyPatch) -> T:
    if sys.version_info < (3, 12):  # the browser kernel's Python is newer
        monkeypatch.setattr(asyncio, "wait_for", _wait_for_as_in_python_3_12)
    with asyncio.Runner(loop_factory=WebLoopScheduling) as runner:
        return runner.run(main())


def test_the_loop_here_refuses_what_a_browser_kernel_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def near_deadline() -> None:
        waiting = asyncio.Event().wait()
        try:
            await asyncio.wait_for(waiting, CLOCK_MOVED / 2)
        finally:
            waiting.close()  # refused before it was awaited

    with pytest.raises(ValueError, match="in the past"):
        _run_on_web_loop(near_deadline, monkeypatch)


def test_wait_set_times_out_near_a_deadline_and_sees_the_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def main() -> tuple[bool, bool, bool]:
        event = asyncio.Event()
        timed_out = await wait_set(event, CLOCK_MOVED / 2)
        asyncio.get_running_loop().call_later(0.001, event.set)
        seen = await wait_set(event, 5)
        return timed_out, seen, await wait_set(event, 0)

    assert _run_on_web_loop(main, monkeypatch) == (False, True, True)


async def test_a_cancelled_wait_leaves_no_waiter_behind() -> None:
    event = asyncio.Event()
    waiting = asyncio.ensure_future(wait_set(event, 30))
    await asyncio.sleep(0.01)
    before = len(asyncio.all_tasks())
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.sleep(0)
    assert len(asyncio.all_tasks()) == before - 2  # the wait and its event waiter


def _lesson_runtime() -> dict[str, Any]:
    path = ROOT / "scripts" / "record_tools_lesson.py"
    spec = importlib.util.spec_from_file_location("record_tools_lesson", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {"runtime": module.lesson_runtime(), "prompts": module.PROMPTS}


def test_a_paced_replay_with_a_tool_call_finishes_on_a_browser_kernel_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lesson = _lesson_runtime()

    async def main() -> list[gu.Message]:
        runtime = gu.Runtime(model=gu.replay(CASSETTE, pace="recorded"), **lesson["runtime"])
        return [await runtime.send(prompt) for prompt in lesson["prompts"]]

    replies = _run_on_web_loop(main, monkeypatch)
    assert [m.status.type for m in replies] == ["complete", "complete"]
    weather = replies[0].tool_calls[0]
    assert weather.tool_name == "get_weather" and not weather.is_error
    assert weather.result == {"city": "Paris", "temperature_c": 21, "sky": "clear"}
    assert replies[1].tool_calls[0].component == "Table"
