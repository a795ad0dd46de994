"""An attachment's bytes in a file beside the thread file, not inside it.

A thread file stays small JSON: an image attached to a persisted thread is
written once to ``<thread file>.files/<attachment id>.<ext>`` and the part
records that path (``AttachmentPart.file``, relative to the thread file).
Reading a thread loads the bytes back. The path comes from an untrusted
file, so only a plain ``<something>.files/<name>`` beside the thread file is
read (no absolute path, no ``..``), and no more than ``MAX_FILE_BYTES``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path, PurePosixPath

from ..messages import AttachmentPart, Thread

MAX_FILE_BYTES = 20 * 1024 * 1024
"""Largest attachment file read back (the largest image an attachment may be)."""

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
}


def _parts(thread: Thread) -> list[AttachmentPart]:
    return [part for message in thread.messages for part in message.attachments]


def write_attachment_files(thread: Thread, target: Path) -> None:
    """Write the bytes of every attachment not yet beside ``target``; record their paths."""
    folder = f"{target.name}.files"
    for part in _parts(thread):
        if part.data is None:
            continue
        relative = f"{folder}/{part.id}{_EXTENSIONS.get(part.mime, '.bin')}"
        path = target.parent / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(path, part.data)
        part.file = relative


def read_attachment_files(thread: Thread, source: Path) -> None:
    """Load the bytes of the attachments ``thread`` (read from ``source``) records."""
    for part in _parts(thread):
        if part.data is not None or not part.file:
            continue
        path = _safe_path(source, part.file)
        if path is None:
            continue
        with contextlib.suppress(OSError):  # missing: the model is told it is gone
            if path.stat().st_size <= MAX_FILE_BYTES:
                part.data = path.read_bytes()


def _safe_path(source: Path, recorded: str) -> Path | None:
    relative = PurePosixPath(recorded)
    if (
        relative.is_absolute()
        or len(relative.parts) != 2
        or not relative.parts[0].endswith(".files")
        or any(p in ("", ".", "..") for p in relative.parts)
        or "\\" in recorded
    ):
        return None
    return source.parent / relative.parts[0] / relative.parts[1]


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
