"""The server's requests run as tasks of this client (``ipygenui.mcp._client_tasks``):
answered at once with a task, the request handled in the background, the
server's ``tasks/*`` requests answered, and a hostile server bounded (a few
tasks at a time, its ttl capped, ids it does not own refused). Against the
reference server: tests/mcp/test_mcp_everything_tasks.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ipygenui.mcp._client_tasks import MAX_TTL_MS, MAX_WORKING, ClientTasks, TaskError

SAMPLING = "sampling/createMessage"


async def answered(result: Any, gate: asyncio.Event | None = None) -> Any:
    if gate is not None:
        await gate.wait()
    if isinstance(result, Exception):
        raise result
    return result


async def test_a_request_is_a_task_its_result_read_once_answered() -> None:
    tasks = ClientTasks()
    gate = asyncio.Event()
    created = tasks.start(SAMPLING, {"task": {"ttl": 5_000}}, answered({"role": "x"}, gate))
    task_id = created["task"]["taskId"]
    assert created["task"]["status"] == "working" and created["task"]["ttl"] == 5_000
    result = asyncio.ensure_future(tasks.answer("tasks/result", {"taskId": task_id}))
    await asyncio.sleep(0.05)
    assert not result.done()  # tasks/result waits for the answer
    assert (await tasks.answer("tasks/get", {"taskId": task_id}))["status"] == "working"
    gate.set()
    assert await result == {"role": "x"}
    assert (await tasks.answer("tasks/get", {"taskId": task_id}))["status"] == "completed"
    listed = await tasks.answer("tasks/list", None)
    assert [t["taskId"] for t in listed["tasks"]] == [task_id]


async def test_an_elicitation_waits_for_the_user_and_a_failure_is_reported() -> None:
    tasks = ClientTasks()
    gate = asyncio.Event()
    created = tasks.start("elicitation/create", {"task": {}}, answered(RuntimeError("bad"), gate))
    assert created["task"]["status"] == "input_required"
    assert created["task"]["ttl"] == MAX_TTL_MS  # none asked: the cap
    gate.set()
    with pytest.raises(TaskError, match="bad"):
        await tasks.answer("tasks/result", {"taskId": created["task"]["taskId"]})
    said = await tasks.answer("tasks/get", {"taskId": created["task"]["taskId"]})
    assert said["status"] == "failed" and said["statusMessage"] == "bad"


async def test_a_server_may_run_only_a_few_tasks_at_once() -> None:
    tasks = ClientTasks()
    gate = asyncio.Event()
    for _ in range(MAX_WORKING):
        tasks.start(SAMPLING, {"task": {"ttl": 10**12}}, answered({}, gate))
    extra = answered({}, gate)
    with pytest.raises(TaskError, match=f"at most {MAX_WORKING}"):
        tasks.start(SAMPLING, {"task": {}}, extra)
    gate.set()
    await asyncio.sleep(0.01)
    tasks.start(SAMPLING, {"task": {}}, answered({}))  # the earlier ones ended: room again
    tasks.close()


async def test_cancel_ends_the_request_and_unknown_ids_are_refused() -> None:
    tasks = ClientTasks()
    gate = asyncio.Event()
    task_id = tasks.start(SAMPLING, {"task": {}}, answered({}, gate))["task"]["taskId"]
    said = await tasks.answer("tasks/cancel", {"taskId": task_id})
    assert said["status"] == "cancelled"
    with pytest.raises(TaskError, match="already ended"):
        await tasks.answer("tasks/cancel", {"taskId": task_id})
    with pytest.raises(TaskError, match="without a result"):
        await tasks.answer("tasks/result", {"taskId": task_id})
    for bad in ({"taskId": "someone-else"}, {"taskId": 7}, None):
        with pytest.raises(TaskError, match="no such task"):
            await tasks.answer("tasks/get", bad)


async def test_a_task_is_forgotten_when_its_time_runs_out() -> None:
    tasks = ClientTasks()
    gate = asyncio.Event()
    task_id = tasks.start(SAMPLING, {"task": {"ttl": 50}}, answered({}, gate))["task"]["taskId"]
    waiting = asyncio.ensure_future(tasks.answer("tasks/result", {"taskId": task_id}))
    await asyncio.sleep(0.2)
    with pytest.raises(TaskError, match="no such task"):
        await tasks.answer("tasks/get", {"taskId": task_id})
    with pytest.raises(TaskError, match="without a result"):
        await waiting  # a wait under way ends too
