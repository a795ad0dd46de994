"""Reading a cassette: untrusted input, checked line by line, with caps.

The file itself must be a regular file (not a symlink, not a URL), at most
:data:`~._format.MAX_FILE_BYTES`, whose first line is a header of a version
this release reads: otherwise :class:`~ipygenui.errors.CassetteError`. A
damaged entry (not JSON, too long, too deep, a wrong type, an unknown delta
kind) is skipped with a :class:`CassetteWarning` naming the file and line,
or raises with ``strict=True``. Nothing in a cassette is run, fetched or
trusted: it only supplies deltas, which the run loop checks as it checks a
live model's.
"""

from __future__ import annotations

import json
import os
import stat
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._internal.json_depth import json_depth
from ...errors import CassetteError, CassetteWarning
from ..base import ModelDelta
from ._format import (
    MAGIC,
    MAX_DELTAS,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    VERSION,
    Damaged,
    decode_delta,
)
from ._normalize import shape_key


@dataclass
class Entry:
    line: int
    request: dict[str, Any]
    deltas: list[tuple[float, ModelDelta]]
    error: str | None
    model: str
    recorded: str
    key: str = ""


@dataclass
class Cassette:
    path: Path
    header: dict[str, Any]
    entries: list[Entry] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def check_path(path: str | os.PathLike[str]) -> Path:
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"a cassette path is a str or a Path, got {path!r}")
    if "://" in text:
        raise CassetteError(f"{text}: a cassette is a local file, not a URL")
    return Path(text)


def check_header(path: Path, line: bytes) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("cassette") != MAGIC:
        raise CassetteError(f"{path}:1: not an ipygenui cassette (no header line)")
    version = header.get("version")
    if version != VERSION:
        raise CassetteError(
            f"{path}:1: cassette format version {str(version)[:20]!r}; this release reads "
            f"version {VERSION} (record it again with gu.record)"
        )
    for name in ("model", "recorded"):
        if not isinstance(header.get(name), str):
            raise CassetteError(f"{path}:1: the header's {name!r} must be a string")
    return header


def _entry(number: int, line: bytes) -> Entry:
    if len(line) > MAX_LINE_BYTES:
        raise Damaged(f"the line is longer than {MAX_LINE_BYTES:,} bytes")
    if json_depth(line) > MAX_DEPTH:
        raise Damaged(f"the entry nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(line)
    except ValueError as fault:
        raise Damaged(f"not JSON ({fault})") from None
    if not isinstance(data, dict):
        raise Damaged("an entry must be a JSON object")
    request, deltas, error = data.get("request"), data.get("deltas"), data.get("error")
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        raise Damaged("'request' must be an object with a 'messages' list")
    if not isinstance(request.get("tools", []), list):
        raise Damaged("'request.tools' must be a list")
    if not isinstance(deltas, list):
        raise Damaged("'deltas' must be a list")
    if len(deltas) > MAX_DELTAS:
        raise Damaged(f"more than {MAX_DELTAS:,} deltas")
    if error is not None and not isinstance(error, str):
        raise Damaged("'error' must be a string or null")
    model, recorded = data.get("model", ""), data.get("recorded", "")
    if not isinstance(model, str) or not isinstance(recorded, str):
        raise Damaged("'model' and 'recorded' must be strings")
    decoded = []
    for i, item in enumerate(deltas):
        try:
            decoded.append(decode_delta(item))
        except Damaged as fault:
            raise Damaged(f"delta {i}: {fault}") from None
    entry = Entry(number, request, decoded, error, model, recorded)
    entry.key = shape_key(request)
    return entry


def _lines(handle: Any) -> Any:
    """``(number, bytes)`` of each line; a line over the cap is cut there (and so damaged)."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass
        yield number, line


def load(path: str | os.PathLike[str], *, strict: bool = False) -> Cassette:
    """The cassette at ``path``: every entry that decodes (see the module's text)."""
    where = check_path(path)
    try:
        info = os.lstat(where)
    except FileNotFoundError:
        raise CassetteError(f"{where}: no cassette there (record one with gu.record)") from None
    if stat.S_ISLNK(info.st_mode):
        raise CassetteError(f"{where}: a cassette must be a file, not a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise CassetteError(f"{where}: a cassette must be a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise CassetteError(f"{where}: {info.st_size:,} bytes, above {MAX_FILE_BYTES:,}")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(where, flags), "rb") as handle:
        lines = _lines(handle)
        first = next(lines, None)
        if first is None:
            raise CassetteError(f"{where}: empty file, not an ipygenui cassette")
        cassette = Cassette(where, check_header(where, first[1]))
        for number, line in lines:
            if not line.strip():
                continue
            try:
                cassette.entries.append(_entry(number, line))
            except Damaged as fault:
                text = f"{where}:{number}: damaged cassette entry skipped: {fault}"
                if strict:
                    raise CassetteError(text.replace(" skipped", "")) from None
                cassette.skipped.append(text)
                warnings.warn(text, CassetteWarning, stacklevel=3)
    return cassette
