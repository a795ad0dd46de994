"""An attachment's bytes in a file beside the thread file, not inside it.

A thread file stays small JSON: an image attached to a persisted thread is
written once to ``<thread file>.files/<attachment id>.<ext>`` and the part
records that path (``AttachmentPart.file``, relative to the thread file).
Reading a thread loads the bytes back.

Everything in a thread file is untrusted, so:

- attachment ids that are no plain name (``../../x``) or that repeat get a
  fresh id on load (the attachment is kept, a warning logged), and every path
  is built by :func:`_inside`, which refuses any name that would leave the
  folder and a folder that is a symbolic link (writing and reading);
- only a plain ``<something>.files/<name>`` beside the thread file is read,
  and only a regular file: opened without following links and without
  blocking (a FIFO), checked with ``fstat``, and read up to the cap plus one
  byte whatever its size claims (``/proc`` and devices say 0);
- an image's bytes must start as a PNG, JPEG, GIF or WebP image does
  (:func:`image_mime`), or they are never sent to a model as one.

What is refused leaves the image out with a notice on the part (the user
sees it on the chip, the model reads it).
"""

from __future__ import annotations

import logging
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ..messages import AttachmentPart, Message, Thread, new_id

logger = logging.getLogger("ipygenui")

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Largest image an attachment may be (OpenAI's limit per image): an image
attached, and an image file read back beside a thread file."""

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
}

ATTACHMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""An attachment id that can name a file (ours are ``att_<16 hex digits>``)."""
_FILE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9]{1,8})?")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation

LINK = "a symbolic link; refused"
LINKED_FOLDER = "the folder is a symbolic link; refused"
NOT_READ = "Not read from the saved thread"
"""How the notice of an image left out on load starts."""


class UnsafeFileError(ValueError):
    """A path from a thread file that is refused (outside its folder, a link,
    not a regular file, too large, not an image); says which and why."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.reason = reason
        """Why, without the path (what an attachment's notice says)."""


def image_mime(data: bytes) -> str | None:
    """The image type the bytes start with (PNG, JPEG, GIF, WebP), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _inside(folder: Path, name: str) -> Path:
    """``folder / name``, if ``name`` is one plain file name that resolves
    inside ``folder`` and ``folder`` is no symbolic link; else :class:`UnsafeFileError`."""
    if not _FILE_NAME.fullmatch(name):
        raise UnsafeFileError(folder, f"{name!r} is not a plain file name; refused")
    if folder.is_symlink():
        raise UnsafeFileError(folder, LINKED_FOLDER)
    path = folder / name
    if path.is_symlink():
        raise UnsafeFileError(path, LINK)
    if path.resolve().parent != folder.resolve():
        raise UnsafeFileError(path, f"it leads outside {folder.name}; refused")
    return path


def read_capped(fd: int, limit: int, name: str) -> bytes:
    """At most ``limit`` bytes of the regular file open as ``fd`` (never
    trusting its size: reads ``limit + 1`` at most), else :class:`UnsafeFileError`."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise UnsafeFileError(name, "not a regular file (a FIFO, a device or a folder)")
    chunks: list[bytes] = []
    got = 0
    while got <= limit:  # bounded: each read returns data or ends the loop
        chunk = os.read(fd, min(1024 * 1024, limit + 1 - got))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        got += len(chunk)
    raise UnsafeFileError(name, f"larger than {limit / 1_048_576:.0f} MB")


def open_regular(path: str | os.PathLike[str], *, follow: bool) -> int:
    """A read-only descriptor of ``path`` that never blocks (a FIFO); with
    ``follow=False`` a symbolic link is refused (:class:`UnsafeFileError`)."""
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | _BINARY | (0 if follow else _NOFOLLOW)
    if not follow and os.path.islink(path):
        raise UnsafeFileError(path, LINK)
    try:
        return os.open(path, flags)
    except OSError:
        if not follow and os.path.islink(path):  # made a link in between
            raise UnsafeFileError(path, LINK) from None
        raise


def _parts(thread: Thread) -> list[AttachmentPart]:
    """Every attachment of every branch (an edited message's versions too)."""
    return [part for message in thread.all_messages() for part in message.attachments]


def write_attachment_files(
    thread: Thread, target: Path, messages: Iterable[Message] | None = None
) -> None:
    """Write the bytes of every attachment not yet beside ``target`` (of
    ``messages`` only, when given: those that changed); record their paths.
    A path that is refused raises :class:`UnsafeFileError`."""
    folder_name = f"{target.name}.files"
    folder = target.parent / folder_name
    parts = _parts(thread) if messages is None else [p for m in messages for p in m.attachments]
    for part in parts:
        if part.data is None:
            continue
        if not ATTACHMENT_ID.fullmatch(part.id):  # made in memory: never a path
            raise UnsafeFileError(
                folder, f"attachment id {part.id!r} of {part.name!r} is not a plain name; not saved"
            )
        name = f"{part.id}{_EXTENSIONS.get(part.mime, '.bin')}"
        if not folder.is_symlink():
            folder.mkdir(parents=True, exist_ok=True)
        path = _inside(folder, name)
        if not os.path.lexists(path):
            _write_atomic(path, part.data)
        part.file = f"{folder_name}/{name}"


def read_attachment_files(thread: Thread, source: Path) -> None:
    """Make ``thread``'s attachments (read from ``source``) safe, and load the
    image bytes they record: ids fixed, images checked, refusals noted."""
    _fix_ids(thread, source)
    for part in _parts(thread):
        if part.kind != "image":
            part.data = None  # only images have bytes (never written, never sent)
            continue
        if part.notice is not None and part.notice.startswith(NOT_READ):
            part.notice = None  # said at an earlier load: tried again now
        try:
            if part.data is not None:  # inline in a hand-written file
                _check_image(part, part.data, source.name)
            elif part.file:
                _check_image(part, _read_recorded(source, part.file), part.file)
        except (UnsafeFileError, OSError) as exc:
            if isinstance(exc, FileNotFoundError):
                continue  # missing: the model is told it is gone
            reason = exc.reason if isinstance(exc, UnsafeFileError) else exc.strerror or str(exc)
            logger.warning("%s: attachment %r not loaded: %s", source, part.name, exc)
            part.data = None
            where = part.file or "the thread file"
            part.notice = f"{NOT_READ}: {where}: {reason}"


def _fix_ids(thread: Thread, source: Path) -> None:
    """A fresh id for an attachment whose id is no plain name or repeats."""
    seen: set[str] = set()
    for part in _parts(thread):
        if not ATTACHMENT_ID.fullmatch(part.id) or part.id in seen:
            fresh = new_id("att")
            logger.warning(
                "%s: attachment id %r is not a plain unique name; it is now %r",
                source,
                part.id,
                fresh,
            )
            part.id = fresh
        seen.add(part.id)


def _check_image(part: AttachmentPart, data: bytes, where: str) -> None:
    if len(data) > MAX_IMAGE_BYTES:
        raise UnsafeFileError(where, f"larger than {MAX_IMAGE_BYTES / 1_048_576:.0f} MB")
    mime = image_mime(data)
    if mime is None:
        raise UnsafeFileError(where, "not a PNG, JPEG, GIF or WebP image")
    part.data, part.mime = data, mime  # the bytes decide the type, not the file


def _read_recorded(source: Path, recorded: str) -> bytes:
    relative = PurePosixPath(recorded)
    if (
        relative.is_absolute()
        or len(relative.parts) != 2
        or not relative.parts[0].endswith(".files")
        or any(p in ("", ".", "..") for p in relative.parts)
        or "\\" in recorded
    ):
        raise UnsafeFileError(recorded, "not a file in a .files folder beside the thread")
    folder, name = source.parent / relative.parts[0], relative.parts[1]
    path = _inside(folder, name)
    fd = _open_in(folder, name) if _DIRECTORY and os.open in os.supports_dir_fd else None
    if fd is None:
        fd = open_regular(path, follow=False)
    try:
        return read_capped(fd, MAX_IMAGE_BYTES, recorded)
    finally:
        os.close(fd)


def _open_in(folder: Path, name: str) -> int:
    """``name`` opened through the folder's own descriptor: a folder or file
    swapped for a link after :func:`_inside` looked is still refused."""
    try:
        folder_fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        if folder.is_symlink():
            raise UnsafeFileError(folder, LINKED_FOLDER) from None
        raise
    try:
        flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC
        return os.open(name, flags, dir_fd=folder_fd)
    except OSError:
        if os.path.islink(folder / name):
            raise UnsafeFileError(folder / name, LINK) from None
        raise
    finally:
        os.close(folder_fd)


def _write_atomic(path: Path, data: bytes) -> None:
    # mkstemp creates its file with O_CREAT | O_EXCL (and O_NOFOLLOW): never through a link
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
