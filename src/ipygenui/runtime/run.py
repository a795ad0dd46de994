"""A handle on one run (``Run``), and the run that waits for an event loop.

``Runtime.send`` and the decisions return a ``Run``: awaiting it gives the
reply when the run ends. Where no event loop runs (a plain script) the run
starts on the loop that first awaits it (``PendingRun``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any

from ..messages import Message

__all__ = ["PendingRun", "Run", "loop_or_none"]


class Run(Coroutine[Any, Any, Message]):
    """A handle on one run: ``await run`` gives the assistant message when the
    run ends (complete, incomplete, or requires-action).

    With an event loop running (a notebook cell, async code) the run starts at
    once and runs in the background. With none (a plain script) it starts on
    the loop that first awaits it, so ``asyncio.run(rt.send("hi"))`` works: a
    Run is a coroutine for ``asyncio.run`` and tasks, and can be awaited again.
    """

    def __init__(self, message_id: str, run_id: str) -> None:
        self.message_id = message_id
        self.run_id = run_id
        self._future: asyncio.Future[Message] | None = None
        """Created on the loop the run starts on, when it starts."""
        self._result: Message | None = None
        self._starter: Callable[[], None] | None = None
        """Set while the run waits for a loop: starts it on the running one."""
        self._driver: Coroutine[Any, Any, Message] | None = None

    def done(self) -> bool:
        return self._result is not None

    def result(self) -> Message:
        """The final message; raises ``asyncio.InvalidStateError`` until the run ends."""
        if self._result is None:
            raise asyncio.InvalidStateError(f"{self!r} has not ended")
        return self._result

    def _resolve(self, message: Message) -> None:
        self._result = message
        if self._future is not None and not self._future.done():
            self._future.set_result(message)

    async def _wait(self) -> Message:
        starter, self._starter = self._starter, None
        if starter is not None:
            starter()
        if self._result is not None:  # also when the loop it ran on is closed by now
            return self._result
        if self._future is None:
            raise RuntimeError(f"{self!r} was never started")
        # shield: a caller that stops waiting must not cancel the run itself
        return await asyncio.shield(self._future)

    def __await__(self) -> Generator[Any, None, Message]:
        return self._wait().__await__()

    # The coroutine protocol, so asyncio.run(run) and create_task(run) accept it.

    def send(self, value: Any) -> Any:
        if self._driver is None:
            self._driver = self._wait()
        try:
            return self._driver.send(value)
        except BaseException:
            self._driver = None  # ended: a later drive starts afresh
            raise

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        if self._driver is None:
            self._driver = self._wait()
        try:
            return self._driver.throw(typ if val is None else val)
        except BaseException:
            self._driver = None
            raise

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    def __repr__(self) -> str:
        state = "done" if self.done() else "pending" if self._starter else "running"
        return f"<Run {self.run_id} message={self.message_id} {state}>"


@dataclass
class PendingRun:
    """A run created with no event loop running: it starts when awaited."""

    run: Run
    message: Message
    prepare: Callable[[], None]
    """Puts ``message`` in the thread, ready to run (done at start or cancel)."""


def loop_or_none() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
