"""HTTP clients bound to an event loop, closed before that loop closes.

An async HTTP client (httpx, aiohttp) belongs to the loop it was made on:
its connections can be closed only there. ``gu.AGUIAgent`` and
``gu.OpenAIModel`` keep one per loop (connections and TLS setup are reused
from one request to the next), held by a :class:`LoopClients`.

Each client is closed, on its own loop:

- when that loop shuts down: a small async generator started beside the
  client is closed by asyncio's shutdown of async generators, which
  ``asyncio.run`` (so ``Runtime.run_sync``) does before closing the loop, and
  by the loop's finalizer when the generator is dropped with the client;
- at ``close()`` (``Runtime.close()`` calls it), from the loop or from
  synchronous code;
- at interpreter exit, for a loop still open and idle (a script that ran
  ``loop.run_until_complete`` and never closed its loop).

So a script ends with no "Unclosed client session" / "unclosed transport".
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import inspect
import logging
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Generic, TypeVar

__all__ = ["LoopClients", "close_owned"]

logger = logging.getLogger("ipygenui")

C = TypeVar("C")

_CLOSE_AT_EXIT_SECONDS = 5.0
_closing: set[asyncio.Future[Any]] = set()
"""Close tasks scheduled from synchronous code (kept until done: a task only
weakly referenced by its loop could be collected before it runs)."""


async def _sentinel(client: C, close: Callable[[C], Awaitable[object]]) -> AsyncGenerator[None]:
    """Suspended at its ``yield`` until the loop shuts it down (or it is collected)."""
    try:
        yield
    finally:
        try:
            await close(client)
        except Exception:  # a failing close must not break the loop's shutdown
            logger.debug("closing %r failed", client, exc_info=True)


def _start(generator: AsyncGenerator[None]) -> None:
    """Run ``generator`` to its first ``yield`` now, on the running loop (its
    first step registers it with the loop's async-generator hooks)."""
    step = generator.asend(None)
    try:
        step.send(None)
    except StopIteration:
        return
    raise RuntimeError("the closing sentinel must not await before its yield")


class LoopClients(Generic[C]):
    """One client per event loop (``get()``), closed with its loop or at ``close()``.

    ``make`` builds a client; ``close`` is its async close (``aclose``).
    A client made with no loop running (read for its settings, say) is used
    by no request and is only dropped.
    """

    def __init__(self, make: Callable[[], C], close: Callable[[C], Awaitable[object]]) -> None:
        self._make = make
        self._close = close
        self._current: (
            tuple[asyncio.AbstractEventLoop | None, C, AsyncGenerator[None] | None] | None
        ) = None
        _open.add(self)

    def get(self) -> C:
        """The running loop's client (made on first use)."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        current = self._current
        if current is not None and (loop is None or current[0] is loop):
            return current[1]
        client = self._make()
        sentinel = None
        if loop is not None:
            sentinel = _sentinel(client, self._close)
            _start(sentinel)
        # the one replaced, if any, is closed by its own loop (its sentinel is dropped)
        self._current = (loop, client, sentinel)
        return client

    def peek(self) -> C | None:
        """The current client, if any (makes none)."""
        return None if self._current is None else self._current[1]

    async def aclose(self) -> None:
        """Close the current client (a later ``get()`` makes a new one)."""
        current = self._current
        if current is None:
            return
        loop, _, sentinel = current
        if sentinel is None or loop is not asyncio.get_running_loop():
            self.close()
            return
        self._current = None
        await sentinel.aclose()

    def close(self) -> None:
        """Close the current client from anywhere: on its loop when it runs
        (here or in another thread), by running it when it is idle."""
        self._close_current(at_exit=False)

    def _close_current(self, at_exit: bool) -> None:
        current, self._current = self._current, None
        if current is None:
            return
        loop, _, sentinel = current
        if sentinel is None or loop is None or loop.is_closed():
            return  # nothing opened, or closed with its loop
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            task = loop.create_task(_finish(sentinel))
            _closing.add(task)
            task.add_done_callback(_closing.discard)
        elif loop.is_running():  # another thread's loop
            asyncio.run_coroutine_threadsafe(_finish(sentinel), loop)
        elif running is None and not (at_exit and asyncio.all_tasks(loop)):
            # (at exit, a loop with tasks left is someone's paused loop: not ours to run)
            try:
                loop.run_until_complete(asyncio.wait_for(_finish(sentinel), _CLOSE_AT_EXIT_SECONDS))
            except Exception:
                logger.debug("closing a client on its idle loop failed", exc_info=True)
        # else: another loop runs in this thread and the client's is idle: its
        # sentinel, dropped now, is closed by that loop's finalizer when it runs again


async def _finish(sentinel: AsyncGenerator[None]) -> None:
    await sentinel.aclose()


_open: weakref.WeakSet[LoopClients[Any]] = weakref.WeakSet()


@atexit.register
def _close_at_exit() -> None:
    for clients in list(_open):
        with contextlib.suppress(Exception):
            clients._close_current(at_exit=True)


def close_owned(owner: object) -> None:
    """Close what ``owner`` (a model, an agent) opened, when it says how:
    its ``close()`` (a coroutine it returns is run) or else its ``aclose()``.
    A failure is logged, never raised: closing must close the rest too."""
    method = getattr(owner, "close", None)
    if not callable(method):
        method = getattr(owner, "aclose", None)
    if not callable(method):
        return
    try:
        result = method()
        if inspect.isawaitable(result):
            _run_soon(result)
    except Exception:
        logger.exception("closing %r failed", owner)


def _run_soon(awaitable: Awaitable[object]) -> None:
    async def wait() -> None:
        await awaitable

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(wait())
        return
    task = loop.create_task(wait())
    _closing.add(task)
    task.add_done_callback(_closing.discard)
