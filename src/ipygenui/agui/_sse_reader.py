"""Server-sent events read as they arrive, with a cap on one event and on a run.

An agent's stream is untrusted: one event may be any size and the stream
may never end. The body is read chunk by chunk, so a line is never held
beyond the cap: the read that takes an event past ``max_event_bytes``, or
the stream past ``max_run_bytes``, raises ``ModelError`` at once (the caller
then closes the connection).

The format (the SSE part AG-UI uses): lines end with CRLF, LF or CR; the
``data:`` lines of one event join with LF; an empty line ends the event;
other fields (``event:``, ``id:``, ``retry:``) and comments are skipped.
What is left when the stream ends is one last event.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterator

from ..models.base import ModelError

__all__ = ["megabytes", "sse_data"]

_LINE_END = re.compile(rb"\r\n|\r|\n")


def megabytes(size: int) -> str:
    """``size`` bytes as a short figure for messages: "1 MB", "0.5 MB", "64 MB"."""
    return f"{size / 1_000_000:.3g} MB"


async def sse_data(
    chunks: AsyncIterator[bytes], where: str, max_event_bytes: int, max_run_bytes: int
) -> AsyncGenerator[bytes]:
    """The data of each event of the stream read from ``chunks`` (``where``
    names the sender in errors)."""
    total = 0
    buffer = bytearray()
    """Read, not yet split into lines: the line being received."""
    scanned = 0
    """How much of ``buffer`` holds no line end (no need to search it again)."""
    data: list[bytes] = []
    event_size = 0

    def too_big() -> ModelError:
        return ModelError(
            f"{where} sent an event of more than {megabytes(max_event_bytes)}, over the "
            f"limit (max_event_bytes): the reply stops here"
        )

    async for chunk in chunks:
        total += len(chunk)
        if total > max_run_bytes:
            raise ModelError(
                f"{where} sent more than {megabytes(max_run_bytes)} in one run, over the "
                f"limit (max_run_bytes): the reply stops here"
            )
        buffer += chunk
        start = 0
        while True:
            end = _LINE_END.search(buffer, max(start, scanned))
            if end is None or (end.group() == b"\r" and end.end() == len(buffer)):
                break  # no whole line yet (a CR may be the first half of CRLF)
            line = bytes(buffer[start : end.start()])
            start = end.end()
            if line:
                value = _data_value(line)
                if value is not None:
                    data.append(value)
                    event_size += len(value) + 1
                    if event_size > max_event_bytes:
                        raise too_big()
            elif data:
                yield b"\n".join(data)
                data, event_size = [], 0
        del buffer[:start]
        scanned = max(len(buffer) - 1, 0)
        if event_size + len(buffer) > max_event_bytes:
            raise too_big()
    if buffer:
        value = _data_value(bytes(buffer.rstrip(b"\r")))
        if value is not None:
            data.append(value)
    if data:
        yield b"\n".join(data)


def _data_value(line: bytes) -> bytes | None:
    """The value of a ``data`` field line; None for any other line."""
    if line.startswith(b"data:"):
        value = line[5:]
        return value[1:] if value.startswith(b" ") else value
    return b"" if line == b"data" else None
