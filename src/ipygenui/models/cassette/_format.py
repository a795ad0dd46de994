"""The cassette format: a header line, then one JSON entry per model step.

Line 1: ``{"cassette": "ipygenui", "version": 1, "model": ..., "recorded": ...}``.
Each later line: ``{"recorded": <ISO time>, "model": ..., "request": {...},
"deltas": [[t, kind, fields], ...], "error": <text or null>}``, where ``t``
is the delta's offset in seconds from the request and ``kind`` one of
:data:`KINDS`. Decoding checks every type: a cassette is untrusted input.
"""

from __future__ import annotations

import math
from typing import Any, cast, get_args

from ..base import (
    FinishDelta,
    FinishReason,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)

MAGIC = "ipygenui"
VERSION = 1

MAX_FILE_BYTES = 64_000_000
"""A cassette larger than this is refused (a lesson's is a few hundred KB)."""
MAX_LINE_BYTES = 8_000_000
"""One entry at most this long; a longer line is damaged."""
MAX_DEPTH = 64
"""JSON nesting of one entry (a request's tool schemas are about 10 deep)."""
MAX_DELTAS = 200_000
MAX_OFFSET = 600.0
"""Seconds: a delta recorded later than this is replayed at this offset."""
MAX_CALL_INDEX = 1_000

KINDS = ("text", "reasoning", "tool_call", "usage", "finish")
_FINISH = set(get_args(FinishReason))
_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
)


class Damaged(ValueError):
    """One entry's fault (the reader adds the file and the line)."""


def encode_delta(t: float, delta: ModelDelta) -> list[Any]:
    t = round(t, 4)
    if isinstance(delta, TextDelta):
        return [t, "text", {"text": delta.text}]
    if isinstance(delta, ReasoningDelta):
        fields: dict[str, Any] = {"text": delta.text}
        if delta.provider_data is not None:
            fields["provider_data"] = delta.provider_data
        return [t, "reasoning", fields]
    if isinstance(delta, ToolCallDelta):
        call: dict[str, Any] = {"index": delta.index, "arguments": delta.arguments}
        for name in ("id", "name", "provider_data"):
            if getattr(delta, name) is not None:
                call[name] = getattr(delta, name)
        return [t, "tool_call", call]
    if isinstance(delta, UsageDelta):
        usage: dict[str, Any] = {k: getattr(delta, k) for k in _USAGE_FIELDS if getattr(delta, k)}
        if delta.estimated:
            usage["estimated"] = True
        return [t, "usage", usage]
    if isinstance(delta, FinishDelta):
        return [t, "finish", {"reason": delta.reason}]
    raise TypeError(f"not a model delta: {delta!r}")


def _text(fields: dict[str, Any], key: str, optional: bool = False) -> str | None:
    value = fields.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise Damaged(f"{key!r} must be a string, got {type(value).__name__}")
    return value


def _data(fields: dict[str, Any]) -> dict[str, Any] | None:
    value = fields.get("provider_data")
    if value is not None and not isinstance(value, dict):
        raise Damaged(f"'provider_data' must be an object, got {type(value).__name__}")
    return value


def _count(value: Any, key: str, limit: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise Damaged(f"{key!r} must be a whole number >= 0, got {value!r}")
    if limit is not None and value > limit:
        raise Damaged(f"{key!r} is {value}, above {limit}")
    return value


def decode_delta(item: Any) -> tuple[float, ModelDelta]:
    """``(offset, delta)`` from one ``[t, kind, fields]``; :class:`Damaged` otherwise."""
    if not isinstance(item, list) or len(item) != 3:
        raise Damaged("a delta must be [offset, kind, fields]")
    t, kind, fields = item
    if not isinstance(t, int | float) or isinstance(t, bool) or not math.isfinite(t) or t < 0:
        raise Damaged(f"a delta's offset must be a number of seconds >= 0, got {t!r}")
    if kind not in KINDS:
        raise Damaged(f"unknown delta kind {str(kind)[:40]!r} (known: {', '.join(KINDS)})")
    if not isinstance(fields, dict):
        raise Damaged(f"the fields of a {kind} delta must be an object")
    offset = min(float(t), MAX_OFFSET)
    if kind == "text":
        return offset, TextDelta(cast(str, _text(fields, "text")))
    if kind == "reasoning":
        return offset, ReasoningDelta(cast(str, _text(fields, "text")), _data(fields))
    if kind == "tool_call":
        return offset, ToolCallDelta(
            index=_count(fields.get("index"), "index", MAX_CALL_INDEX),
            id=_text(fields, "id", optional=True),
            name=_text(fields, "name", optional=True),
            arguments=cast(str, _text(fields, "arguments")),
            provider_data=_data(fields),
        )
    if kind == "usage":
        counts = {k: _count(fields.get(k, 0), k) for k in _USAGE_FIELDS}
        estimated = fields.get("estimated", False)
        if not isinstance(estimated, bool):
            raise Damaged("'estimated' must be true or false")
        return offset, UsageDelta(**counts, estimated=estimated)
    reason = fields.get("reason")
    if reason not in _FINISH:
        raise Damaged(f"unknown finish reason {str(reason)[:40]!r}")
    return offset, FinishDelta(cast(FinishReason, reason))
