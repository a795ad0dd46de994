"""The run lifecycle of a runtime: start, finish, cancel.

One run at a time writes a reply of the thread shown. ``launch`` starts it at
once when an event loop runs; where none runs (a plain script) the run is
pending (``run.PendingRun``) and starts on the loop that first awaits its
``Run``, changing nothing until then. A pending run cancelled before it
starts ends as if it had started and been cancelled. A started run is a task
driving ``RunLoop.run``; every start and every cancel bumps a generation, so
the task of an older one is stale and ignores whatever it still sees.

Finishing a run stamps its end, saves it, announces ``RunEnded`` and the
phase (``waiting`` while a call waits for the user), and resolves its
``Run`` whatever a view or a save does; a complete reply then asks for
follow-up suggestions when the chat wants them (``_suggesting``). A failure
inside the loop ends the reply as an error naming it, the thread kept valid.

A run still going ``max_run_seconds`` after it started (when set) is
stopped the same way, its reply incomplete ("Stopped after N s
(max_run_seconds)...").

``cancel`` stops the model stream and the running tools now and keeps what
streamed: the reply becomes incomplete/cancelled and every unanswered call
gets a cancelled error result. It also ends a reply waiting for the user
(``end_waiting``), and does nothing when there is nothing to cancel.
``settle`` is what every new user action does first.

``run_to_end`` is ``run_sync``: one run on a private event loop, for plain
scripts, waited for with the suggestions it asked for (the loop closes
next). Where a loop runs already (a notebook cell, async code) it raises:
``await`` the Run there.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Iterable

from ..events import RunEnded, RunPhase, RunStarted
from ..messages import Complete, Incomplete, Message, RequiresAction, Running, Thread, new_id
from ..persistence.store import end_interrupted
from ._host import Host
from ._loop.ending import CANCELLED
from ._loop.run_loop import RunLoop
from ._server_requests import ServerRequests, settle_orphans
from ._suggesting import Suggesting
from .run import PendingRun, Run, loop_or_none
from .usage import model_seconds

__all__ = ["RunLifecycle"]

logger = logging.getLogger("ipygenui")


class RunLifecycle:
    """The run in progress, or the one waiting for a loop to start (``requests``:
    the tool servers' open requests, cancelled when the run that asked ends)."""

    def __init__(
        self, host: Host, loop: RunLoop, suggesting: Suggesting, requests: ServerRequests
    ) -> None:
        self._host = host
        self._events = host.events
        self._commit = host.commit
        self._loop = loop
        self._suggesting = suggesting
        self._requests = requests
        self.task: asyncio.Task[None] | None = None
        self.run: Run | None = None
        """The run in progress (None between runs)."""
        self.pending: PendingRun | None = None
        """The run waiting for a loop to start on."""
        self.message: Message | None = None
        """The reply the run in progress writes."""
        self._generation = 0
        """Bumped by every start and cancel: a task of an older generation is stale."""
        self._cancel_event = asyncio.Event()

    @property
    def busy(self) -> bool:
        """A run is in progress, or one waits for a loop to start."""
        return self.task is not None or self.pending is not None

    def joining(self) -> Run | None:
        """The run a decision joins: the one in progress, or the one about to start."""
        if self.task is not None:
            return self.run
        return self.pending.run if self.pending is not None else None

    def launch(self, message: Message, prepare: Callable[[], None] | None = None) -> Run:
        """A run on ``message``: started now when a loop runs, else when awaited.

        ``prepare`` puts the message in the thread, ready to run; a run that
        waits for a loop changes nothing until it starts (or is cancelled).
        """
        run = Run(message.id, new_id("run"))
        prepare = prepare or (lambda: None)
        loop = loop_or_none()
        if loop is None:
            self.pending = PendingRun(run, message, prepare)
            run._starter = functools.partial(self._start_pending, run)
            return run
        prepare()
        self._start(message, run, loop)
        return run

    def run_to_end(self, start: Callable[[], Run]) -> Message:
        """``start()`` a run on a private event loop and wait for its end."""
        if loop_or_none() is not None:
            raise RuntimeError(
                "run_sync() cannot run while an event loop runs in this thread (a notebook "
                "cell or async code): use `await rt.send(...)` there, "
                "`await chat.send(...)` in a notebook"
            )
        return asyncio.run(self._to_end(start))

    async def _to_end(self, start: Callable[[], Run]) -> Message:
        message = await start()
        suggesting = self._suggesting.task
        if suggesting is not None:  # the private loop closes next: let them arrive
            with contextlib.suppress(asyncio.CancelledError):
                await suggesting
        return message

    def _start_pending(self, run: Run) -> None:
        """Start a waiting run on the loop that awaits it, unless it ended meanwhile."""
        pending = self.pending
        if pending is None or pending.run is not run:
            return  # cancelled or replaced before it started: the Run has its message
        self.pending = None
        if self.task is not None:
            self.cancel()
        pending.prepare()
        self._start(pending.message, run, asyncio.get_running_loop())

    def _end_pending(self) -> None:
        """A run that never started ends as if it had started and been cancelled."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        pending.prepare()
        message = pending.message
        self._events.end(message, Incomplete(reason="cancelled", error=CANCELLED))
        message.metadata["ended_at"] = time.time()
        self._commit(message)
        self._events.set_phase("idle")
        pending.run._resolve(message)

    def _start(self, message: Message, run: Run, loop: asyncio.AbstractEventLoop) -> None:
        self._generation += 1
        generation = self._generation
        self._cancel_event = asyncio.Event()
        run._future = loop.create_future()
        self.run = run
        self.message = message
        if not isinstance(message.status, Running):
            message.status = Running()
            self._events.replace(message)
        message.metadata.pop("ended_at", None)
        self._events.emit(RunStarted(run.run_id, message))
        self.task = loop.create_task(self._drive(message, generation, run, self._cancel_event))
        seconds = self._loop.max_run_seconds
        if seconds is not None:
            loop.call_later(seconds, self._time_up, generation, seconds)

    def _time_up(self, generation: int, seconds: float) -> None:
        """``max_run_seconds`` passed: the run still going (that one, not a
        later) is stopped as Stop does, its reply saying why."""
        if generation != self._generation or self.task is None:
            return
        error = (
            f"Stopped after {seconds:g} s (max_run_seconds): the run took longer than its limit."
        )
        self._stop_run(Incomplete(reason="other", error=error))

    async def _drive(
        self, message: Message, generation: int, run: Run, cancel: asyncio.Event
    ) -> None:
        def is_current() -> bool:
            return generation == self._generation

        try:
            await self._loop.run(message, is_current, cancel)
        except asyncio.CancelledError:
            if is_current():  # cancelled from outside, not by cancel()
                self._end_safely(message, Incomplete(reason="cancelled", error=CANCELLED))
                self._finish(message, run)
            raise
        except Exception as exc:  # a bug in the loop: keep the thread valid and say what broke
            if not is_current():
                return
            logger.exception("run failed")
            error = f"{type(exc).__name__}: {exc}"
            self._end_safely(message, Incomplete(reason="error", error=error))
        if is_current():
            self._finish(message, run)

    def _end_safely(self, message: Message, status: Incomplete) -> None:
        try:
            self._events.end(message, status)
        except Exception:  # the run must still end: at least its status
            logger.exception("ending the run failed")
            message.status = status

    def _finish(self, message: Message, run: Run) -> None:
        """End the run; its future resolves whatever a view or a save does."""
        self.task = None
        self.run = None
        self.message = None
        self._requests.cancel_all()  # the calls that asked have ended
        try:
            message.metadata["ended_at"] = time.time()
            self._stamp_model_time(message)
            self._commit(message)
            self._events.emit(RunEnded(run.run_id, message))
            phase: RunPhase = "waiting" if isinstance(message.status, RequiresAction) else "idle"
            self._events.set_phase(phase)
        except Exception:  # a view or listener failing must not leave the run unresolved
            logger.exception("finishing the run failed")
        finally:
            run._resolve(message)
        if isinstance(message.status, Complete):
            self._suggesting.start()

    @staticmethod
    def _stamp_model_time(message: Message) -> None:
        """The model's share of the reply so far, for the footer (``usage.model_seconds``)."""
        seconds = model_seconds(message)
        if seconds is None:
            message.metadata.pop("model_seconds", None)
        else:
            message.metadata["model_seconds"] = round(seconds, 3)

    def cancel(self) -> None:
        """``Runtime.cancel`` (see the module docstring)."""
        self._suggesting.stop()
        self._end_pending()
        if self.task is None or self.run is None or self.message is None:
            if self.end_waiting(CANCELLED):
                self._events.set_phase("idle")
            return
        self._stop_run(Incomplete(reason="cancelled", error=CANCELLED))

    def _stop_run(self, status: Incomplete) -> None:
        """Stop the run in progress now and end its reply as ``status``."""
        task, run, message = self.task, self.run, self.message
        assert task is not None and run is not None and message is not None
        self._loop.stop(message)  # every streamed character kept, stopped threads answered
        self._generation += 1  # the old task now ignores everything it still sees
        self._cancel_event.set()
        task.cancel()
        self._events.end(message, status)
        self._finish(message, run)

    def stop(self) -> None:
        """Stop the suggestions and any run, in progress or about to start."""
        self._suggesting.stop()
        if self.busy:
            self.cancel()

    def settle(self, reason: str) -> None:
        """Before a new user action: ``stop``, and end a reply waiting for the
        user, its calls answered with ``reason``, so the history stays valid
        whatever comes next."""
        self.stop()
        self.end_waiting(reason)

    def recover(self, threads: Iterable[Thread]) -> None:
        """A thread saved mid-run (the kernel died): end that run (``persistence.store``)."""
        for thread in threads:
            end_interrupted(thread, self._events.end)
            settle_orphans(thread)  # a server's request nobody waits for now

    def waiting_phase(self) -> None:
        """Between runs: the phase of the thread shown (``waiting`` while its
        last reply waits for the user)."""
        last = self._host.thread().last_assistant
        waiting = last is not None and isinstance(last.status, RequiresAction)
        self._events.set_phase("waiting" if waiting else "idle")

    def end_waiting(self, error: str) -> bool:
        """End a reply that waits for the user as cancelled with ``error``
        (its open calls answered so), when there is one."""
        last = self._host.thread().last_assistant
        if last is None or not isinstance(last.status, RequiresAction):
            return False
        self._events.end(last, Incomplete(reason="cancelled", error=error))
        self._commit(last)
        return True
