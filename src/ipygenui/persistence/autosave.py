"""Saving a runtime's threads to ``persist=``: the runtime's history adapter.

The runtime calls ``autosave`` at its save points (after every step, result
and decision) and knows nothing of files: this part finds the thread's file
(``persistence.store.ThreadStore``), writes it, and reports a failure as a
``SaveStatusChanged`` event and ``error``, never raised, so a run goes on and
the next save tries again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from ..events import SaveStatusChanged, ThreadEvent
from ..messages import Thread
from . import PersistenceConflictError, save_thread
from .store import ThreadStore

__all__ = ["Persisting"]

logger = logging.getLogger("ipygenui")


class Persisting:
    """Autosave of the thread shown, and the status of the last save."""

    def __init__(
        self, store: ThreadStore, shown: Callable[[], Thread], emit: Callable[[ThreadEvent], None]
    ) -> None:
        self._store = store
        self._shown = shown
        self._emit = emit
        self.error: str | None = None
        """Why the last save failed (naming the file), or None."""

    def autosave(self) -> None:
        """Save the thread shown to ``persist``; a failure of any kind is
        reported, never raised."""
        thread = self._shown()
        handle = self._store.file_of(thread)
        if handle is None:
            return
        try:
            handle.save(thread)
        except PersistenceConflictError as exc:
            self._set_error(f"Not saved: {exc}")
        except Exception as exc:
            self._set_error(f"Not saved to {self._store.persist}: {type(exc).__name__}: {exc}", exc)
        else:
            self._set_error(None)

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
