"""``gu.replay(path)``: a model that answers from a cassette ``gu.record`` wrote.

A request is matched after normalization (``_normalize.py``): the recorded
step whose messages, tools and settings equal it streams its deltas again,
at the recorded pace, instantly, or ``pace`` times faster. Tool results are
today's (the tools run for real in the kernel): a step whose request differs
from a recorded one only in them still matches, and the reply opens with a
note (a reasoning part, which the model never reads back) naming each tool
whose result differs; ``Replay.differences`` keeps them too. A request with
no recording answers as ``on_miss`` says.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any, Literal

from ..._internal.timed_wait import wait_set
from ...errors import CassetteMissError, ModelError
from ..base import (
    BatchStreaming,
    FinishDelta,
    ModelDelta,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
)
from ._nearest import miss_text
from ._normalize import normalize, shape_key, tool_names, tool_results
from ._read import Entry, load

__all__ = ["Replay", "replay"]

Pace = Literal["recorded", "instant"] | float
OnMiss = Literal["say", "demo", "error"]
_QUOTE = 120


def _speed(pace: Any) -> float | None:
    """Seconds of the recording per second of replay; None: no waiting."""
    if pace == "instant":
        return None
    if pace == "recorded":
        return 1.0
    if isinstance(pace, int | float) and not isinstance(pace, bool) and 0 < pace < float("inf"):
        return float(pace)
    raise ValueError(f'pace must be "recorded", "instant" or a number > 0, got {pace!r}')


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE else text[: _QUOTE - 1] + "…"


class Replay(BatchStreaming):
    """A model answering from the cassette at ``path`` (see :func:`replay`)."""

    offline = True

    def __init__(
        self,
        path: str | os.PathLike[str],
        pace: Pace = "recorded",
        on_miss: OnMiss = "say",
        strict: bool = False,
    ) -> None:
        self._speed = _speed(pace)
        if on_miss not in ("say", "demo", "error"):
            raise ValueError(f'on_miss must be "say", "demo" or "error", got {on_miss!r}')
        self.pace = pace
        self.on_miss = on_miss
        self.cassette = load(path, strict=strict)
        header = self.cassette.header
        self.recorded_model: str = header["model"][:200]
        self.recorded_date: str = header["recorded"][:10]
        self.name = f"Replay of {self.recorded_model} (recorded {self.recorded_date})"
        self.differences: list[str] = []
        """Every note of a tool result that differs from the recorded one, in order."""
        self.misses = 0
        self._by_key: dict[str, list[Entry]] = {}
        for entry in self.cassette.entries:
            self._by_key.setdefault(entry.key, []).append(entry)
        self._demo: Any = None

    def __repr__(self) -> str:
        return f"replay({str(self.cassette.path)!r}, pace={self.pace!r}, on_miss={self.on_miss!r})"

    def match(self, request: ModelRequest) -> tuple[Entry | None, dict[str, Any]]:
        """The recorded step that answers ``request`` (None: a miss), and the
        request as normalized."""
        asked = normalize(request)
        candidates = self._by_key.get(shape_key(asked), [])
        results = tool_results(asked)
        for entry in candidates:
            if tool_results(entry.request) == results:
                return entry, asked
        return (candidates[-1] if candidates else None), asked

    def _notes(self, entry: Entry, asked: dict[str, Any]) -> list[str]:
        names = tool_names(asked)
        notes = []
        recorded = dict(tool_results(entry.request))
        messages = asked["messages"]
        fresh = 0  # the tool messages since the last step: those earlier were reported then
        while fresh < len(messages) and messages[-1 - fresh].get("role") == "tool":
            fresh += 1
        for call_id, today in tool_results(asked)[len(tool_results(asked)) - fresh :]:
            then = recorded.get(call_id)
            if then != today:
                notes.append(
                    f"Replay: the tool {names.get(call_id, '?')} returned {_short(today)} today, "
                    f"where the recording had {_short(then)}; the recorded answer follows as it "
                    "was, so it may not fit today's result."
                )
        return notes

    async def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelDelta]]:
        entry, asked = self.match(request)
        if entry is None:
            async for batch in self._miss(request, asked):
                yield batch
            return
        notes = self._notes(entry, asked)
        if notes:
            self.differences.extend(notes)
            yield [ReasoningDelta("\n\n".join(notes) + "\n\n")]
        async for batch in self._play(entry, request.cancel):
            yield batch
        if entry.error is not None:
            raise ModelError(f"{entry.error} (as recorded)")

    async def _play(self, entry: Entry, cancel: asyncio.Event) -> AsyncIterator[list[ModelDelta]]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        batch: list[ModelDelta] = []
        at = 0.0
        for t, delta in entry.deltas:
            if batch and t != at:
                yield batch
                batch = []
            if not batch:
                at = t
                if self._speed is not None:
                    wait = began + t / self._speed - loop.time()
                    if wait > 0:
                        await wait_set(cancel, wait)
                    if cancel.is_set():
                        return
            batch.append(delta)
        if batch:
            yield batch

    async def _miss(
        self, request: ModelRequest, asked: dict[str, Any]
    ) -> AsyncIterator[list[ModelDelta]]:
        self.misses += 1
        text = miss_text(self.name, self.cassette.entries, asked)
        if self.on_miss == "error":
            raise CassetteMissError(f"{self.cassette.path}: {text}")
        if self.on_miss == "say":
            yield [TextDelta(text), FinishDelta("stop")]
            return
        if self._demo is None:
            from ..demo import DemoModel

            self._demo = DemoModel()
        async for delta in self._demo.stream(request):
            yield [delta]


def replay(
    path: str | os.PathLike[str],
    *,
    pace: Pace = "recorded",
    on_miss: OnMiss = "say",
    strict: bool = False,
) -> Replay:
    """A model that answers from the cassette at ``path`` (written by :func:`record`).

    ``pace``: ``"recorded"`` streams each delta at the offset it was recorded
    at, ``"instant"`` without waiting, a number that many times faster (``2``:
    twice as fast, ``0.5``: half as fast). A request that matches a recorded
    one (its messages, tools and settings, ids left out) gets the recorded
    deltas: text, reasoning, tool calls in their chunks, usage, the finish
    reason, or the recorded error. Tools run for real; a result that differs
    from the recorded one is said in a note at the top of the reply (and kept
    in ``.differences``).

    ``on_miss``: ``"say"`` answers a request with no recording in plain words,
    naming the nearest recorded requests; ``"demo"`` lets the offline
    :class:`~ipygenui.models.demo.DemoModel` answer it; ``"error"`` raises
    :class:`~ipygenui.errors.CassetteMissError`. The chat's header reads
    "Replay of <model> (recorded <date>)".

    The file is untrusted: one that is not a cassette, of another version, a
    symbolic link or too large raises :class:`~ipygenui.errors.CassetteError`
    naming it; a damaged line is skipped with a warning naming the file and
    line (``strict=True``: raises instead).
    """
    return Replay(path, pace, on_miss, strict)
