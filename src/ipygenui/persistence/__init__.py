"""Save and load a thread as JSON, atomically (temp file, then rename).

A persist path has one owner at a time (:class:`ThreadFile`): a runtime that
persists to it claims it when it opens it, and every save checks, under an
OS file lock on a sidecar ``.<name>.lock`` file, that the claim is still its
own and that the file is still the one it last wrote. A newer owner (a
notebook cell run again, another process) or a writer that changed the file
in between makes the save fail with :class:`PersistenceConflictError`, so
two writers never silently overwrite each other's thread.

File format version 2 added the thread's branches (``Thread.forks``) and its
title; version 1 files (no branches) still load. Version 3 keeps each MCP
app's page once beside the thread, however many calls show it
(``persistence/_app_pages.py``); a thread with no app is still written as
version 2, and a version 2 file, its HTML in every call, loads as it is. A
branch structure that does not fit (a fork naming no message, an active
version out of range) fails to load with a :class:`ThreadFileError` that says
what is wrong.

Thread files are untrusted and so is their folder: the thread file, its lock
file and its temp files are opened without following symbolic links (a link
is refused with a :class:`ThreadFileError` naming it, and nothing is written
through it), only a regular file is read, none over ``MAX_THREAD_FILE_BYTES``
(refused by its size, before reading), and tool-call ids a file repeats are
made unique on load, as on ingest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from .._internal.sanitize import json_safe
from ..errors import PersistenceConflictError, ThreadFileError
from ..messages import Message, Thread, new_id
from ._app_pages import TABLE as APP_PAGES
from ._app_pages import restore_pages, share_pages
from ._journal import JOURNAL_KEY, Changes, base_of, dumps, journal_path, replay_journal
from .attachment_files import (
    UnsafeFileError,
    open_regular,
    read_attachment_files,
    write_attachment_files,
)

try:  # POSIX; elsewhere the claim and the file check still work, without a lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

FORMAT = "ipygenui.thread"
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
"""Versions this ipygenui reads: 1 is 2 without branches or a title; 3 is 2
with the apps' pages kept once (written only for a thread with an app)."""

COMPACT_BYTES = 64 * 1024
"""A journal is folded into its file once it is larger than the file and this."""

CLAIM_CHARS = 160
"""A claim is padded to this length, so the next is written over it (a
folder of many threads opens without truncating every lock file)."""

STALE_TEMP_SECONDS = 60.0
"""A temp file of this path older than this is left over from an interrupted save."""

LOCK_TIMEOUT = 10.0
"""Seconds to wait for another writer's save to finish before giving up."""

MAX_THREAD_FILE_BYTES = 256 * 1024 * 1024
"""A thread file larger than this (256 MiB) is refused before it is read
(:class:`ThreadFileError`): attachments are files beside it and each app's
page is kept once, so a real thread stays far below it."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted as the lock file never blocks
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

_NEW_TEMP = re.compile(r"(\d+)-[a-z0-9_]{8}")
"""The middle of ``.<name>.<pid>-<random>.tmp``: a temp file with its writer's pid."""
_OLD_TEMP = re.compile(r"[a-z0-9_]{8}")
"""The middle of ``.<name>.<random>.tmp`` (older versions' temp files)."""


# --- encoding -----------------------------------------------------------------


def encode_thread(thread: Thread) -> bytes:
    """The file's bytes: UTF-8 JSON; odd values (lone surrogates, huge ints,
    NaN, objects pydantic cannot dump) are written as text rather than fail."""
    return encode_snapshot(snapshot_of(thread))


def snapshot_of(thread: Thread) -> Any:
    """The thread's JSON form, a copy of its own: what ``encode_snapshot``
    writes, safe to hand to another thread while the loop changes ``thread``."""
    try:
        return thread.model_dump(mode="json")
    except (ValueError, TypeError, RecursionError):  # objects pydantic cannot dump
        return json_safe(thread)


def encode_snapshot(snapshot: Any, journal_id: str | None = None) -> bytes:
    """The file's bytes for a ``snapshot_of`` a thread (lone surrogates, huge
    ints and NaN written as text rather than fail); ``journal_id``: the
    journal that continues it (``_journal``). ``snapshot`` is left as it is."""
    raw = dumps(snapshot)
    if b'"mcp_app"' not in raw:  # no page to share: the thread's bytes as they are
        head = _dumps(_file_data({}, journal_id))
        return head[: -len(b"{}}")] + raw + b"}"
    return _dumps(_file_data(json.loads(raw), journal_id))


def _file_data(thread: Any, journal_id: str | None = None) -> dict[str, Any]:
    """The file's JSON: the thread (its JSON form, a fresh copy), each app's page once."""
    pages = share_pages(thread)
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION if pages else 2}
    if journal_id is not None:
        data[JOURNAL_KEY] = journal_id
    data["thread"] = thread
    if pages:
        data[APP_PAGES] = pages
    return data


def _dumps(data: Any) -> bytes:
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8")


def _int_or_text(digits: str) -> int | str:
    try:
        return int(digits)
    except ValueError:  # past Python's int-to-text limit: keep the digits as text
        return digits


def decode_thread(raw: bytes, path: str | os.PathLike[str], journal: bytes | None = None) -> Thread:
    """Read a thread file's bytes (and its ``journal``'s, the changes saved
    since, when it is the file's own); any problem raises :class:`ThreadFileError`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ThreadFileError(
            f"{path}: not a thread file: it is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    try:
        data = json.loads(text, parse_int=_int_or_text)
    except json.JSONDecodeError as exc:
        raise ThreadFileError(
            f"{path}: not a thread file: invalid JSON at line {exc.lineno} column {exc.colno} "
            f"({exc.msg}); the file may be truncated or corrupt"
        ) from None
    except RecursionError:
        raise ThreadFileError(f"{path}: not a thread file: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise ThreadFileError(
            f"{path}: not an ipygenui thread file (the JSON is a {type(data).__name__}, "
            "not an object)"
        )
    pages = None
    if "format" in data:  # without it: a bare thread object, as Thread.model_dump gives
        if data["format"] != FORMAT:
            raise ThreadFileError(
                f"{path}: not an ipygenui thread file (format {data['format']!r}, "
                f"expected {FORMAT!r})"
            )
        version = data.get("version")
        if isinstance(version, bool) or version not in READABLE_VERSIONS:
            raise ThreadFileError(
                f"{path}: unsupported thread file version {version!r} "
                f"(this ipygenui reads versions {READABLE_VERSIONS[0]} to {VERSION})"
            )
        if "thread" not in data:
            raise ThreadFileError(f"{path}: the file has no thread")
        pages = data.get(APP_PAGES)
        journal_id = data.get(JOURNAL_KEY)
        data = data["thread"]
    else:
        journal_id = None
    restore_pages(data, pages)
    if journal is not None and isinstance(journal_id, str) and isinstance(data, dict):
        replay_journal(data, journal, journal_id, path, raw)
    try:
        thread = Thread.model_validate(json_safe(data))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in error['loc']) or 'thread'}: "
            f"{error['msg'].removeprefix('Value error, ')}"
            for error in exc.errors()[:3]
        )
        more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
        raise ThreadFileError(f"{path}: the thread does not validate: {problems}{more}") from None
    unique_call_ids(thread)
    return thread


def unique_call_ids(thread: Thread) -> None:
    """Give a fresh id to every tool call whose id an earlier call in the
    thread has (every branch; the first keeps it), the rule the accumulator
    applies on ingest (``Accumulator._unique_id``): sharing one id, two calls
    would share one approval, and the later could never be decided. A call's
    result lives on its part, so it stays paired with its call."""
    taken: set[str] = set()
    for message in thread.all_messages():
        for part in message.tool_calls:
            while part.tool_call_id in taken:
                part.tool_call_id = new_id("call")
            taken.add(part.tool_call_id)


# --- the file on disk -----------------------------------------------------------


def _lock_path(target: Path) -> Path:
    return target.with_name(f".{target.name}.lock")


@contextlib.contextmanager
def _locked(target: Path) -> Iterator[IO[str] | None]:
    """Hold the path's sidecar lock file (created if missing), opened read-write.

    Yields None when the lock file cannot be created (a read-only folder):
    reading still works, and a save then fails on its own and says why.
    A lock file that is a link, or anything but a plain file of its own (a
    hard link to another file), raises :class:`ThreadFileError`: writing the
    claim would truncate what it leads to.
    """
    lock = _lock_path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o644)
    except OSError:
        if os.path.islink(lock):
            raise ThreadFileError(_refused_link(lock, "lock file")) from None
        fd = -1
    if fd < 0:
        yield None
        return
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        os.close(fd)
        raise ThreadFileError(
            f"{lock}: the lock file is not a plain file of its own (a hard link, FIFO or "
            "device); refused, nothing written to it. Remove it to save here."
        )
    with os.fdopen(fd, "r+", encoding="utf-8") as handle:
        if fcntl is not None:
            deadline = time.monotonic() + LOCK_TIMEOUT
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise PersistenceConflictError(
                            f"{target}: another writer has held its lock for over "
                            f"{LOCK_TIMEOUT:.0f} s; not saved"
                        ) from None
                    time.sleep(0.005)
        yield handle  # closing the file releases the lock


def _stamp(target: Path) -> tuple[int, int, int] | None:
    """What identifies one version of the file (a rename makes a new inode)."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _write_atomic(target: Path, data: bytes) -> None:
    if target.is_symlink():  # a rename would silently replace the link with a file
        raise ThreadFileError(_refused_link(target, "thread file"))
    # mkstemp creates its file with O_CREAT | O_EXCL | O_NOFOLLOW: never through a link
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}-", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _alive(pid: int) -> bool:
    if os.name == "nt":  # pragma: no cover - os.kill would end the process there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temps(target: Path, temps: list[os.DirEntry[str]] | None = None) -> list[Path]:
    """Remove temp files of ``target`` left by interrupted saves: those whose
    writer process is gone, and those older than ``STALE_TEMP_SECONDS``.
    A live writer's fresh temp file is kept. Returns what was removed.
    ``temps``: the folder's ``*.tmp`` entries, listed once for all its files."""
    prefix = f".{target.name}."
    removed: list[Path] = []
    try:
        entries = temps if temps is not None else list(os.scandir(target.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        middle = name[len(prefix) : -len(".tmp")]
        new = _NEW_TEMP.fullmatch(middle)
        if new is None and _OLD_TEMP.fullmatch(middle) is None:
            continue  # another file's temp (``t.json.bak``'s), or not a temp file
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS
            if old or (new is not None and not _alive(int(new.group(1)))):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def save_thread(thread: Thread, path: str | os.PathLike[str]) -> None:
    """Write ``thread`` to ``path`` so a crash never leaves a half-written file.

    A one-off write: it takes the path's lock but claims nothing, so a chat
    persisting to ``path`` sees the change and refuses to overwrite it.
    """
    target = Path(path)
    _write_files(thread, target)  # before the JSON that names them
    data = encode_thread(thread)
    with _locked(target):
        _write_atomic(target, data)


def load_thread(path: str | os.PathLike[str]) -> Thread:
    """Read a thread saved by :func:`save_thread` (or a bare thread JSON object).

    The file is untrusted: odd values are made safe, and any problem raises
    :class:`ThreadFileError` naming the file. (Approvals it records are the
    runtime's concern: see ``decisions.distrust_loaded``.)
    """
    raw = _read_thread_file(path)
    journal = journal_path(Path(path))
    changes = _read_thread_file(journal, "journal") if os.path.lexists(journal) else None
    thread = decode_thread(raw, path, changes)
    read_attachment_files(thread, Path(path))  # images beside the file, not in it
    return thread


def _read_thread_file(path: str | os.PathLike[str], what: str = "thread file") -> bytes:
    """The bytes of a regular file at ``path``; a link, FIFO or device is
    refused (:class:`ThreadFileError`) without waiting on it, and so is a file
    over ``MAX_THREAD_FILE_BYTES`` (its size checked first, the read bounded
    too: a file whose size says less may hold more)."""
    try:
        fd = open_regular(path, follow=False)
    except UnsafeFileError:
        raise ThreadFileError(_refused_link(Path(path), what)) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ThreadFileError(
                f"{path}: not a regular file (a FIFO, a device or a folder); not read"
            )
        size = os.fstat(fd).st_size
        raw = handle.read(MAX_THREAD_FILE_BYTES + 1) if size <= MAX_THREAD_FILE_BYTES else b""
        if size > MAX_THREAD_FILE_BYTES or len(raw) > MAX_THREAD_FILE_BYTES:
            raise ThreadFileError(
                f"{path}: the file is larger than {MAX_THREAD_FILE_BYTES // 2**20} MiB "
                f"({max(size, len(raw)):,} bytes), the most a {what} may hold; not read"
            )
        return raw


def _write_files(thread: Thread, target: Path, messages: Iterable[Message] | None = None) -> None:
    try:
        write_attachment_files(thread, target, messages)
    except UnsafeFileError as exc:
        raise ThreadFileError(f"{target}: an attachment was not saved: {exc}") from None


def _refused_link(path: Path, what: str) -> str:
    hint = (
        "Remove the link to save here."
        if what == "lock file"
        else "Remove the link, or use the file it leads to as the path."
    )
    return (
        f"{path}: the {what} is a symbolic link (to {_link_target(path)}); refused, "
        f"nothing read or written through it. {hint}"
    )


def _link_target(path: Path) -> str:
    try:
        return repr(os.readlink(path))
    except OSError:
        return "somewhere"


class ThreadFile:
    """A persist path as one writer sees it: opened (claimed), then saved to."""

    def __init__(self, path: str | os.PathLike[str], journal: bool = False) -> None:
        self.path = Path(path)
        self.journal = journal
        """Whether saves append to the journal (``_journal``) rather than
        rewrite the file (``persist=`` turns it on; ``close`` folds it in)."""
        self.writer = new_id("writer")
        self._seen: tuple[int, int, int] | None = None
        """The file as this writer last read or wrote it (None: absent)."""
        self._prepared = 0
        self._written = 0
        """The numbers of the last snapshot prepared, and of the last written."""
        self._changes = Changes()
        """What this writer last prepared of its thread (``_journal``)."""
        self._journal_id: str | None = None
        """The journal continuing the file as this writer wrote it (None: the
        next save rewrites the file)."""
        self._journal_size = 0
        self._header = 0
        """The size of the journal's first line (a journal no longer: no change in it)."""
        self._file_size = 0

    def same_path(self, other: str | os.PathLike[str]) -> bool:
        return Path(other).resolve() == self.path.resolve()

    def open(self, load: bool, temps: list[os.DirEntry[str]] | None = None) -> Thread | None:
        """Claim the path for this writer and return the saved thread (if
        ``load`` and the file exists). A newer claim wins: a cell run again
        makes a new owner, and the old one's saves are refused from then on.
        Removes temp files of interrupted saves (among ``temps``, the folder's
        ``*.tmp`` entries, when given)."""
        with _locked(self.path) as lock:
            exists = os.path.lexists(self.path)  # a link is refused, not taken for absent
            thread = load_thread(self.path) if load and exists else None
            self._seen = _stamp(self.path)
            self._journal_id = None  # the first save writes the file whole
            if lock is not None:
                self._write_claim(lock)
                remove_stale_temps(self.path, temps)
                remove_stale_temps(journal_path(self.path), temps)
        return thread

    def save(self, thread: Thread) -> None:
        """Replace the file with ``thread``, unless another writer took the path
        over or changed the file: then :class:`PersistenceConflictError`."""
        self.write(self.prepare(thread))

    def prepare(self, thread: Thread) -> tuple[int, Any]:
        """What ``write`` writes: ``thread``'s attachments written beside the
        file (they name their paths on the thread), what changed since the
        last ``prepare`` and the thread's snapshot (of the same message dumps),
        numbered. Runs where the thread changes (the event loop)."""
        self._prepared += 1
        return self._prepared, self._changes.diff(
            thread, lambda messages: _write_files(thread, self.path, messages)
        )

    def compact(self, thread: Thread) -> None:
        """Fold the journal into the file (``Runtime.close``): the file alone
        then holds ``thread``, one self-contained JSON file again."""
        if self.journal and self._journal_id is not None and self._journal_size > self._header:
            self.write(self.prepare(thread), whole=True)

    def write(self, prepared: tuple[int, Any], whole: bool = False) -> None:
        """Write a ``prepare``d change (in any thread): appended to the journal
        when it follows the last one written, else (and when the journal has
        outgrown the file) the whole snapshot, the journal started afresh. One
        older than a change written already is dropped, so a late write never
        undoes a newer one."""
        number, (record, snapshot) = prepared
        with _locked(self.path) as lock:
            if number < self._written:
                return
            claim = _read_claim(lock) if lock is not None else None
            if claim is not None and claim.get("writer") != self.writer:
                raise PersistenceConflictError(
                    f"{self.path} was taken over by {_who(claim)}; this chat no longer "
                    "saves there, so nothing was overwritten. Keep this chat's thread "
                    "with .save(another_path), or load the file again."
                )
            current = _stamp(self.path)
            if current is not None and current != self._seen:
                raise PersistenceConflictError(
                    f"{self.path} was changed by another writer since this chat last "
                    "saved it; not overwritten. Keep this chat's thread with "
                    ".save(another_path), or load the file again."
                )
            if whole or not self._append(number, record):
                self._compact(snapshot)
            self._written = number
            if claim is None and lock is not None:  # the lock file was removed: claim again
                self._write_claim(lock)

    def _append(self, number: int, record: dict[str, Any]) -> bool:
        """Append ``record`` to the journal, if it continues what is there."""
        if (
            not self.journal
            or self._journal_id is None
            or number != self._written + 1
            or self._journal_size > max(self._file_size, COMPACT_BYTES)
        ):
            return False
        journal = journal_path(self.path)
        try:
            fd = os.open(journal, os.O_WRONLY | os.O_APPEND | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
        except FileNotFoundError:
            return False
        except OSError:
            if os.path.islink(journal):
                raise ThreadFileError(_refused_link(journal, "journal")) from None
            raise
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
                raise ThreadFileError(
                    f"{journal}: the journal is not a plain file of its own (a hard link, "
                    "FIFO or device); refused, nothing written to it. Remove it to save here."
                )
            if st.st_size != self._journal_size:
                return False  # changed by someone else: the file is written whole
            line = dumps(record) + b"\n"
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        self._journal_size += len(line)
        return True

    def _compact(self, snapshot: Any) -> None:
        """Write the file whole (naming a new journal), then start that journal."""
        journal_id = new_id("journal") if self.journal else None
        data = encode_snapshot(snapshot, journal_id)
        _write_atomic(self.path, data)
        self._seen = _stamp(self.path)
        self._journal_id, self._file_size = journal_id, len(data)
        if journal_id is None:
            return
        header = dumps({JOURNAL_KEY: journal_id, "base": base_of(data)}) + b"\n"
        _write_atomic(journal_path(self.path), header)
        self._journal_size = self._header = len(header)

    def _write_claim(self, lock: IO[str]) -> None:
        claim = {"writer": self.writer, "pid": os.getpid(), "claimed_at": time.time()}
        text = json.dumps(claim).ljust(CLAIM_CHARS)  # written over the last: no truncation
        lock.seek(0)
        lock.write(text)
        lock.flush()
        if os.fstat(lock.fileno()).st_size > len(text.encode("utf-8")):
            lock.truncate()


def _read_claim(lock: IO[str]) -> dict[str, Any] | None:
    lock.seek(0)
    try:
        claim = json.loads(lock.read() or "null")
    except ValueError:
        return None
    return claim if isinstance(claim, dict) else None


def _who(claim: dict[str, Any]) -> str:
    pid = claim.get("pid")
    if pid == os.getpid():
        return "another chat in this process"
    return f"another chat in process {pid}" if isinstance(pid, int) else "another chat"


read_regular = _read_thread_file
"""The bytes of a regular file (no link, FIFO or device; size capped), for the folder's index."""
write_atomic = _write_atomic
