"""The kernel side of a benchmark run: ``gu.Chat`` over a recording comm.

No Jupyter kernel here: ``comm.create_comm`` is replaced by a comm that
serializes every message it would publish (so the JSON encoding the kernel
pays is counted in the CPU time) and keeps its size. A run streams a Table
component's props through the whole kernel path: model deltas, accumulator,
incremental partial parse, standard-parameter split, frame coalescing and the
widget's trait / custom-message sync.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import comm
from comm.base_comm import BaseComm

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from ipygenui.components.builtins import TableComponent
from ipygenui.widget.chat import Chat

CHUNK = 4
"""Characters per streamed piece (about one token)."""


@dataclass
class Wire:
    """What the kernel sent to the frontend: message count and JSON bytes."""

    messages: int = 0
    bytes: int = 0
    frames: int = 0
    """``frame`` custom messages (the streamed deltas)."""
    frame_times: list[float] = field(default_factory=list)
    kinds: dict[str, list[int]] = field(default_factory=dict)
    """Kind of message -> [count, bytes]: frames, message snapshots, the rest."""

    def reset(self) -> None:
        self.messages = self.bytes = self.frames = 0
        self.frame_times = []
        self.kinds = {}


WIRE = Wire()


class RecordingComm(BaseComm):
    """Serializes what it would publish, counts it, sends nothing."""

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        payload = json.dumps(data or {}, separators=(",", ":"))  # the kernel's own cost
        WIRE.messages += 1
        WIRE.bytes += len(payload)
        content = (data or {}).get("content")
        state = (data or {}).get("state")
        if isinstance(content, dict) and content.get("type") == "frame":
            WIRE.frames += 1
            WIRE.frame_times.append(time.perf_counter())
            kind = "frames"
        elif isinstance(state, dict) and "message" in state:
            kind = "message snapshots" if msg_type == "comm_msg" else "new message models"
        else:
            kind = "other (phase, running, order)"
        entry = WIRE.kinds.setdefault(kind, [0, 0])
        entry[0] += 1
        entry[1] += len(payload)


def install_recording_comm() -> None:
    """Every widget created after this talks to a :class:`RecordingComm`."""
    comm.create_comm = lambda *a, **k: RecordingComm(*a, **k)


def table_chat(model: Any) -> Chat:
    """A chat whose only component is the built-in Table (no notebook namespace)."""
    return Chat(model=model, components=[TableComponent(namespace={})])


@dataclass
class RunStats:
    cpu: float
    """Kernel CPU seconds (``time.process_time``) from send to the last frame."""
    wall: float
    wire: Wire
    final_json: int
    """Size of the final assistant message's JSON."""
    stream_seconds: float
    """Wall time from the first frame to the last."""


async def run_once(chat: Chat, text: str = "show the table") -> RunStats:
    """Send ``text``, wait for the run and its last frame; measure it."""
    await asyncio.sleep(0)
    WIRE.reset()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    message = await chat.send(text)
    while chat._sync._coalescer.pending:  # the last frame's timer (sleeping costs no CPU)
        await asyncio.sleep(0.002)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    final = len(json.dumps(message.model_dump(mode="json"), separators=(",", ":")))
    times = WIRE.frame_times
    stream = times[-1] - times[0] if len(times) > 1 else 0.0
    kinds = {kind: list(entry) for kind, entry in WIRE.kinds.items()}  # later runs add to WIRE
    wire = Wire(WIRE.messages, WIRE.bytes, WIRE.frames, list(times), kinds)
    if message.status.type != "complete":
        raise RuntimeError(f"the benchmark run did not complete: {message.status!r}")
    return RunStats(cpu, wall, wire, final, stream)


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def fmt_bytes(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:,.1f} MB"
    if n >= 1e3:
        return f"{n / 1e3:,.1f} KB"
    return f"{n:,.0f} B"
