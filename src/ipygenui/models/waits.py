"""Waiting on a server out loud: retry delays, countdowns and a silence watchdog.

A model adapter that waits (a rate limit's ``Retry-After``, a server that has
not said a byte for a while) tells the user through ``ModelRequest.status``,
so the chat header says "Rate limited by ...: retrying in 118 s" instead of
"Thinking…" for minutes. Every wait here ends at once when the request's
cancel event is set (and, like any await, when its task is cancelled).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from .._internal.timed_wait import wait_set

T = TypeVar("T")

StatusCallback = Callable[[str], None]

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Besides every 5xx: timeout, conflict (a lock), rate limit."""

BACKOFF_START = 0.5
BACKOFF_MAX = 8.0
"""Waits between retries when the server gives no ``Retry-After``: 0.5, 1, 2, ... 8 s."""


def retryable(status_code: int) -> bool:
    return status_code in RETRYABLE_STATUSES or status_code >= 500


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asks us to wait (``retry-after-ms``, ``retry-after`` in
    seconds or as an HTTP date), or None when it does not say."""
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        if math.isnan(seconds):
            continue
        return max(0.0, seconds)
    value = headers.get("retry-after")
    if value:
        with contextlib.suppress(TypeError, ValueError, OverflowError, IndexError):
            parsed = email.utils.parsedate_tz(value)
            if parsed is not None:
                return max(0.0, email.utils.mktime_tz(parsed) - time.time())
    return None


def backoff(retry: int) -> float:
    """The wait before retry number ``retry`` (1, 2, ...) when the server gives none."""
    return min(BACKOFF_START * 2.0 ** (retry - 1), BACKOFF_MAX)


def seconds_text(seconds: float) -> str:
    """Whole seconds (rounded up) from about 1 s; tenths below (fast retries)."""
    if not math.isfinite(seconds):
        return "forever"
    return f"{seconds:.1f} s" if seconds < 0.95 else f"{math.ceil(seconds - 0.05):d} s"


async def countdown(
    seconds: float, cancel: asyncio.Event, say: Callable[[float], None], tick: float = 1.0
) -> bool:
    """Wait ``seconds``, calling ``say(remaining)`` at the start and every ``tick``;
    False when ``cancel`` was set first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            return not cancel.is_set()
        say(remaining)
        if await wait_set(cancel, min(tick, remaining)):
            return False


async def unless_cancelled(awaitable: Awaitable[T], cancel: asyncio.Event) -> T | None:
    """``await awaitable``, or None as soon as ``cancel`` is set (the awaitable is
    then cancelled: an HTTP request closes its connection)."""
    if cancel.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        return None
    work = asyncio.ensure_future(awaitable)
    stop = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not work.done():
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await work
    if work.cancelled() or not work.done():
        return None
    return work.result()


class SilenceWatch:
    """Says "No answer from <where> for N s" while no byte has come for
    ``after`` seconds, every ``tick``; ``heard()`` marks progress (and clears
    the notice if one was shown). Use as an async context manager; it falls
    silent once ``cancel`` is set."""

    def __init__(
        self, where: str, after: float, say: StatusCallback, cancel: asyncio.Event
    ) -> None:
        self.where = where
        self.after = after
        self.say = say
        self.cancel = cancel
        self.tick = min(1.0, after)
        self._last = 0.0
        self._shown = False
        self._task: asyncio.Task[None] | None = None
        self._clock = time.monotonic  # the loop's clock once entered

    def heard(self) -> None:
        """Called for every chunk read: keep it cheap."""
        self._last = self._clock()
        if self._shown:
            self._shown = False
            self.say("")

    async def _watch(self) -> None:
        while not self.cancel.is_set():  # a stopped request has nothing more to say
            quiet = self._clock() - self._last
            if quiet >= self.after:
                self._shown = True
                self.say(f"No answer from {self.where} for {seconds_text(quiet)}")
                await asyncio.sleep(self.tick)
            else:
                await asyncio.sleep(self.after - quiet)

    async def __aenter__(self) -> SilenceWatch:
        self._clock = asyncio.get_running_loop().time
        self._last = self._clock()
        self._task = asyncio.ensure_future(self._watch())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._shown:
            self._shown = False
            self.say("")
