"""HTTP clients bound to an event loop, closed before that loop closes.

An async HTTP client (httpx, aiohttp) belongs to the loop it was made on:
its connections can be closed only there. ``gu.AGUIAgent`` and
``gu.OpenAIModel`` keep one per loop (connections and TLS setup are reused
from one request to the next), held by a :class:`LoopClients`.

Each client is closed, on its own loop:

- when that loop shuts down: a small async generator started beside the
  client is closed by asyncio's shutdown of async generators, which
  ``asyncio.run`` (so ``Runtime.run_sync``) does before closing the loop;
- at ``close()`` (``Runtime.close()`` calls it), from the loop or from
  synchronous code;
- when its owner (the model, the agent) is collected: scheduled on its loop;
- at interpreter exit, for a loop still open and idle (a script that ran
  ``loop.run_until_complete`` and never closed its loop).

The open clients are held from this module, not only by their owner: an
owner collected as part of a reference cycle would otherwise take its open
sockets into the same collection, which reports each one "unclosed" before
any close could run. So a script ends with no "Unclosed client session" /
"unclosed transport".
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
_Loop = asyncio.AbstractEventLoop

_CLOSE_AT_EXIT_SECONDS = 5.0
_closing: set[asyncio.Future[Any]] = set()
"""Close tasks scheduled from synchronous code (kept until done: a task only
weakly referenced by its loop could be collected before it runs)."""


class _Closer(Generic[C]):
    """One loop's client and the generator that closes it when the loop shuts down."""

    def __init__(
        self,
        loop: _Loop,
        client: C,
        close: Callable[[C], Awaitable[object]],
        table: dict[_Loop, _Closer[C]],
    ) -> None:
        self.loop = loop
        self.client = client
        self._table = table
        self._generator = self._until_shutdown(close)
        _alive.add(self)
        # run it to its yield now, on the running loop: its first step registers
        # it with the loop's async-generator hooks (shutdown_asyncgens closes it)
        step = self._generator.asend(None)
        try:
            step.send(None)
        except StopIteration:
            return
        raise RuntimeError("the closing generator must not await before its yield")

    async def _until_shutdown(
        self, close: Callable[[C], Awaitable[object]]
    ) -> AsyncGenerator[None]:
        try:
            yield
        finally:
            _alive.discard(self)
            if self._table.get(self.loop) is self:
                del self._table[self.loop]
            try:
                await close(self.client)
            except Exception:  # a failing close must not break the loop's shutdown
                logger.debug("closing %r failed", self.client, exc_info=True)

    async def _finish(self) -> None:
        await self._generator.aclose()

    def close_soon(self, run_idle_loop: bool = False, collected: bool = False) -> None:
        """Close the client on its loop: now if it is this thread's running one,
        when it runs (another thread's, or an idle one), or by running an idle
        loop until it is closed when ``run_idle_loop``. ``collected``: called
        while its owner is collected, so only hand the loop a callback."""
        loop = self.loop
        _alive.discard(self)
        if loop.is_closed():
            return  # closed without shutting its generators down: nothing can run there
        try:
            running: _Loop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if collected:
            loop.call_soon_threadsafe(self._start_closing)
        elif running is loop:
            self._start_closing()
        elif run_idle_loop and running is None and not loop.is_running():
            try:
                loop.run_until_complete(asyncio.wait_for(self._finish(), _CLOSE_AT_EXIT_SECONDS))
            except Exception:
                logger.debug("closing a client on its idle loop failed", exc_info=True)
        else:  # another thread's loop, or one that runs again later
            loop.call_soon_threadsafe(self._start_closing)

    def _start_closing(self) -> None:
        task = self.loop.create_task(self._finish())
        _closing.add(task)
        task.add_done_callback(_closing.discard)


_alive: set[_Closer[Any]] = set()
"""Every open client's closer (see the module's docstring)."""


def _close_all(table: dict[_Loop, _Closer[Any]], collected: bool) -> None:
    closers = list(table.values())
    table.clear()
    for closer in closers:
        closer.close_soon(run_idle_loop=not collected, collected=collected)


class LoopClients(Generic[C]):
    """One client per event loop (``get()``), closed with its loop or at ``close()``.

    ``make`` builds a client; ``close`` is its async close (``aclose``).
    Each loop keeps its own client until it closes, so runs on two loops at
    once (the notebook's and a thread's) never close each other's. A client
    made with no loop running (read for its settings, say) is used by no
    request and is only dropped.
    """

    def __init__(self, make: Callable[[], C], close: Callable[[C], Awaitable[object]]) -> None:
        self._make = make
        self._close = close
        self._closers: dict[_Loop, _Closer[C]] = {}
        self._loopless: C | None = None
        collected = weakref.finalize(self, _close_all, self._closers, True)
        collected.atexit = False  # exit is _close_at_exit's, which may run idle loops
        _open.add(self)

    def get(self) -> C:
        """The running loop's client (made on first use)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: any client tells the settings
            if self._closers:
                return next(iter(self._closers.values())).client
            if self._loopless is None:
                self._loopless = self._make()
            return self._loopless
        closer = self._closers.get(loop)
        if closer is None:
            for gone in [other for other in self._closers if other.is_closed()]:
                _alive.discard(self._closers.pop(gone))  # its loop closed without a shutdown
            closer = self._closers[loop] = _Closer(loop, self._make(), self._close, self._closers)
        return closer.client

    def peek(self) -> C | None:
        """The running loop's client, if it has one (makes none)."""
        closer = self._closers.get(asyncio.get_running_loop())
        return None if closer is None else closer.client

    async def aclose(self) -> None:
        """Close the clients (a later ``get()`` makes a new one): the running
        loop's now, the others' on their loops."""
        closer = self._closers.pop(asyncio.get_running_loop(), None)
        self.close()
        if closer is not None:
            _alive.discard(closer)
            await closer._finish()

    def close(self) -> None:
        """Close the clients from anywhere: each on its loop when that runs (here
        or in another thread), by running it when it is idle."""
        _close_all(self._closers, False)


_open: weakref.WeakSet[LoopClients[Any]] = weakref.WeakSet()


@atexit.register
def _close_at_exit() -> None:
    for clients in list(_open):
        with contextlib.suppress(Exception):
            for closer in list(clients._closers.values()):
                # a loop with tasks left is someone's paused loop: not ours to run
                idle = not asyncio.all_tasks(closer.loop) if not closer.loop.is_closed() else False
                closer.close_soon(run_idle_loop=idle)
            clients._closers.clear()


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
