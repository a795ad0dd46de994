"""Kernel cost per chunk while a 1 MB tool-call argument text streams.

A table component's props (``openai_server.table_args``) stream in 64-character
chunks through the accumulator (incremental parse, ``args`` set per chunk)
and the widget's frame path (``FrameCoalescer`` with ``ops_for_browser``,
one frame per 32 chunks, as a batch of reads gathers). The step then ends:
``Accumulator.finish``, the message's snapshot for the browser
(``message_for_browser``) and the history the model reads on each of three
later steps (``to_openai_messages``).

Targets: the cost of a chunk stays flat as the text grows (the last tenth of
the chunks against the first tenth), and 10x the props (100 KB -> 1 MB) costs
at most 12x in total, the step's end included.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_streaming_args.py``
"""

from __future__ import annotations

import json
import time
from typing import Any

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from _results import update_section
from ipygenui.messages import Message, TextPart
from ipygenui.models.base import ToolCallDelta
from ipygenui.models.history import to_openai_messages
from ipygenui.runtime._loop.accumulator import Accumulator
from ipygenui.widget._protocol import message_for_browser, ops_for_browser
from ipygenui.widget._sync import FrameCoalescer
from openai_server import table_args

CHUNK = 64
FRAME_EVERY = 32  # chunks per frame
LATER_STEPS = 3  # history builds after the step (each later step sends it again)
REPEATS = 3
ROWS_1MB = 22_500  # about 1 MB of argument text
ROWS_100KB = ROWS_1MB // 10


class _Timer:
    def cancel(self) -> None:
        pass


def stream(text: str) -> tuple[list[float], float, float]:
    """Stream ``text`` as one call's arguments; return the CPU seconds of each
    chunk, of the whole stream and of the step's end."""
    message = Message(role="assistant")
    user = Message(role="user", parts=[TextPart(text="show the table")])
    acc = Accumulator(message, tools={})
    frames: list[Any] = []
    coalescer = FrameCoalescer(
        frames.append,
        lambda delay, fn: _Timer(),
        time.monotonic,
        prepare=lambda mid, ops: ops_for_browser(ops, message),
    )
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    per_chunk: list[float] = []
    clock = time.process_time
    start = clock()
    for n, chunk in enumerate(chunks):
        t0 = clock()
        delta = ToolCallDelta(0, id="call_1", name="show_component_Table", arguments=chunk)
        if n:
            delta = ToolCallDelta(0, arguments=chunk)
        coalescer.add(message.id, acc.apply(delta))
        if n % FRAME_EVERY == FRAME_EVERY - 1:
            coalescer.flush()
        per_chunk.append(clock() - t0)
    t_end = clock()
    coalescer.add(message.id, acc.finish())
    coalescer.flush()
    message_for_browser(message)  # the step's snapshot
    for _ in range(LATER_STEPS):
        to_openai_messages([user, message])
    done = clock()
    return per_chunk, done - start, done - t_end


def best(text: str) -> tuple[list[float], float, float]:
    runs = [stream(text) for _ in range(REPEATS)]
    total = min(r[1] for r in runs)
    end = min(r[2] for r in runs)
    per_chunk = [min(r[0][i] for r in runs) for i in range(len(runs[0][0]))]
    return per_chunk, total, end


def main() -> None:
    big = json.dumps(table_args(ROWS_1MB))
    small = json.dumps(table_args(ROWS_100KB))
    per_chunk, total_big, end_big = best(big)
    tenth = len(per_chunk) // 10
    first = sum(per_chunk[:tenth]) / tenth
    last = sum(per_chunk[-tenth:]) / tenth
    ratio = last / first
    _, total_small, end_small = best(small)
    growth = total_big / total_small
    lines = [
        f"| {len(small):,} | {len(small) // CHUNK + 1:,} | {total_small * 1000:.1f} ms "
        f"| {end_small * 1000:.1f} ms |",
        f"| {len(big):,} | {len(per_chunk):,} | {total_big * 1000:.1f} ms "
        f"| {end_big * 1000:.1f} ms |",
    ]
    verdict = [
        f"- per chunk at 1 MB: first tenth {first * 1e6:.1f} us, last tenth {last * 1e6:.1f} us "
        f"({ratio:.2f}x; target: flat, <= 1.5x): {'met' if ratio <= 1.5 else 'NOT met'}",
        f"- 10x the props costs {growth:.1f}x in total (target <= 12x): "
        f"{'met' if growth <= 12 else 'NOT met'}",
    ]
    print("\n".join(lines + verdict))
    body = "\n".join(
        [
            f"One tool call's arguments (table props) streamed in {CHUNK}-character chunks",
            "through the accumulator and the widget's frame path (one frame per",
            f"{FRAME_EVERY} chunks); then the step's end: `finish`, the snapshot for the",
            f"browser and the model's history on {LATER_STEPS} later steps. CPU time",
            f"(`time.process_time`), best of {REPEATS}.",
            "",
            "| argument chars | chunks | total | of which the step's end |",
            "|---:|---:|---:|---:|",
            *lines,
            "",
            *verdict,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_streaming_args.py`",
        ]
    )
    update_section("bench_streaming_args", body)


if __name__ == "__main__":
    main()
