"""Save and load a thread as JSON, atomically (temp file, then rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .messages import Thread

FORMAT = "ipygenui.thread"
VERSION = 1


def save_thread(thread: Thread, path: str | os.PathLike[str]) -> None:
    """Write ``thread`` to ``path`` so a crash never leaves a half-written file."""
    target = Path(path)
    data = {"format": FORMAT, "version": VERSION, "thread": thread.model_dump(mode="json")}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_thread(path: str | os.PathLike[str]) -> Thread:
    """Read a thread saved by :func:`save_thread` (or a bare thread JSON object)."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        if data.get("version") != VERSION:
            raise ValueError(f"{path}: unsupported thread file version {data.get('version')!r}")
        data = data["thread"]
    return Thread.model_validate(data)
