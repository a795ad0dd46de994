"""A server's sampling and elicitation requests run as tasks of this client
(MCP tasks the other way round: the server asks with a ``task`` field).

Such a request is answered at once with a task; the request itself goes the
usual way (its card in the chat, the user's decisions) in the background,
and the server polls ``tasks/get``, reads ``tasks/result`` (which waits for
the answer), or ``tasks/cancel``s it. Advertised only for the requests the
chat answers, on the protocol version that has tasks (2025-11-25).

The server is untrusted: it may start only a few tasks at a time, each is
kept no longer than ``MAX_TTL_MS`` (its own ``ttl`` if shorter), the records
kept are bounded, and a task id it names that is not one of its own gets an
error.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Mapping
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "MAX_TTL_MS",
    "MAX_WORKING",
    "TASKABLE",
    "TASK_METHODS",
    "ClientTasks",
    "TaskError",
    "tasks_capability",
]

TASKABLE = {"sampling/createMessage", "elicitation/create"}
"""The server's requests this client runs as a task when asked to."""
TASK_METHODS = {"tasks/get", "tasks/result", "tasks/cancel", "tasks/list"}
MAX_TTL_MS = 30 * 60 * 1000
MAX_WORKING = 4
"""Tasks a server may have running at once (beyond: refused, as too many cards)."""
MAX_KEPT = 64
"""Task records kept (the oldest ended ones go first)."""
POLL_MS = 1000

_ids = itertools.count(1)


def tasks_capability(sampling: bool, elicitation: bool) -> Any:
    """``capabilities.tasks`` for the requests this client answers (None: none)."""
    from mcp import types

    if not (sampling or elicitation):
        return None
    return types.ClientTasksCapability(
        list=types.TasksListCapability(),
        cancel=types.TasksCancelCapability(),
        requests=types.ClientTasksRequestsCapability(
            sampling=types.TasksSamplingCapability(
                create_message=types.TasksCreateMessageCapability()
            )
            if sampling
            else None,
            elicitation=types.TasksElicitationCapability(
                create=types.TasksCreateElicitationCapability()
            )
            if elicitation
            else None,
        ),
    )


class TaskError(Exception):
    """A task request refused: ``code`` and message go back to the server."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


INVALID_PARAMS = -32602


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class _Task:
    def __init__(self, task_id: str, method: str, ttl_ms: int) -> None:
        self.id = task_id
        self.status = "input_required" if method == "elicitation/create" else "working"
        self.message: str | None = (
            "Waiting for the user's answer" if method == "elicitation/create" else None
        )
        self.created = self.updated = _now()
        self.ttl_ms = ttl_ms
        self.result: dict[str, Any] | None = None
        self.error: TaskError | None = None
        self.done = asyncio.Event()
        self.runner: asyncio.Task[None] | None = None
        self.answer: Awaitable[Any] | None = None
        """The request's handling, until the runner starts it."""
        self.expiry: asyncio.TimerHandle | None = None

    @property
    def ended(self) -> bool:
        return self.status in ("completed", "failed", "cancelled")

    def end(self, status: str, message: str | None = None) -> None:
        if self.ended:
            return
        self.status, self.message, self.updated = status, message, _now()
        self.done.set()

    def wire(self) -> dict[str, Any]:
        said: dict[str, Any] = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            "ttl": self.ttl_ms,
            "pollInterval": POLL_MS,
        }
        if self.message:
            said["statusMessage"] = self.message
        return said


class ClientTasks:
    """The tasks one server started on this client (its session's loop)."""

    def __init__(self) -> None:
        self._tasks: dict[str, _Task] = {}

    def start(self, method: str, params: Mapping[str, Any], answer: Awaitable[Any]) -> dict:
        """A ``CreateTaskResult`` for request ``method``, ``answer`` (the usual
        handling of the request, returning its result) run in the background."""
        working = sum(not t.ended for t in self._tasks.values())
        if working >= MAX_WORKING:
            _close(answer)
            raise TaskError(
                INVALID_PARAMS,
                f"too many tasks at once: this client runs at most {MAX_WORKING} "
                "of a server's requests as tasks; answer or cancel one first",
            )
        asked = params.get("task")
        ttl = asked.get("ttl") if isinstance(asked, Mapping) else None
        ttl_ms = (
            min(int(ttl), MAX_TTL_MS)
            if isinstance(ttl, int | float) and not isinstance(ttl, bool) and ttl > 0
            else MAX_TTL_MS
        )
        task = _Task(f"ipygenui-task-{next(_ids)}", method, ttl_ms)
        task.answer = answer
        self._keep(task)
        task.runner = asyncio.get_running_loop().create_task(self._run(task, answer))
        task.expiry = asyncio.get_running_loop().call_later(ttl_ms / 1000, self._forget, task)
        return {"task": task.wire()}

    async def _run(self, task: _Task, answer: Awaitable[Any]) -> None:
        task.answer = None  # started: cancelling the runner ends it
        try:
            result = await answer
        except asyncio.CancelledError:
            task.end("cancelled", "Cancelled")
            raise
        except Exception as exc:
            code = getattr(getattr(exc, "error", None), "code", -32603)
            task.error = TaskError(code if isinstance(code, int) else -32603, str(exc)[:500])
            task.end("failed", task.error.args[0])
            return
        task.result = result if isinstance(result, dict) else {}
        task.end("completed")

    def _keep(self, task: _Task) -> None:
        self._tasks[task.id] = task
        while len(self._tasks) > MAX_KEPT:
            oldest = next((t for t in self._tasks.values() if t.ended), None)
            if oldest is None:
                break
            self._forget(oldest)

    def _forget(self, task: _Task) -> None:
        self._tasks.pop(task.id, None)
        if task.expiry is not None:
            task.expiry.cancel()
        _stop(task)
        task.end("cancelled", "The task's time ran out")

    def _find(self, params: Mapping[str, Any] | None) -> _Task:
        task_id = params.get("taskId") if isinstance(params, Mapping) else None
        task = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None:
            raise TaskError(INVALID_PARAMS, "no such task (it ended, or was never started)")
        return task

    async def answer(self, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """The server's ``tasks/*`` request, answered."""
        if method == "tasks/list":
            return {"tasks": [t.wire() for t in self._tasks.values()]}
        task = self._find(params)
        if method == "tasks/get":
            return task.wire()
        if method == "tasks/cancel":
            if task.ended:
                raise TaskError(INVALID_PARAMS, f"the task already ended ({task.status})")
            _stop(task)
            task.end("cancelled", "Cancelled by the server")
            return task.wire()
        await task.done.wait()  # tasks/result: waits for the answer, as the spec says
        if task.result is not None:
            return task.result
        if task.error is not None:
            raise task.error
        raise TaskError(INVALID_PARAMS, f"the task ended without a result ({task.status})")

    def close(self) -> None:
        for task in list(self._tasks.values()):
            self._forget(task)


def _stop(task: _Task) -> None:
    """Cancel the task's handling (one never started is closed, unawaited)."""
    if task.answer is not None:
        _close(task.answer)
        task.answer = None
    if task.runner is not None and not task.runner.done():
        task.runner.cancel()


def _close(answer: Awaitable[Any]) -> None:
    """An answer never started: its coroutine closed, so nothing warns of it."""
    close = getattr(answer, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()
