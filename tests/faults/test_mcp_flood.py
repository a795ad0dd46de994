"""Faults tried with an MCP server flooding the chat with requests during one
approved call (tests/mcp_asking_server.py's ``flood``), and with saves asked
for many times at once.

Tried here:
- 300 form requests at once from one call: at most ``MAX_OPEN_REQUESTS_PER_CALL``
  cards open, every other request refused to the server with an MCP error it
  reads (naming the limit), the event loop answering throughout (its lag
  measured as a loose sanity bound only), Stop ending the run at once, the
  saved thread holding only the capped cards, all cancelled;
- 500 saves asked for during a run: written at most three times, all but the
  first in a worker thread, never on the event loop; ``flush`` writes the last
  state.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import ipygenui as gu
from ipygenui import persistence
from ipygenui.mcp._requests import MAX_OPEN_REQUESTS_PER_CALL, MAX_OPEN_REQUESTS_PER_SERVER
from ipygenui.messages import Incomplete
from ipygenui.persistence.autosave import Persisting
from ipygenui.persistence.store import ThreadStore
from ipygenui.testing import ScriptedCall, ScriptedModel
from mcp_asking import until

FLOOD = 300


async def worst_lag(stop: asyncio.Event, lags: list[float]) -> None:
    """How late a 10 ms sleep wakes, at worst, until ``stop``."""
    while not stop.is_set():
        started = time.monotonic()
        await asyncio.sleep(0.01)
        lags.append(time.monotonic() - started - 0.01)


async def test_a_request_flood_is_capped_and_stop_ends_the_run(asking, tmp_path: Path) -> None:
    assert MAX_OPEN_REQUESTS_PER_CALL <= MAX_OPEN_REQUESTS_PER_SERVER
    path = tmp_path / "t.json"
    model = ScriptedModel([ScriptedCall("flood", {"n": FLOOD}, id="c1"), "done"])
    runtime = gu.Runtime(model=model, tools=[asking()], persist=path)
    stop, lags = asyncio.Event(), []
    watcher = asyncio.get_running_loop().create_task(worst_lag(stop, lags))
    run = runtime.send("go")
    answers = tmp_path / "late.txt"

    def refused() -> list[str]:
        text = answers.read_text() if answers.exists() else ""
        return [line for line in text.splitlines() if line.startswith("refused")]

    await until(lambda: len(refused()) >= FLOOD - MAX_OPEN_REQUESTS_PER_CALL, "the flood refused")
    assert len(refused()) == FLOOD - MAX_OPEN_REQUESTS_PER_CALL
    limits = (f"(limit {MAX_OPEN_REQUESTS_PER_CALL})", f"(limit {MAX_OPEN_REQUESTS_PER_SERVER})")
    assert all(line.startswith("refused (-32602)") for line in refused())
    assert all(any(limit in line for limit in limits) for line in refused())
    reply = runtime.thread.last_assistant
    assert reply is not None and len(reply.server_requests) == MAX_OPEN_REQUESTS_PER_CALL
    started = time.monotonic()
    runtime.cancel()  # Stop
    message = await asyncio.wait_for(run, 10)
    assert time.monotonic() - started < 5  # a loose bound: the run ends now, not later
    assert isinstance(message.status, Incomplete) and message.status.reason == "cancelled"
    assert all(
        r.has_result and r.completion_status_message == "Cancelled" for r in message.server_requests
    )
    stop.set()
    await watcher
    assert max(lags) < 5.0  # sanity only: the loop kept answering (82 s before the fix)
    saved = persistence.load_thread(path).messages[-1]
    assert len(saved.server_requests) == MAX_OPEN_REQUESTS_PER_CALL
    assert all(r.has_result for r in saved.server_requests)
    runtime.close()


async def test_saves_asked_for_at_once_are_coalesced_and_written_off_the_loop(
    tmp_path: Path, monkeypatch
) -> None:
    """500 saves asked for while a run is in progress (``running``), as a flood's cards ask."""
    path = tmp_path / "t.json"
    store = ThreadStore(path)
    thread = store.open(None)
    saves = Persisting(store, lambda: thread, lambda event: None, running=lambda: True)
    writers: list[str] = []
    real = persistence.ThreadFile.write

    def spying(self: persistence.ThreadFile, prepared: Any) -> None:
        writers.append(threading.current_thread().name)
        real(self, prepared)

    monkeypatch.setattr(persistence.ThreadFile, "write", spying)
    loop_thread = threading.current_thread().name
    for i in range(500):
        thread.title = f"title {i}"
        saves.autosave()
    await until(
        lambda: path.exists() and persistence.load_thread(path).title == "title 499",
        "the last save written",
    )
    assert 1 <= len(writers) <= 3, writers
    assert loop_thread not in writers[1:]  # at most the first of a burst is on the loop
    thread.title = "at the end"
    saves.autosave()
    saves.flush()  # Runtime.close: what is pending is written now
    assert persistence.load_thread(path).title == "at the end"
    assert saves.error is None
