"""Writing a cassette: the header once, then one line per step, appended."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from ...errors import CassetteError
from ._format import MAGIC, VERSION
from ._read import check_header

_LOCK = threading.Lock()


def _line(value: dict[str, Any]) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text + "\n").encode("utf-8", "surrogatepass")


def start(path: Path, header: dict[str, Any], *, new: bool) -> None:
    """A header at the top of a new (or emptied) file; an existing cassette is checked."""
    if path.is_symlink():
        raise CassetteError(f"{path}: a cassette must be a file, not a symbolic link")
    if not new and path.exists() and path.stat().st_size:
        with path.open("rb") as handle:
            check_header(path, handle.readline(64_000))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_line({"cassette": MAGIC, "version": VERSION, **header}))


def append(path: Path, entry: dict[str, Any]) -> None:
    data = _line(entry)
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    with _LOCK:
        fd = os.open(path, flags)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
