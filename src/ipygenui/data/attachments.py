"""Attachments: what ``send(text, attachments=[...])`` takes, made into message parts.

Every attachment becomes an :class:`~ipygenui.messages.AttachmentPart` of
the user message, before anything is sent (an unsupported one raises and
the thread is unchanged):

- images (PNG/JPEG/GIF/WebP bytes, an image file, a PIL image, a
  matplotlib figure): ``kind="image"``, sent to the model as an image
  content part (a base64 data URL);
- tabular data (a pandas/polars DataFrame or Series, a numpy array, a CSV or
  TSV file loaded as a DataFrame): ``kind="data"``, kept in the
  conversation's data (``runtime.data``) under a name; the model reads its
  summary (``ref``, shape, columns, a few rows), never the rows;
- text files (``.txt``, ``.md``, ``.json``, ``.py``, ...): ``kind="text"``,
  inlined up to ``max_text_chars`` characters, with a notice saying how
  much was left out.

A file is a path (``str`` or ``os.PathLike``) or :class:`FileAttachment`
(a name and its bytes: what the widget's uploads become).
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._internal.figure_style import figure_bytes
from .._internal.install_hint import install_hint
from ..errors import AttachmentError
from ..messages import AttachmentPart
from ..persistence.attachment_files import (
    ATTACHMENT_ID,
    MAX_IMAGE_BYTES,
    UnsafeFileError,
    image_mime,
    open_regular,
    read_capped,
)
from . import DataStore, is_array, is_series, is_tabular, summarize

__all__ = [
    "DEFAULT_MAX_TEXT_CHARS",
    "MAX_ATTACHED_FILE_BYTES",
    "MAX_IMAGE_BYTES",
    "AttachmentError",
    "FileAttachment",
    "data_attachment",
    "make_attachment_parts",
]

MAX_ATTACHED_FILE_BYTES = 50 * 1024 * 1024
"""Largest file attached, of any kind, before it is read as an image, a table
or text (a CSV is loaded in the kernel; text is cut to a budget anyway).
Images are bounded further by ``MAX_IMAGE_BYTES``."""

DEFAULT_MAX_TEXT_CHARS = 40_000
"""Characters of one text attachment the model reads (about 10,000 tokens)."""

SUMMARY_CHARS = 4_000
"""Characters of a data attachment's summary."""

TEXT_SUFFIXES = frozenset(
    [
        *(".txt", ".md", ".markdown", ".rst", ".json", ".jsonl", ".yaml", ".yml", ".toml"),
        *(".ini", ".cfg", ".py", ".js", ".ts", ".sql", ".html", ".xml", ".log", ".r", ".sh"),
    ]
)
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
_IMAGE_SUFFIXES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


@dataclass(frozen=True)
class FileAttachment:
    """A file's name and bytes (``mime`` optional: the name's suffix decides)."""

    name: str
    data: bytes
    mime: str | None = None


def make_attachment_parts(
    items: Sequence[Any],
    store: DataStore,
    *,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> list[AttachmentPart]:
    """One part per attachment; raises (``TypeError`` for an unsupported type,
    :class:`AttachmentError`, ``FileNotFoundError``) before keeping anything."""
    if isinstance(items, str | bytes | os.PathLike) or not isinstance(items, Sequence):
        raise TypeError(
            f"attachments must be a list, got {type(items).__name__}: send(text, attachments=[...])"
        )
    prepared = [_prepare(item, max_text_chars) for item in items]
    return [_keep(prepared_item, store) for prepared_item in prepared]


def data_attachment(store: DataStore, name: str) -> AttachmentPart:
    """A part for the object named ``name`` in ``store`` (the widget's ``@`` menu)."""
    obj = store[name]  # UnknownReference lists the names there are
    return _data_part(obj, name, _size_of(obj), ref=name)


# --- one attachment ------------------------------------------------------------------


@dataclass
class _Data:
    """Tabular data to keep in the store at the end (nothing is kept if one fails)."""

    obj: Any
    name: str
    """The name to keep it under ("": a new reference)."""
    size: int
    label: str = ""
    """What the chip says (the file's name)."""


def _prepare(item: Any, max_text_chars: int) -> AttachmentPart | _Data:
    if isinstance(item, AttachmentPart):
        if not ATTACHMENT_ID.fullmatch(item.id):  # it would name its file when saved
            raise AttachmentError(
                f"cannot attach {item.name!r}: its id {item.id!r} is not a plain name "
                "(letters, digits, _ and -, at most 64)"
            )
        return item
    if isinstance(item, bytes | bytearray | memoryview):
        data = bytes(item)
        mime = image_mime(data)
        if mime is None:
            raise TypeError(
                "cannot attach bytes that are not a PNG, JPEG, GIF or WebP image: for another "
                "file, attach its path or ipygenui.data.attachments.FileAttachment(name, data)"
            )
        return _image_part("image", data, mime)
    if isinstance(item, str | os.PathLike):
        return _prepare_file(_read_path(item), max_text_chars)
    if isinstance(item, FileAttachment):
        return _prepare_file(item, max_text_chars)
    if is_tabular(item) or is_series(item) or is_array(item):
        return _Data(item, "", _size_of(item))
    library, name = type(item).__module__.split(".")[0], type(item).__name__
    if library == "PIL" and hasattr(item, "save"):
        buffer = io.BytesIO()
        image = item if item.mode in ("RGB", "RGBA", "L", "LA", "P") else item.convert("RGBA")
        image.save(buffer, format="PNG")
        return _image_part("image.png", buffer.getvalue(), "image/png")
    if library == "matplotlib" and name in ("Figure", "SubFigure"):
        return _image_part("figure.png", figure_bytes(item), "image/png")
    raise TypeError(
        f"cannot attach a {library}.{name}: attach a DataFrame, Series or array, an image "
        "(PNG/JPEG bytes, a PIL image, a matplotlib figure), or a file path (image, CSV, text)"
    )


def _read_path(path: str | os.PathLike[str]) -> FileAttachment:
    """The file at the user's ``path`` (a link the user names is followed):
    a FIFO or device is refused without waiting on it, and no more than the
    cap plus one byte is ever read, whatever size the file claims."""
    target = Path(path)
    try:
        fd = open_regular(target, follow=True)
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(f"cannot attach {str(path)!r}: no such file") from None
    try:
        data = read_capped(fd, MAX_ATTACHED_FILE_BYTES, target.name)
    except UnsafeFileError as exc:
        raise AttachmentError(f"cannot attach {str(path)!r}: {exc.reason}") from None
    finally:
        os.close(fd)
    return FileAttachment(target.name, data)


def _prepare_file(file: FileAttachment, max_text_chars: int) -> AttachmentPart | _Data:
    name, data = file.name or "file", file.data
    if len(data) > MAX_ATTACHED_FILE_BYTES:
        raise AttachmentError(_too_large(name, len(data), MAX_ATTACHED_FILE_BYTES))
    suffix = Path(name).suffix.lower()
    mime = image_mime(data)
    if mime is not None or suffix in _IMAGE_SUFFIXES or (file.mime or "").startswith("image/"):
        if mime is None:
            raise AttachmentError(
                f"cannot attach {name!r}: it is not a PNG, JPEG, GIF or WebP image"
            )
        return _image_part(name, data, mime)
    if suffix in TABLE_SUFFIXES:
        frame = _read_table(name, data, TABLE_SUFFIXES[suffix])
        return _Data(frame, _data_name(name), len(data), label=name)
    if suffix in TEXT_SUFFIXES or (file.mime or "").startswith("text/"):
        return _text_part(name, data, file.mime, max_text_chars)
    kind = f" ({file.mime})" if file.mime else ""
    raise TypeError(
        f"cannot attach {name!r}: {suffix or 'a file without a suffix'}{kind} is not a supported "
        "type (images, CSV/TSV, and text files such as .txt, .md, .json, .py)"
    )


def _read_table(name: str, data: bytes, sep: str) -> Any:
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"attaching {name!r} needs pandas: {install_hint('data')}") from None
    try:
        return pd.read_csv(io.BytesIO(data), sep=sep)
    except Exception as exc:
        raise AttachmentError(f"cannot read {name!r} as a table: {exc}") from None


def _text_part(name: str, data: bytes, mime: str | None, budget: int) -> AttachmentPart:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AttachmentError(
            f"cannot attach {name!r} as text: it is not UTF-8 (byte {exc.start})"
        ) from None
    notice = None
    if len(text) > budget:
        notice = (
            f"Only the first {budget:,} of {len(text):,} characters of {name} "
            "are sent to the model."
        )
        text = text[:budget]
    if mime is None:
        mime = "application/json" if name.lower().endswith(".json") else "text/plain"
    return AttachmentPart(
        name=name, kind="text", mime=mime, size=len(data), text=text, notice=notice
    )


def _image_part(name: str, data: bytes, mime: str) -> AttachmentPart:
    if len(data) > MAX_IMAGE_BYTES:
        raise AttachmentError(_too_large(name, len(data), MAX_IMAGE_BYTES))
    return AttachmentPart(name=name, kind="image", mime=mime, size=len(data), data=data)


def _keep(item: AttachmentPart | _Data, store: DataStore) -> AttachmentPart:
    if isinstance(item, AttachmentPart):
        return item
    ref = store.ref_of(item.obj)
    if ref is None:
        ref = _free_name(store, item.name) if item.name else store.add(item.obj)
        store[ref] = item.obj
    return _data_part(item.obj, item.label or ref, item.size, ref)


def _data_part(obj: Any, name: str, size: int, ref: str) -> AttachmentPart:
    summary = summarize(obj, ref=ref, budget=SUMMARY_CHARS)
    return AttachmentPart(
        name=name,
        kind="data",
        mime="application/vnd.ipygenui.data",
        size=size,
        text=json.dumps(summary, default=str),
        ref=ref,
    )


def _data_name(filename: str) -> str:
    """``sales 2024.csv`` -> ``sales_2024``: a name the store takes."""
    stem = re.sub(r"[^A-Za-z0-9_]", "_", Path(filename).stem)[:48] or "data"
    return stem if re.match(r"[A-Za-z_]", stem) else f"data_{stem}"


def _free_name(store: DataStore, name: str) -> str:
    """``name``, or ``name_2``... when another object has it: nothing is replaced."""
    candidate, n = name, 1
    while candidate in store:
        n += 1
        candidate = f"{name}_{n}"
    return candidate


def _size_of(obj: Any) -> int:
    try:
        return len(obj)
    except TypeError:
        return 0


def _too_large(name: str, size: int, limit: int) -> str:
    return (
        f"cannot attach {name!r}: {size / 1_048_576:.1f} MB, the limit is "
        f"{limit / 1_048_576:.0f} MB"
    )
