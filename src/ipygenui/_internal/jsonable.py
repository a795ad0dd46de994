"""A tool's return value as plain JSON data (``to_jsonable``).

Shared by the tools (a call's result), the data store (what the model reads
in place of a kept object) and the components: it sits below all of them.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import pydantic_core
from pydantic import BaseModel

from .sanitize import json_safe


def _summarize_dataframe(frame: Any, rows: int = 5) -> dict[str, Any]:
    head = frame.head(rows)
    return {
        "type": "DataFrame",
        "shape": list(frame.shape),
        "columns": [str(c) for c in frame.columns],
        "dtypes": {str(c): str(t) for c, t in frame.dtypes.items()},
        "head": to_jsonable(head.to_dict(orient="records")),
    }


BINARY_PREVIEW = 3_000
"""Bytes of a non-UTF-8 binary result the model gets (as base64): enough to
recognise a format or a header, small next to the rest of the conversation."""


def _binary_json(data: bytes | bytearray | memoryview) -> Any:
    raw = bytes(data)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        head = raw[:BINARY_PREVIEW]
        return {
            "type": "bytes",
            "length": len(raw),
            "base64": base64.b64encode(head).decode("ascii"),
            "truncated": len(head) < len(raw),
        }


def _without_binary(value: Any) -> Any:
    """``value`` with every bytes-like inside (models, dataclasses and containers
    included) made JSON by ``_binary_json``; other leaves left for pydantic."""
    if isinstance(value, bytes | bytearray | memoryview):
        return _binary_json(value)
    if isinstance(value, BaseModel):
        value = value.model_dump()  # python mode: bytes stay bytes
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {
            (_binary_key(k) if isinstance(k, bytes | bytearray) else k): _without_binary(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_without_binary(v) for v in value]
    return value


def _binary_key(key: bytes | bytearray) -> str:
    return bytes(key).decode("utf-8", "backslashreplace")


Keep = Callable[[Any], Any]
"""Turns an object that is not JSON (a DataFrame, an array, a figure) into the
JSON the model reads in its place: ``data.model_json`` keeps it by reference."""


def _fallback(value: Any, keep: Keep | None = None) -> Any:
    if isinstance(value, memoryview):
        return _binary_json(value)
    kind = type(value)
    module = kind.__module__.split(".")[0]
    if keep is not None:
        if module == "pandas" and hasattr(value, "isoformat"):
            return value.isoformat()
        if module == "numpy" and getattr(value, "ndim", 1) == 0 and hasattr(value, "tolist"):
            return _fallback(value)  # a numpy scalar is plain JSON
        return keep(value)
    if module == "pandas":
        if hasattr(value, "columns") and hasattr(value, "dtypes"):
            return _summarize_dataframe(value)
        if hasattr(value, "to_frame"):  # Series
            return _summarize_dataframe(value.to_frame())
        if hasattr(value, "isoformat"):
            return value.isoformat()
    if module == "numpy" and hasattr(value, "tolist"):
        listed = value.tolist()  # arrays and numpy scalars alike
        # bytes ("S"), void ("V") and object ("O") items may hold non-UTF-8 bytes
        binary = getattr(getattr(value, "dtype", None), "kind", None) in ("S", "V", "O")
        return _without_binary(listed) if binary else listed
    return repr(value)


def to_jsonable(value: Any, keep: Keep | None = None) -> Any:
    """Turn a tool's return value into plain JSON data.

    Pydantic models and dataclasses become dicts, sets and tuples lists,
    DataFrames a summary (shape, columns, dtypes, first rows), numpy values
    their Python equivalents; anything else unknown its ``repr``.

    ``bytes``, ``bytearray`` and ``memoryview`` (anywhere inside) become their
    text when they are UTF-8, else ``{"type": "bytes", "length": N,
    "base64": ..., "truncated": bool}`` with the first ``BINARY_PREVIEW``
    bytes: the model learns what came back without a wall of base64.

    ``keep``: given, every object that is not JSON (top-level or inside a
    container) becomes what ``keep`` returns for it instead (the loop passes
    ``data.model_json``'s, which keeps the object by reference).
    """
    if isinstance(value, bytes | bytearray | memoryview):
        return _binary_json(value)
    try:
        return _to_jsonable(value, keep)
    except (UnicodeDecodeError, pydantic_core.PydanticSerializationError):
        # pydantic writes bytes as UTF-8 text and raises on anything else
        return _to_jsonable(_without_binary(value), keep)


def _to_jsonable(value: Any, keep: Keep | None = None) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    fallback = _fallback if keep is None else (lambda obj: _fallback(obj, keep))
    try:
        return pydantic_core.to_jsonable_python(value, fallback=fallback, serialize_unknown=False)
    except UnicodeEncodeError:  # a lone surrogate, which pydantic's UTF-8 strings refuse
        return json_safe(value)
