"""Memory over a long chat (issue 10, item 10): 1,000 turns on the offline demo model.

A headless ``gu.Runtime`` and a ``gu.Chat`` (over a recording comm, see
``_kernel.py``) each answer 1,000 user messages from the offline
``DemoModel`` (no pacing); every fourth turn asks for the weather, so the
demo calls a ``get_weather`` tool and summarizes its result. After 20 warm-up
turns the benchmark measures, each case in a fresh interpreter:

- the growth of Python's traced memory (``tracemalloc``, started after the
  warm-up, read after a ``gc.collect()``): what the turns left alive;
- the growth of the process's resident memory (another run, no tracemalloc);
- the growth of the thread itself, as its saved JSON (``model_dump_json``).

The chat must keep its thread; anything beyond it is a leak. Target: under
50 MB of growth beyond the thread's JSON.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_memory.py``
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

from _kernel import WIRE, fmt_bytes, install_recording_comm
from _paths import ROOT
from _results import update_section
from ipygenui import DemoModel, Runtime, tool
from ipygenui.widget.chat import Chat

TURNS = 1_000
WARMUP = 20
TARGET_MB = 50


@tool
def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temperature_c": 21, "sky": "sunny"}


def _text(turn: int) -> str:
    return f"What's the weather in Paris? ({turn})" if turn % 4 == 0 else f"Hello, turn {turn}"


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def _turns(case: str, traced: bool) -> dict[str, Any]:
    if case == "chat":
        install_recording_comm()
        chat: Any = Chat(model=DemoModel(delay=0), tools=[get_weather])
        runtime = chat.runtime
    else:
        chat = None
        runtime = Runtime(model=DemoModel(delay=0), tools=[get_weather])

    async def turn(n: int) -> None:
        message = await (chat or runtime).send(_text(n))
        if message.status.type != "complete":
            raise RuntimeError(f"turn {n} did not complete: {message.status!r}")
        if chat is not None:
            while chat._sync._coalescer.pending:  # the last frame's timer
                await asyncio.sleep(0.002)
            WIRE.reset()  # the recording comm's own log is not the chat's memory

    for n in range(WARMUP):
        await turn(n)
    gc.collect()
    thread0 = len(runtime.thread.model_dump_json())
    rss0 = _rss()
    if traced:
        tracemalloc.start(1)
    for n in range(WARMUP, WARMUP + TURNS):
        await turn(n)
    gc.collect()
    result: dict[str, Any] = {
        "thread": len(runtime.thread.model_dump_json()) - thread0,
        "messages": len(runtime.thread.messages),
        "kept_requests": len(runtime.model.requests),  # type: ignore[attr-defined]
    }
    if traced:
        snapshot = tracemalloc.take_snapshot()
        result["traced"] = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        top = snapshot.statistics("filename")[:4]
        result["top"] = [(Path(s.traceback[0].filename).name, s.size) for s in top if s.traceback]
    else:
        result["rss"] = _rss() - rss0
    return result


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    return f"{os.cpu_count()} cores"


def measure(case: str, traced: bool) -> dict[str, Any]:
    """One case in a fresh interpreter (so one run's memory cannot hide another's)."""
    mode = "traced" if traced else "rss"
    out = subprocess.run(
        [sys.executable, __file__, "--child", case, mode],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    lines = []
    worst = 0.0
    for case, label in (("runtime", "`gu.Runtime`"), ("chat", "`gu.Chat` (recording comm)")):
        traced, rss = measure(case, traced=True), measure(case, traced=False)
        beyond = traced["traced"] - traced["thread"]
        worst = max(worst, beyond / 1e6)
        top = ", ".join(f"{name} {fmt_bytes(size)}" for name, size in traced["top"])
        lines.append(
            f"- {label}, {TURNS:,} turns ({traced['messages']:,} messages): traced memory "
            f"+{fmt_bytes(traced['traced'])}, resident memory +{fmt_bytes(rss['rss'])}; "
            f"the thread's JSON grew {fmt_bytes(traced['thread'])}; beyond it: "
            f"**{fmt_bytes(beyond)}** (the model kept {traced['kept_requests']} requests). "
            f"Largest traced holders by file: {top}"
        )
    verdict = "met" if worst < TARGET_MB else "MISSED"
    lines.append(f"- target: under {TARGET_MB} MB beyond the thread: {verdict}")
    print("\n".join(lines))
    body = "\n".join(
        [
            f"{TURNS:,} turns on the offline demo model (no pacing; every fourth turn calls a",
            f"tool), after {WARMUP} warm-up turns, each case in a fresh interpreter: Python's",
            "traced memory still alive after `gc.collect()` (tracemalloc), the resident",
            "memory's growth (another run, without tracemalloc), and the growth of the",
            "thread's own JSON, which the chat must keep. The model's last 10 requests each",
            "hold the whole history (the `history.py` figure). Before the fix the demo model",
            "kept every request: the same run grew resident memory by 434 MB (`gu.Runtime`).",
            f"Machine: {_cpu()}.",
            "",
            *lines,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_memory.py`",
        ]
    )
    update_section("bench_memory", body)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        case, mode = sys.argv[2], sys.argv[3]
        print(json.dumps(asyncio.run(_turns(case, traced=mode == "traced"))))
    else:
        main()
