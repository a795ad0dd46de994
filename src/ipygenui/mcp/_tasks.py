"""A tool call the server runs as an MCP task (``execution.taskSupport``
``"required"``, on a server that says it runs tool calls as tasks).

The call goes out with a ``task`` field and is answered at once with the
task; its status is then polled (``tasks/get``, at the server's
``pollInterval`` within bounds) onto the call's card, and its result read
(``tasks/result``) once it ends, or as soon as it needs the user: the
server's questions arrive while that request waits, as the cards of this
call. Stop cancels the task on the server (``tasks/cancel``).

Everything the server says here is untrusted: its id is bounded, its
status must be one the spec names, its poll interval is clamped, and a task
that outlives the time the server gave it ends the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import ToolError
from ..tools.call_report import CallReport

__all__ = ["TASK_TTL_MS", "run_as_task", "runs_tool_tasks", "task_status_text"]

TASK_TTL_MS = 30 * 60 * 1000
"""How long the client asks the server to keep a task (milliseconds)."""
POLL_SECONDS = (0.25, 5.0)
"""The shortest and longest wait between two ``tasks/get`` (a server's
``pollInterval`` is kept within them); 1 s when it gives none."""
CANCEL_SECONDS = 5.0
MAX_TASK_ID_CHARS = 256

SendRaw = Callable[[str, dict[str, Any], float | None], Awaitable[dict[str, Any]]]
"""Sends one request and returns the server's raw result (or raises its error)."""

_STATUSES = {"working", "input_required", "completed", "failed", "cancelled"}
_SAID = {
    "working": "Working",
    "input_required": "Waiting for your answer",
    "completed": "Done",
    "failed": "Failed",
    "cancelled": "Cancelled by the server",
}


def runs_tool_tasks(capabilities: Any) -> bool:
    """Whether the server says it runs ``tools/call`` as tasks (the spec lets
    a client ask for a task only then)."""
    tasks = getattr(capabilities, "tasks", None)
    requests = getattr(tasks, "requests", None)
    tools = getattr(requests, "tools", None)
    return getattr(tools, "call", None) is not None


def task_status_text(status: str, message: str | None) -> str:
    said = _SAID.get(status, status)
    return f"{said}: {message}" if message else said


class _Task:
    """What the server last said of the task, checked."""

    def __init__(self, raw: Any, name: str) -> None:
        if not isinstance(raw, dict):
            raise _refused(name, "answered the call with no task")
        task_id, status = raw.get("taskId"), raw.get("status")
        if not isinstance(task_id, str) or not 0 < len(task_id) <= MAX_TASK_ID_CHARS:
            raise _refused(name, "gave the task no usable id")
        if status not in _STATUSES:
            raise _refused(name, f"gave the task an unknown status {str(status)[:40]!r}")
        self.id: str = task_id
        self.status: str = status
        message = raw.get("statusMessage")
        self.message = message if isinstance(message, str) else None
        self.ttl = _seconds(raw.get("ttl"))
        poll = _seconds(raw.get("pollInterval")) or 1.0
        self.poll = min(max(poll, POLL_SECONDS[0]), POLL_SECONDS[1])


def _seconds(milliseconds: Any) -> float | None:
    """A positive count of milliseconds in seconds, else None."""
    if isinstance(milliseconds, bool) or not isinstance(milliseconds, int | float):
        return None
    return milliseconds / 1000 if 0 < milliseconds < float("inf") else None


def _refused(name: str, why: str) -> ToolError:
    return ToolError({"error": f"{name} was run as an MCP task, but the server {why}."})


async def run_as_task(
    send: SendRaw,
    name: str,
    params: dict[str, Any],
    *,
    timeout: float | None,
    report: CallReport | None,
) -> dict[str, Any]:
    """Call tool ``name`` as a task and return the raw ``tools/call`` result
    the task ended with (``tasks/result``)."""
    created = await send("tools/call", {**params, "task": {"ttl": TASK_TTL_MS}}, timeout)
    task = _Task(created.get("task") if isinstance(created, dict) else None, name)
    started = time.monotonic()
    try:
        while task.status == "working":
            _show(report, task)
            if task.ttl is not None and time.monotonic() - started > task.ttl:
                raise _refused(name, "kept it working past the time it gave it")
            await asyncio.sleep(task.poll)
            task = _Task(await send("tasks/get", {"taskId": task.id}, timeout), name)
        _show(report, task)
        if task.status == "cancelled":
            raise _refused(name, "cancelled it" + (f" ({task.message})" if task.message else ""))
        # input_required: the server's questions come while this request waits
        # for the user, so it waits as long as the task may live
        waits = task.ttl if task.status == "input_required" else timeout
        try:
            result = await send("tasks/result", {"taskId": task.id}, waits)
        except Exception as exc:
            if task.status != "failed":
                raise
            said = f" ({task.message})" if task.message else ""
            raise _refused(name, f"says it failed{said} and gave no result") from exc
    except asyncio.CancelledError:
        await _cancel(send, task.id)
        raise
    if not isinstance(result, dict):
        raise _refused(name, "gave the task no result")
    return result


def _show(report: CallReport | None, task: _Task) -> None:
    if report is not None:
        report.status(task_status_text(task.status, task.message))


async def _cancel(send: SendRaw, task_id: str) -> None:
    """Ask the server to cancel the task (the run was stopped); never raises."""
    with contextlib.suppress(Exception, asyncio.CancelledError):
        cancel = send("tasks/cancel", {"taskId": task_id}, CANCEL_SECONDS)
        await asyncio.shield(asyncio.wait_for(cancel, CANCEL_SECONDS))
