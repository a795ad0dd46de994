"""Coalesce streamed patch ops into frames for the frontend.

A fast model emits hundreds of patch ops a second; Jupyter Server drops
kernel messages above 1000 a second, and resending whole values costs bytes
quadratic in the reply. So ops are held for at most ``interval`` seconds and
sent as one ``frame`` custom message with a sequence number:

- consecutive appends to the same field merge into one append (pieces are
  joined once, at flush, so merging costs nothing per op);
- a ``set`` replaces the pending ``set`` of the same field (last value wins);
- the parsed ``args`` of a tool call are not sent while its ``args_text``
  streams in the same frame: the frontend parses the streamed text itself,
  so a large argument costs its size once, not once per frame.

Every op with the same (part, field) key keeps its order; ops on different
keys commute, which is what makes reordering by merging safe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ._protocol import Patch, PatchOp, add_part_op, append_op, frame_message, set_op

DEFAULT_INTERVAL = 1 / 30
"""At most ~30 frames a second: smooth to the eye, far below server limits."""


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


CallLater = Callable[[float, Callable[[], None]], TimerHandle]


class _Pending:
    """One op waiting to be sent; appends keep their pieces until flush."""

    __slots__ = ("field", "kind", "part", "pieces", "value")

    def __init__(self, op: PatchOp) -> None:
        self.kind: str = op["op"]
        self.part: int = op["part"]
        self.field: str = "" if op["op"] == "add_part" else op["field"]
        self.value: Any = op["value"]
        self.pieces: list[str] | None = [op["value"]] if op["op"] == "append" else None

    def to_op(self) -> PatchOp:
        if self.pieces is not None:
            return append_op(self.part, self.field, "".join(self.pieces))
        if self.kind == "add_part":
            return add_part_op(self.part, self.value)
        return set_op(self.part, self.field, self.value)


class _MessageOps:
    """The pending ops of one message, with an index for merging."""

    __slots__ = ("last", "ops")

    def __init__(self) -> None:
        self.ops: list[_Pending] = []
        self.last: dict[tuple[int, str], _Pending] = {}

    def add(self, op: PatchOp) -> None:
        if op["op"] == "append":
            key: tuple[int, str] = (op["part"], op["field"])
            prev = self.last.get(key)
            if prev is not None and prev.pieces is not None:
                prev.pieces.append(op["value"])
                return
        elif op["op"] == "set":
            key = (op["part"], op["field"])
            prev = self.last.get(key)
            if prev is not None and prev.kind == "set":
                prev.value = op["value"]
                return
        else:  # add_part: keep as is, in order
            part = op["part"]
            for stale in [k for k in self.last if k[0] == part]:
                del self.last[stale]  # later ops on this part must not merge across it
            self.ops.append(_Pending(op))
            return
        entry = _Pending(op)
        self.ops.append(entry)
        self.last[key] = entry

    def to_ops(self) -> list[PatchOp]:
        streaming = {p.part for p in self.ops if p.kind == "append" and p.field == "args_text"}
        out = []
        for p in self.ops:
            if p.kind == "set" and p.field == "args" and p.part in streaming:
                continue  # the frontend parses the args_text appended in this frame
            out.append(p.to_op())
        return out


class FrameCoalescer:
    """Buffers patch ops per message and sends them as frames.

    ``send`` receives each frame dict; ``call_later(delay, fn)`` schedules
    the next flush (the kernel loop's ``call_later`` in the widget, a fake
    clock in tests); ``prepare(message_id, ops)`` gives a message's merged
    ops their wire form, once per frame rather than once per delta. All
    methods run on one thread: the widget hops there.
    """

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        call_later: CallLater,
        clock: Callable[[], float],
        *,
        interval: float = DEFAULT_INTERVAL,
        prepare: Callable[[str, list[PatchOp]], list[PatchOp]] | None = None,
    ) -> None:
        self._send = send
        self._prepare = prepare
        self._call_later = call_later
        self._clock = clock
        self.interval = interval
        self.seq = 0
        """Sequence number of the last frame sent (0: none yet)."""
        self._pending: dict[str, _MessageOps] = {}
        self._timer: TimerHandle | None = None
        self._last_flush = float("-inf")

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, message_id: str, ops: list[PatchOp]) -> None:
        """Queue ``ops`` for ``message_id``; a frame goes out within ``interval``."""
        if not ops:
            return
        entry = self._pending.get(message_id)
        if entry is None:
            entry = self._pending[message_id] = _MessageOps()
        for op in ops:
            entry.add(op)
        self._schedule()

    def drop(self, message_id: str) -> None:
        """Forget the pending ops of a message whose full state is being sent."""
        self._pending.pop(message_id, None)
        if not self._pending:
            self._cancel()

    def flush(self) -> dict[str, Any] | None:
        """Send the pending ops now as one frame; return it (None if none)."""
        self._cancel()
        if not self._pending:
            return None
        prepare = self._prepare
        patches: list[Patch] = [
            {"id": mid, "ops": prepare(mid, entry.to_ops()) if prepare else entry.to_ops()}
            for mid, entry in self._pending.items()
        ]
        self._pending = {}
        self.seq += 1
        self._last_flush = self._clock()
        frame = frame_message(self.seq, patches)
        self._send(frame)
        return frame

    def close(self) -> None:
        self._cancel()
        self._pending = {}

    def _schedule(self) -> None:
        if self._timer is not None:
            return
        delay = self._last_flush + self.interval - self._clock()
        # Even an idle stream waits one tick: ops of the same burst then share a frame.
        self._timer = self._call_later(max(delay, 0.0), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.flush()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
