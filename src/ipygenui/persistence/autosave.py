"""Saving a runtime's threads to ``persist=``: the runtime's history adapter.

The runtime calls ``autosave`` at its save points (after every step, result
and decision) and knows nothing of files: this part finds the thread's file
(``persistence.store.ThreadStore``), writes it, and reports a failure as a
``SaveStatusChanged`` event and ``error``, never raised, so a run goes on and
the next save tries again.

Saves during a run are coalesced: on an event loop, a save asked for within
``SAVE_INTERVAL`` of the last one waits for the rest of it, and every save
asked for meanwhile is that one write (a server's flood of request cards is
a few writes, not one each). That write snapshots the thread on the loop
(``ThreadFile.prepare``) and encodes and writes it in a worker thread, the
write atomic as ever. Between runs (the run's end, a decision, an edit) a
save is written at once, a pending one first; so is ``flush``
(``Runtime.close``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from .._internal.worker_threads import call_in_thread, can_start_threads
from ..events import SaveStatusChanged, ThreadEvent
from ..messages import Thread
from . import PersistenceConflictError, save_thread
from .store import ThreadStore

__all__ = ["SAVE_INTERVAL", "Persisting"]

logger = logging.getLogger("ipygenui")

SAVE_INTERVAL = 0.25
"""Seconds after a save in which more saves are coalesced into one write."""


class Persisting:
    """Autosave of the thread shown, and the status of the last save."""

    def __init__(
        self,
        store: ThreadStore,
        shown: Callable[[], Thread],
        emit: Callable[[ThreadEvent], None],
        running: Callable[[], bool] = lambda: False,
    ) -> None:
        self._store = store
        self._running = running
        """Whether a run is in progress (its saves are coalesced)."""
        self._shown = shown
        self._emit = emit
        self.error: str | None = None
        """Why the last save failed (naming the file), or None."""
        self._last_save = float("-inf")
        """When (the loop's clock) the last save was written or started."""
        self._pending: asyncio.Task[None] | None = None
        """The coalesced write waiting or running, if any."""
        self._again = False
        """A save was asked for while the pending write ran: write once more."""
        self._target: Thread | None = None
        """The thread the pending write saves (the one shown when it was asked for)."""

    def autosave(self) -> None:
        """Save the thread shown to ``persist`` (now, or coalesced with the
        saves around it); a failure of any kind is reported, never raised."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or not can_start_threads() or not self._running():
            if self._flush_pending() is not self._shown():
                self._save_now()
            return
        if self._pending is not None and self._target is not self._shown():
            self.flush()  # another thread is shown now: the pending one is written first
        if self._pending is not None:
            self._again = True
            return
        wait = self._last_save + SAVE_INTERVAL - loop.time()
        if wait <= 0:
            self._save_now()
            self._last_save = loop.time()
            return
        self._target = self._shown()
        self._pending = loop.create_task(self._coalesced(wait))

    def flush(self) -> None:
        """Write a coalesced save still pending now (``Runtime.close``)."""
        self._flush_pending()

    def close(self) -> None:
        """Write a pending save, then fold each thread's journal into its file,
        so every thread saved is one JSON file again (``Runtime.close``)."""
        self._flush_pending()
        for thread, handle in self._store.saved():
            try:
                handle.compact(thread)
            except Exception as exc:
                self._failed(exc)

    def _flush_pending(self) -> Thread | None:
        """Write the pending save now; the thread it saved (None: none pending)."""
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        pending.cancel()  # a write already in its thread goes on; an older one is dropped
        self._again = False
        target, self._target = self._target, None
        self._save_now(target)
        return target

    async def _coalesced(self, wait: float) -> None:
        loop = asyncio.get_running_loop()
        try:
            await asyncio.sleep(wait)
            while True:
                self._again = False
                self._last_save = loop.time()
                await self._save_off_loop()
                if not self._again:
                    break
                await asyncio.sleep(SAVE_INTERVAL)
        finally:
            if self._pending is asyncio.current_task():
                self._pending = None

    async def _save_off_loop(self) -> None:
        thread = self._target or self._shown()
        handle = self._store.file_of(thread)
        if handle is None:
            return
        try:
            prepared = handle.prepare(thread)  # on the loop: the thread as it is now
            await call_in_thread(handle.write, prepared)  # encoded and written off it
        except Exception as exc:
            self._failed(exc)
        else:
            self._set_error(None)

    def _save_now(self, thread: Thread | None = None) -> None:
        thread = thread if thread is not None else self._shown()
        handle = self._store.file_of(thread)
        if handle is None:
            return
        try:
            handle.save(thread)
        except Exception as exc:
            self._failed(exc)
        else:
            self._set_error(None)

    def _failed(self, exc: Exception) -> None:
        if isinstance(exc, PersistenceConflictError):
            self._set_error(f"Not saved: {exc}")
        else:
            self._set_error(f"Not saved to {self._store.persist}: {type(exc).__name__}: {exc}", exc)

    def save_as(self, path: str | os.PathLike[str]) -> None:
        """Write the thread shown to ``path``; to its ``persist`` file this is an
        autosave that raises (``PersistenceConflictError``)."""
        thread = self._shown()
        handle = self._store.file_of(thread)
        if handle is not None and handle.same_path(path):
            handle.save(thread)
            self._set_error(None)
        else:
            save_thread(thread, path)

    def save_thread(self, thread: Thread) -> None:
        """Save ``thread``, shown or not (a thread renamed in the list)."""
        if thread is self._shown():
            self.autosave()
            return
        handle = self._store.file_of(thread)
        if handle is not None:
            try:
                handle.save(thread)
            except Exception as exc:
                logger.warning("Not saved to %s: %s", handle.path, exc)

    def _set_error(self, error: str | None, exc: BaseException | None = None) -> None:
        """Record and announce a save failure (logged once while it lasts) or its end."""
        if error == self.error:
            return
        if error is not None:
            logger.warning("%s", error, exc_info=exc)
        self.error = error
        self._emit(SaveStatusChanged(error))
