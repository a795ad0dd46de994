"""Several threads in one chat, and where each is saved.

A runtime shows one thread at a time and keeps the others here. With
``persist=`` a file, the chat keeps one thread in it (as before); with
``persist=`` a folder (an existing directory, or a path ending in ``/``) every
thread is saved there, one ``<thread id>.json`` file each, under the same
single-writer rules as a file (``persistence.ThreadFile``): opening the folder
claims every thread file in it, and a chat that opened it later takes them
over. Opening a folder shows the thread saved most recently, or a new one; a
file in it that cannot be read, or a second file of one thread, is skipped
with a warning naming it (the others open).
A thread saved mid-run is ended as interrupted when read (``end_interrupted``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._internal.per_message import PerMessage
from ..errors import UnknownThreadError
from ..events import ThreadSummary
from ..messages import Complete, Incomplete, Message, RequiresAction, Running, Thread
from . import ThreadFile, ThreadFileError, load_thread, read_regular, write_atomic
from ._journal import dumps, journal_path

__all__ = [
    "NEW_THREAD_TITLE",
    "ThreadStore",
    "UnknownThreadError",
    "end_interrupted",
    "is_folder",
    "load_thread_file",
    "summary",
    "title_of",
]

logger = logging.getLogger("ipygenui")

NEW_THREAD_TITLE = "New chat"
TITLE_CHARS = 60
"""A title taken from the first user message is cut to this many characters."""
INTERRUPTED = "Interrupted before it finished."
"""The error of a reply saved mid-run (the kernel died), ended when its thread is read."""


_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


def is_folder(persist: str | os.PathLike[str]) -> bool:
    """Whether ``persist`` names a folder of threads rather than one thread file."""
    text = os.fspath(persist)
    return Path(text).is_dir() or text.endswith(("/", os.sep))


def load_thread_file(path: str | os.PathLike[str]) -> Thread:
    """The one thread saved at ``path`` (``Runtime.load``): a folder of threads
    is opened with ``persist=`` instead, as ``ThreadFileError`` says."""
    if is_folder(path):
        raise ThreadFileError(
            f"{path} is a folder of threads: open them with persist={os.fspath(path)!r}"
        )
    return load_thread(path)


def title_of(thread: Thread) -> str:
    """The user's title, else the first user message (one line, shortened),
    else ``NEW_THREAD_TITLE``."""
    if thread.title and thread.title.strip():
        return thread.title.strip()
    for message in thread.messages:
        if message.role == "user":
            line = " ".join(message.text.split())
            if line:
                return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
    return NEW_THREAD_TITLE


def _created_at(message: Message) -> float:
    return message.created_at


class Latest:
    """The latest time of a thread's messages so far, kept as a running
    maximum per message (each read once: the list is announced at every turn)."""

    def __init__(self) -> None:
        self._times = PerMessage(_created_at)
        self._latest: list[float] = []

    def of(self, messages: list[Message]) -> float:
        times = self._times.values(messages)
        latest = self._latest
        del latest[self._times.kept :]
        top = latest[-1] if latest else 0.0
        for stamp in times[len(latest) :]:
            top = max(top, stamp)
            latest.append(top)
        return top


def summary(thread: Thread, created: Latest | None = None) -> ThreadSummary:
    """The thread's line in the list; ``created`` keeps its messages' times."""
    if created is not None:
        updated = created.of(thread.messages)
    else:
        updated = max(map(_created_at, thread.messages), default=0.0)
    return ThreadSummary(thread.id, title_of(thread), len(thread.messages), updated)


class ThreadStore:
    """The threads of one runtime (those read from a folder oldest first, then
    those made since), and
    their files when persisted (``folder`` set: one file per thread; ``file``
    set: the one thread there; neither: kept in memory only)."""

    def __init__(self, persist: str | os.PathLike[str] | None) -> None:
        self.folder: Path | None = None
        self.file: Path | None = None
        if persist is not None:
            if is_folder(persist):
                self.folder = Path(persist)
            else:
                self.file = Path(persist)
        self.threads: dict[str, Thread] = {}
        """The threads read (or made): a folder's others are read when first shown."""
        self._files: dict[str, ThreadFile] = {}
        self._created: dict[str, Latest] = {}
        self._unread: dict[str, ThreadSummary] = {}
        """A folder's threads not read yet, as its index lists them (``_index``)."""
        self._order: dict[str, None] = {}
        """Every thread's id, in the list's order."""
        self.on_read: Callable[[Thread], None] = lambda thread: None
        """Called with a thread read from the folder after the folder opened
        (the runtime distrusts its approvals and ends its interrupted run)."""

    @property
    def persist(self) -> Path | None:
        return self.folder or self.file

    def open(self, thread: Thread | None) -> Thread:
        """Claim the persisted file(s) and read the saved threads; ``thread``
        (given to the runtime) joins them. Returns the thread to show: ``thread``,
        else the one saved last, else a new one. The one ``persist=`` file that
        cannot be read raises ``ThreadFileError`` naming it (a folder skips it)."""
        shown = thread
        if self.file is not None:
            handle = ThreadFile(self.file, journal=True)
            loaded = handle.open(load=thread is None)
            shown = thread if thread is not None else loaded
            shown = shown if shown is not None else Thread()
            self._files[shown.id] = handle
        elif self.folder is not None:
            saved = self._open_folder(self.folder)
            if shown is None and saved:  # the thread saved last
                last = max(saved, key=lambda s: s.updated_at).id
                shown = self.threads.get(last) or self._read(last)
        shown = shown if shown is not None else Thread()
        self.add(shown)
        return shown

    def _open_folder(self, folder: Path) -> list[ThreadSummary]:
        """Claim every thread file in ``folder`` and list its threads (oldest
        first): one the folder's index lists as it is now is not read until
        it is shown; one that cannot be read (corrupt, a link, too large) or
        holds a thread another file holds is skipped with a warning naming
        it, so it never stops the others opening."""
        folder.mkdir(parents=True, exist_ok=True)
        entries = list(os.scandir(folder))  # listed once: each file's temps are among them
        temps = [entry for entry in entries if entry.name.endswith(".tmp")]
        names = sorted(e.name for e in entries if e.name.endswith(".json"))
        index = read_index(folder)
        listed: dict[str, ThreadSummary] = {}
        fresh: dict[str, Any] = {}
        for path in (folder / name for name in names if not name.startswith(".")):
            handle = ThreadFile(path, journal=True)
            known = index.get(path.name)
            found: ThreadSummary | None
            loaded: Thread | None
            try:
                stamps = file_stamps(path)
                if known is not None and known[0] == stamps:
                    handle.open(load=False, temps=temps)
                    found, loaded = known[1], None
                else:
                    loaded = handle.open(load=True, temps=temps)
                    found = summary(loaded) if loaded is not None else None
                    stamps = file_stamps(path)
            except ThreadFileError as exc:
                logger.warning("%s: skipped, the other threads open: %s", path, exc)
                continue
            if found is None:
                continue
            other = self._files.get(found.id)
            if other is not None:
                if path.name == file_name(found.id):  # its own file wins over a copy
                    other, handle = handle, other
                    self._files[found.id] = other
                    self._keep(found, loaded, listed)
                logger.warning(
                    "%s: skipped: thread %r is also saved in %s; keep one of the two files",
                    handle.path,
                    found.id,
                    other.path,
                )
                continue
            self._files[found.id] = handle
            self._keep(found, loaded, listed)
            fresh[path.name] = [stamps, [found.id, found.title, found.messages, found.updated_at]]
        write_index(folder, fresh)
        # oldest first, so a thread made later comes after them in the list
        ordered = sorted(listed.values(), key=lambda s: s.updated_at)
        self._order = {s.id: None for s in ordered}
        self.threads = {i: self.threads[i] for i in self._order if i in self.threads}
        return ordered

    def _keep(
        self, found: ThreadSummary, loaded: Thread | None, listed: dict[str, ThreadSummary]
    ) -> None:
        listed[found.id] = found
        if loaded is not None:
            self.threads[found.id] = loaded
            self._unread.pop(found.id, None)
        else:
            self._unread[found.id] = found
            self.threads.pop(found.id, None)

    def _read(self, thread_id: str) -> Thread | None:
        """Read a thread of the folder not read yet (None: it no longer loads)."""
        handle = self._files.get(thread_id)
        if thread_id not in self._unread or handle is None:
            return None
        try:
            thread = load_thread(handle.path)
        except ThreadFileError as exc:
            logger.warning("%s: not read: %s", handle.path, exc)
            return None
        if thread.id != thread_id:  # changed on disk since it was listed: show what it holds
            logger.warning(
                "%s: now holds thread %r, listed as %r", handle.path, thread.id, thread_id
            )
            thread.id = thread_id
        del self._unread[thread_id]
        self.threads[thread_id] = thread
        self.on_read(thread)
        return thread

    def add(self, thread: Thread) -> None:
        self.threads[thread.id] = thread
        self._unread.pop(thread.id, None)
        self._order[thread.id] = None

    def get(self, thread_id: str) -> Thread:
        thread = self.threads.get(thread_id) if isinstance(thread_id, str) else None
        if thread is None and isinstance(thread_id, str):
            thread = self._read(thread_id)
        if thread is None:
            known = ", ".join(repr(t) for t in self._order) or "none"
            raise UnknownThreadError(f"no thread {thread_id!r} in this chat (its threads: {known})")
        return thread

    def file_of(self, thread: Thread) -> ThreadFile | None:
        """The file ``thread`` is saved to (made, and claimed, on first use)."""
        handle = self._files.get(thread.id)
        if handle is not None or self.folder is None:
            return handle  # a single file holds its first thread only
        handle = ThreadFile(self.folder / file_name(thread.id), journal=True)
        handle.open(load=False)
        self._files[thread.id] = handle
        return handle

    def saved(self) -> list[tuple[Thread, ThreadFile]]:
        """The threads read or made, each with its file (a thread not read
        was not saved by this chat)."""
        files = self._files
        return [(t, files[i]) for i, t in self.threads.items() if i in files]

    def summaries(self) -> tuple[ThreadSummary, ...]:
        created = self._created
        for gone in created.keys() - self.threads.keys():
            del created[gone]
        threads, unread = self.threads, self._unread
        return tuple(
            summary(threads[i], created.setdefault(i, Latest())) if i in threads else unread[i]
            for i in self._order
            if i in threads or i in unread
        )


INDEX = ".threads.index"
"""A folder's list of its threads (each file's stamps and summary): a thread
whose file is as listed is not read until it is shown."""


def file_stamps(path: Path) -> list[Any]:
    """The thread file's and its journal's identity (a changed file: another list)."""
    out: list[Any] = []
    for each in (path, journal_path(path)):
        try:
            st = os.lstat(each)
        except FileNotFoundError:
            out.append(None)
            continue
        out.append([st.st_ino, st.st_size, st.st_mtime_ns])
    return out


def read_index(folder: Path) -> dict[str, tuple[list[Any], ThreadSummary]]:
    """The folder's index; one that cannot be read is no index (every file is read)."""
    path = folder / INDEX
    if not os.path.lexists(path):
        return {}
    try:
        data = json.loads(read_regular(path, "index"))
        files = data["files"] if data.get("version") == 1 else {}
        index = {}
        for name, (stamps, (thread_id, title, count, updated)) in files.items():
            if not (isinstance(thread_id, str) and isinstance(title, str)):
                continue
            if isinstance(count, bool) or not isinstance(count, int):
                continue
            if isinstance(updated, bool) or not isinstance(updated, int | float):
                continue
            index[name] = (stamps, ThreadSummary(thread_id, title, count, float(updated)))
        return index
    except (ThreadFileError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        logger.info("%s: not used (every thread file is read)", path)
        return {}


def write_index(folder: Path, files: dict[str, Any]) -> None:
    """Write the folder's index (a failure only costs the next opening time)."""
    try:
        write_atomic(folder / INDEX, dumps({"version": 1, "files": files}))
    except (OSError, ThreadFileError) as exc:
        logger.info("%s: not written: %s", folder / INDEX, exc)


def file_name(thread_id: str) -> str:
    """``<thread id>.json``; an id that is no plain name (``../x``, from a file
    or a caller) is hashed, so a thread is never saved outside its folder."""
    if _SAFE_ID.fullmatch(thread_id):
        return f"{thread_id}.json"
    return f"thread_{hashlib.sha256(thread_id.encode('utf-8', 'replace')).hexdigest()[:16]}.json"


def end_interrupted(thread: Thread, end: Callable[[Message, Incomplete | Complete], None]) -> None:
    """A thread saved mid-run (the kernel died): ``end`` that run as cancelled.
    A version in a fork never waits: a reply left running or waiting there,
    or with a call unanswered (a hand-written file), is ended too."""
    for message in thread.messages:
        if isinstance(message.status, Running):
            end(message, Incomplete(reason="cancelled", error=INTERRUPTED))
    for fork in thread.forks.values():
        for version in fork.stashed:
            for message in version:
                status = message.status
                if isinstance(status, Running | RequiresAction):
                    status = Incomplete(reason="cancelled", error=INTERRUPTED)
                elif all(p.has_result for p in message.tool_calls):
                    continue
                end(message, status)  # its open calls answered
