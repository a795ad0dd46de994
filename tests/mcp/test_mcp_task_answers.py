"""What a server says of a task, checked (``ipygenui.mcp._tasks``): the call's
result once the task ends, the card following its status, and a hostile or
broken server's answers ending the call with an error that says what went
wrong (no endless wait, no busy polling). The reference server's real tasks:
tests/mcp/test_mcp_everything_tasks.py."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from ipygenui.errors import ToolError
from ipygenui.mcp._tasks import POLL_SECONDS, run_as_task, task_status_text

RESULT = {"content": [{"type": "text", "text": "the report"}]}


def task(status: str = "working", **fields: Any) -> dict[str, Any]:
    return {"taskId": "t1", "status": status, "ttl": 60_000, "pollInterval": 10, **fields}


class Server:
    """Answers each request from a script, keeping what was asked."""

    def __init__(self, *gets: Any, result: Any = RESULT, created: Any = None) -> None:
        self.gets = list(gets)
        self.result = result
        self.created = {"task": task()} if created is None else created
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def send(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        self.asked.append((method, params))
        if method == "tools/call":
            return self.created
        if method == "tasks/get":
            return self.gets.pop(0) if len(self.gets) > 1 else self.gets[0]
        if method == "tasks/result":
            if isinstance(self.result, Exception):
                raise self.result
            return self.result
        return task("cancelled")


class Card:
    def __init__(self) -> None:
        self.said: list[str] = []

    def status(self, text: str) -> None:
        self.said.append(text)


async def run(server: Server, card: Card | None = None) -> Any:
    return await run_as_task(
        server.send,
        "research",
        {"name": "research"},
        timeout=5,
        report=card,  # type: ignore[arg-type]
    )


async def test_the_call_asks_for_a_task_and_returns_its_result() -> None:
    server = Server(task(statusMessage="Reading"), task("completed", statusMessage="Done"))
    card = Card()
    assert await run(server, card) == RESULT
    methods = [m for m, _ in server.asked]
    assert methods == ["tools/call", "tasks/get", "tasks/get", "tasks/result"]
    assert server.asked[0][1]["task"]["ttl"] > 0
    assert server.asked[-1][1] == {"taskId": "t1"}
    assert card.said == ["Working", "Working: Reading", "Done: Done"]


async def test_a_task_needing_input_fetches_its_result_at_once() -> None:
    server = Server(task("input_required", statusMessage="Which one?"))
    card = Card()
    assert await run(server, card) == RESULT
    assert [m for m, _ in server.asked] == ["tools/call", "tasks/get", "tasks/result"]
    assert card.said[-1] == task_status_text("input_required", "Which one?")


@pytest.mark.parametrize(
    ("created", "said"),
    [
        ({"content": []}, "answered the call with no task"),
        ({"task": task(taskId="")}, "no usable id"),
        ({"task": task(taskId="x" * 10_000)}, "no usable id"),
        ({"task": task(status="sleeping")}, "unknown status 'sleeping'"),
        ({"task": task(status="cancelled", statusMessage="no")}, "cancelled it (no)"),
    ],
)
async def test_a_broken_task_ends_the_call_with_an_error(created: Any, said: str) -> None:
    with pytest.raises(ToolError) as raised:
        await run(Server(task("completed"), created=created))
    assert said in raised.value.result["error"]
    assert "research was run as an MCP task" in raised.value.result["error"]


async def test_a_failed_task_without_a_result_says_so() -> None:
    server = Server(task("failed", statusMessage="disk full"), result=RuntimeError("no result"))
    with pytest.raises(ToolError, match=r"says it failed \(disk full\)"):
        await run(server)


async def test_a_zero_poll_interval_is_not_a_busy_loop() -> None:
    server = Server(task(pollInterval=0), task(pollInterval=0), task("completed"))
    server.created = {"task": task(pollInterval=0)}
    started = time.monotonic()
    await run(server)
    assert time.monotonic() - started >= 2 * POLL_SECONDS[0] * 0.9


async def test_a_task_working_past_its_time_ends_the_call() -> None:
    server = Server(task(ttl=1, pollInterval=300))  # kept 1 ms, working forever
    server.created = {"task": task(ttl=1, pollInterval=300)}
    with pytest.raises(ToolError, match="past the time it gave it"):
        await asyncio.wait_for(run(server), 5)


async def test_a_stopped_call_cancels_its_task() -> None:
    server = Server(task())
    running = asyncio.ensure_future(run(server))
    while not any(m == "tasks/get" for m, _ in server.asked):
        await asyncio.sleep(0.01)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert server.asked[-1] == ("tasks/cancel", {"taskId": "t1"})
