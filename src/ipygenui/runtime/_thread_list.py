"""The thread list of a runtime: many threads, one shown (``new_thread``,
``switch_thread``, ``rename_thread``, ``threads``).

As assistant-ui splits its thread-list runtime from the thread runtime, the
runtime drives one thread and this part keeps the others: it makes, finds and
renames threads (in ``persistence.store.ThreadStore``, with ``persist=`` a folder one
file each) and announces the list (``ThreadsChanged``). Showing a thread is
the runtime's (a run streaming in the old one is cancelled): it is handed in
as ``show``.
"""

from __future__ import annotations

from collections.abc import Callable

from .._internal.sanitize import clean_text
from ..events import ThreadsChanged, ThreadSummary
from ..messages import Thread
from ..persistence.autosave import Persisting
from ..persistence.store import ThreadStore
from ._host import Host

__all__ = ["ThreadList"]


class ThreadList:
    """The threads of one runtime and which one is shown."""

    def __init__(
        self,
        store: ThreadStore,
        host: Host,
        show: Callable[[Thread], None],
        persisting: Persisting,
    ) -> None:
        self._store = store
        self._shown = host.thread
        self._emit = host.events.emit
        self._show = show
        self._persisting = persisting

    def summaries(self) -> list[ThreadSummary]:
        return list(self._store.summaries())

    def new_thread(self) -> str:
        if self._store.file is not None:
            raise ValueError(
                f"this chat saves one thread to {self._store.file}: give persist= a folder "
                "to keep several threads"
            )
        thread = Thread()
        self._store.add(thread)
        self._show(thread)
        return thread.id

    def switch_thread(self, thread_id: str) -> None:
        thread = self._store.get(thread_id)
        if thread is not self._shown():
            self._show(thread)

    def rename_thread(self, thread_id: str, title: str | None) -> None:
        thread = self._store.get(thread_id)
        if title is not None and not isinstance(title, str):
            raise TypeError(f"a title is a str or None, got {type(title).__name__}")
        thread.title = " ".join(clean_text(title).split()) or None if title else None
        self.changed()
        self._persisting.save_thread(thread)

    def changed(self) -> None:
        """Announce the list: a thread's length or title changed, or another is shown."""
        self._emit(ThreadsChanged(self._store.summaries(), self._shown().id))
