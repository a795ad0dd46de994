"""Sync tools run each in a thread of its own.

A shared pool (``asyncio.to_thread``) has a fixed number of workers: a few
hung tools, stopped by the user, keep their workers forever and every later
sync tool waits in the queue behind them. A thread cannot be killed, so each
call gets its own daemon thread: a stuck one costs one idle thread and blocks
nothing else, and a daemon thread does not keep the process alive at exit.
The outcome comes back through ``loop.call_soon_threadsafe``; once the call
was stopped, a late outcome is dropped.

A browser kernel (Pyodide, in the JupyterLite site) has one thread and cannot
start another: there the function runs on the loop, the only place it can.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("ipygenui")


def can_start_threads() -> bool:
    """False in a browser kernel (Pyodide): work meant for a thread runs on the loop."""
    # read at each call: sys.platform is what a test makes it
    return sys.platform != "emscripten"


def runs_in_thread(func: Callable[..., Any] | None) -> bool:
    """Whether a tool function runs in a thread (sync) rather than on the loop."""
    return func is not None and not inspect.iscoroutinefunction(func)


def stopped_in_background(tool_name: str) -> str:
    """The answer of a sync call stopped while its function was running."""
    return (
        f"Cancelled by the user while {tool_name} was running. It is a sync function "
        "running in its own thread, which cannot be stopped: it may still finish in the "
        "background, and its result will not be used."
    )


async def call_in_thread(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` in a new daemon thread; its return value or exception.

    Every exception the function raises, ``SystemExit`` and
    ``KeyboardInterrupt`` included, is raised here, in the awaiting task,
    so the caller decides what it means (the event loop never sees it).
    """
    if not can_start_threads():
        return func(*args, **kwargs)
    loop = asyncio.get_running_loop()
    outcome: asyncio.Future[tuple[bool, Any]] = loop.create_future()
    context = contextvars.copy_context()  # as asyncio.to_thread: context variables carry over
    name = getattr(func, "__name__", "tool")

    def deliver(result: tuple[bool, Any]) -> None:  # on the loop
        if outcome.done():
            logger.info("sync tool %s finished after it was stopped; its result is dropped", name)
        else:
            outcome.set_result(result)

    def work() -> None:
        try:
            result: tuple[bool, Any] = (True, context.run(func, *args, **kwargs))
        except BaseException as exc:  # SystemExit too: only the awaiting task may judge it
            result = (False, exc)
        try:
            loop.call_soon_threadsafe(deliver, result)
        except RuntimeError:  # the loop closed while the function ran
            logger.info("sync tool %s finished after its event loop closed", name)

    threading.Thread(target=work, name=f"ipygenui-tool-{name}", daemon=True).start()
    ok, value = await outcome
    if not ok:
        raise value
    return value
