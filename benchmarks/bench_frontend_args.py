"""Frontend: frame cost while a tool call's arguments stream.

The widget's real view code (``js/src`` unbundled, in jsdom under Node, see
``bench_frontend_args.mjs``) plays the frames of one assistant message whose
tool call streams its arguments, made by the kernel's own Accumulator and
FrameCoalescer (``ops_for_browser`` names a component call's component).
Each frame is applied and rendered at once (animation frames run by hand)
and timed: script and DOM work, no layout (jsdom has none).

- a plain tool whose argument text is 1 MB (rows of a table), in frames of
  about 1 KB; the same with a tenth of the rows;
- the built-in Table showing 1,000 rows as they stream, in frames of about
  200 characters; the same with a tenth of the rows.

Targets: per-frame time flat (the last frames cost what the first do) and ten
times the props costing at most 12x in total.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_frontend_args.py``
(``--src DIR`` measures another copy of ``js/src``, e.g. an older commit's).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from _results import update_section
from ipygenui.messages import Message, Running
from ipygenui.models.base import ToolCallDelta
from ipygenui.runtime._loop.accumulator import Accumulator
from ipygenui.widget._protocol import ops_for_browser
from ipygenui.widget._sync import FrameCoalescer

HERE = Path(__file__).parent
SCRIPT = HERE / "bench_frontend_args.mjs"
CHUNK = 50  # characters per model delta
EDGE = 20  # frames compared at the start and at the end


class _NoTimer:
    def cancel(self) -> None:
        pass


def rows_text(n: int) -> str:
    rows = [
        {"id": i, "name": f"row {i}", "city": "Paris" if i % 3 else "Lyon", "score": i * 1.5}
        for i in range(n)
    ]
    return json.dumps({"_status_message": "saving the rows", "rows": rows})


def rows_for(size: int) -> int:
    """Rows whose argument text is about ``size`` characters."""
    per_row = len(rows_text(1000)) / 1000
    return max(1, round(size / per_row))


def scenario(
    tool_name: str, text: str, frame_chars: int, specs: list[dict[str, Any]]
) -> dict[str, Any]:
    """The chat's traits, the message's first snapshot and the frames of the stream."""
    message = Message(role="assistant", status=Running())
    first = message.model_dump(mode="json")
    frames: list[dict[str, Any]] = []
    coalescer = FrameCoalescer(
        frames.append,
        lambda _d, _fn: _NoTimer(),
        lambda: 0.0,
        prepare=lambda _mid, ops: ops_for_browser(ops, message),
    )
    accumulator = Accumulator(message, {})
    per_frame = max(1, frame_chars // CHUNK)
    pieces = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    for i, piece in enumerate(pieces):
        first_delta = i == 0
        delta = ToolCallDelta(
            index=0,
            id="call_bench" if first_delta else None,
            name=tool_name if first_delta else None,
            arguments=piece,
        )
        coalescer.add(message.id, accumulator.apply(delta))
        if (i + 1) % per_frame == 0:
            coalescer.flush()
    coalescer.add(message.id, accumulator.finish())
    coalescer.flush()
    chat = {
        "messages": ["IPY_MODEL_m0"],
        "phase": "thinking",
        "running": True,
        "suggestions": [],
        "model_name": "bench",
        "offline": False,
        "human_tools": [],
        "component_specs": specs,
        "component_outputs": {},
    }
    return {
        "chat": chat,
        "children": [{"id": "m0", "message": first, "rev": 0}],
        "frames": frames,
        "message_id": message.id,
    }


def play(case: dict[str, Any], src: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.json"
        path.write_text(json.dumps(case), encoding="utf-8")
        cmd = ["node", str(SCRIPT), str(path), *([str(src)] if src else [])]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    result["frames"] = len(case["frames"])
    return result


def summary(label: str, small: dict[str, Any], large: dict[str, Any], size: str) -> list[str]:
    # The last frame completes the call (its arguments are printed only when
    # Details opens, timed apart: "opening Details").
    times = large["times"][:-1]
    first = statistics.median(times[:EDGE])
    last = statistics.median(times[-EDGE:])
    ratio = sum(large["times"]) / sum(small["times"])
    flat = last <= 2 * first + 0.05
    return [
        f"- {label}, {size}, {large['frames']} frames: first {EDGE} frames p50 {first:.3f} ms, "
        f"last {EDGE} frames p50 {last:.3f} ms, max {max(times):.2f} ms "
        f"(target: flat): {'met' if flat else 'NOT met'}; the completing frame "
        f"{large['times'][-1]:.1f} ms (target <= 50 ms): "
        f"{'met' if large['times'][-1] <= 50 else 'NOT met'}, "
        f"{large['args_chars_closed']:,} characters printed while Details is closed; "
        f"opening Details prints {large['args_chars_shown']:,} characters in "
        f"{large['open_ms']:.0f} ms",
        f"- {label}, total {sum(large['times']):.0f} ms against {sum(small['times']):.0f} ms for a "
        f"tenth of the props ({small['frames']} frames): {ratio:.1f}x (target at most 12x): "
        f"{'met' if ratio <= 12 else 'NOT met'}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", type=Path, help="the js/src folder to measure")
    parser.add_argument("--no-write", action="store_true", help="print only")
    options = parser.parse_args()
    wall = time.perf_counter()
    load = os.getloadavg()
    table_spec = [{"name": "Table", "kind": "builtin", "builtin": "table"}]
    big = rows_for(1_000_000)
    lines: list[str] = []
    plain = {}
    for n in (big // 10, big):
        plain[n] = play(scenario("save_rows", rows_text(n), 1_000, []), options.src)
    text_size = len(rows_text(big))
    lines += summary("plain tool card", plain[big // 10], plain[big], f"{text_size / 1e6:.2f} MB")
    table = {}
    for n in (100, 1_000):
        table[n] = play(
            scenario("show_component_Table", rows_text(n), 200, table_spec), options.src
        )
    lines += summary(
        "Table component",
        table[100],
        table[1_000],
        f"1,000 rows ({len(rows_text(1000)) / 1e3:.0f} KB)",
    )
    shown = table[1_000]["table_rows"]
    lines.append(f"- Table rows in the DOM at the end: {shown:,} (expected 1,000)")
    print("\n".join(lines))
    wall = time.perf_counter() - wall
    if options.no_write:
        return
    body = "\n".join(
        [
            "The widget's view code (`js/src`, unbundled) in jsdom under Node, fake anywidget",
            "model; one assistant message whose tool call streams its arguments, in frames",
            "made by the kernel's own Accumulator and FrameCoalescer. A frame is timed from",
            "its arrival to the rendered DOM (script and DOM work; jsdom does no layout).",
            f"Load average at the start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"
            " on 2 shared cores.",
            "",
            *lines,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_frontend_args.py`"
            f" ({wall:.0f} s)",
        ]
    )
    update_section("bench_frontend_args", body)


if __name__ == "__main__":
    main()
