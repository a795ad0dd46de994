"""Faults tried against running tools.

- A tool that ends the process: ``sys.exit(2)``, argparse on bad input,
  ``KeyboardInterrupt``, and a tool raising ``asyncio.CancelledError`` itself;
  sync and async tools. Each is a tool error the model reads; the run ends and
  the chat goes on. ``asyncio.run`` of such a run returns (in a subprocess, as
  a headless script runs it). A real cancel still cancels an async tool.
- Sync tools that hang: more hung sync tools than any default thread pool has
  workers, cancelled; a new sync tool must still start. The stopped calls say
  the function may still finish in the background; a late result is ignored.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable

import pytest

import ipygenui as gu
from ipygenui.messages import Complete, Incomplete
from ipygenui.testing import ScriptedModel
from runtime_helpers import assert_valid, call, tool_messages

# --- BaseExceptions at the tool boundary ------------------------------------------


def _exit() -> None:
    sys.exit(2)


def _interrupt() -> None:
    raise KeyboardInterrupt


def _cancelled() -> None:
    raise asyncio.CancelledError


def _argparse() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--count", type=int, required=True)
    parser.parse_args(["--count", "many"])


RAISERS = {
    "SystemExit": _exit,
    "KeyboardInterrupt": _interrupt,
    "CancelledError": _cancelled,
    "argparse": _argparse,
}


def _make_tool(kind: str, style: str) -> gu.Tool:
    raise_it = RAISERS[kind]
    if style == "sync":

        def broken() -> str:
            raise_it()
            return "unreachable"

    else:

        async def broken() -> str:  # type: ignore[misc]
            await asyncio.sleep(0)
            raise_it()
            return "unreachable"

    return gu.tool(broken)


@pytest.mark.parametrize("style", ["sync", "async"])
@pytest.mark.parametrize("kind", list(RAISERS))
async def test_a_tool_that_exits_or_interrupts_is_a_tool_error(kind: str, style: str) -> None:
    model = ScriptedModel([call("broken", id="b"), "It failed.", "Still here."])
    rt = gu.Runtime(model=model, tools=[_make_tool(kind, style)])
    message = await asyncio.wait_for(rt.send("run it"), 30)
    assert message.status == Complete(reason="stop")
    part = message.tool_call("b")
    assert part is not None and part.is_error
    expected = "SystemExit" if kind == "argparse" else kind
    assert expected in part.result["error"]
    assert expected in tool_messages(model.requests[-1])["b"]["error"]
    assert_valid(model)
    again = await asyncio.wait_for(rt.send("again"), 30)  # the chat still works
    assert again.status == Complete(reason="stop") and again.text == "Still here."


async def test_a_real_cancel_still_cancels_an_async_tool() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    @gu.tool
    async def wait_forever() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    rt = gu.Runtime(model=ScriptedModel([call("wait_forever", id="w")]), tools=[wait_forever])
    run = rt.send("go")
    await asyncio.wait_for(started.wait(), 30)
    rt.cancel()
    message = await run
    assert isinstance(message.status, Incomplete) and message.status.reason == "cancelled"
    await asyncio.wait_for(cancelled.wait(), 30)
    part = message.tool_call("w")
    assert part is not None and part.is_error and "Cancelled" in part.result["error"]


HEADLESS = textwrap.dedent(
    """
    import asyncio, sys
    import ipygenui as gu
    from ipygenui.testing import ScriptedCall, ScriptedModel

    @gu.tool
    def exits() -> str:
        sys.exit(2)

    @gu.tool
    async def interrupts() -> str:
        raise KeyboardInterrupt

    async def main() -> str:
        model = ScriptedModel([
            [ScriptedCall("exits", {}, id="a"), ScriptedCall("interrupts", {}, id="b")],
            "done",
        ])
        rt = gu.Runtime(model=model, tools=[exits, interrupts])
        message = await rt.send("go")
        return message.status.type + " " + message.text

    print(asyncio.run(main()))
    """
)


def test_asyncio_run_of_a_runtime_with_an_exiting_tool_returns() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HEADLESS], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "complete done"


# --- hung sync tools -----------------------------------------------------------------

HUNG = 40
"""More than any default executor has workers (at most 32)."""


async def _until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (set by tool threads); the timeout only guards a hang."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), 30)


async def test_cancelled_hung_sync_tools_do_not_block_new_ones() -> None:
    release = threading.Event()
    lock = threading.Lock()
    counts = {"started": 0, "finished": 0}

    @gu.tool
    def hang(n: int) -> str:
        with lock:
            counts["started"] += 1
        release.wait()
        with lock:
            counts["finished"] += 1
        return f"finished {n}"

    @gu.tool
    def quick() -> str:
        return "quick answer"

    model = ScriptedModel(
        [[call("hang", {"n": i}, id=f"h{i}") for i in range(HUNG)], call("quick", id="q"), "ok"]
    )
    rt = gu.Runtime(model=model, tools=[hang, quick])
    try:
        run = rt.send("hang")
        await _until(lambda: counts["started"] > 0)
        rt.cancel()
        stopped = await run
        assert isinstance(stopped.status, Incomplete) and stopped.status.reason == "cancelled"
        for part in stopped.tool_calls:
            assert part.is_error
            assert "may still finish in the background" in part.result["error"]

        message = await asyncio.wait_for(rt.send("quick"), 30)
        assert message.status == Complete(reason="stop")
        part = message.tool_call("q")
        assert part is not None and part.result == "quick answer"
        assert_valid(model)
    finally:
        release.set()
    await _until(lambda: counts["finished"] == counts["started"])
    await asyncio.sleep(0)  # let any late delivery reach the loop
    for part in stopped.tool_calls:  # a late result never replaces the stop notice
        assert part.is_error and "background" in part.result["error"]


async def test_sync_tools_run_off_the_event_loop_thread() -> None:
    threads: list[int] = []

    @gu.tool
    def where() -> str:
        threads.append(threading.get_ident())
        return "ok"

    rt = gu.Runtime(model=ScriptedModel([call("where", id="w"), "ok"]), tools=[where])
    message = await rt.send("go")
    assert message.tool_call("w").result == "ok"  # type: ignore[union-attr]
    assert threads and threads[0] != threading.get_ident()


def _lookup_station(city: str) -> str:
    raise ValueError(f"no station for {city}")


@gu.tool
def weather_station(city: str) -> str:
    """Looks a station up; fails for unknown cities."""
    return _lookup_station(city)


async def test_a_failing_tool_keeps_its_traceback_for_the_user_not_the_model() -> None:
    from ipygenui.widget._protocol import message_for_browser

    model = ScriptedModel([call("weather_station", {"city": "Atlantis"}, id="w"), "Sorry."])
    rt = gu.Runtime(model=model, tools=[weather_station])
    message = await asyncio.wait_for(rt.send("weather?"), 30)
    part = message.tool_call("w")
    assert part is not None and part.is_error
    assert part.traceback is not None and "_lookup_station" in part.traceback
    assert "ValueError: no station for Atlantis" in part.traceback
    # the model reads the error line only; the browser gets the traceback to unfold
    sent = str(model.requests[-1].messages)
    assert "Traceback" not in sent and "_lookup_station" not in sent
    assert "no station for Atlantis" in tool_messages(model.requests[-1])["w"]["error"]
    browser_parts = message_for_browser(message)["parts"]
    assert any(p.get("traceback") == part.traceback for p in browser_parts)
