"""Reply CPU against thread length (issue 36, item 2): the history built once.

A headless ``gu.Runtime`` on the scripted model (no persistence, no pacing)
answers replies in threads of 100, 1,000 and 4,000 messages, all in one run.
Each thread is grown from a few real turns (every fourth one calls a tool), copied
with fresh ids, so it holds what a long chat holds: user messages, replies
with model steps, tool calls and their results. Then each thread answers
``REPLIES`` more user messages, and the benchmark reports the median kernel CPU
(``time.process_time``) of one reply: ``send`` to the reply's end, history
built, streamed, usage and events. The scripted model encodes nothing, so
no payload encoding is in the figure. Target: the 4,000-message reply costs at
most 2x the 100-message one.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_history.py``
(``--profile`` prints the top of a cProfile of the 4,000-message replies).
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import pstats
import statistics
import sys
import time
from typing import Any

from _results import update_section
from ipygenui import Runtime, tool
from ipygenui.messages import new_id
from ipygenui.models.base import ModelRequest
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply

SIZES = (100, 1_000, 4_000)
REPLIES = 30
TARGET = 2.0


@tool
def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temperature_c": 21, "sky": "sunny"}


def _script(request: ModelRequest) -> ScriptedReply:
    last = request.messages[-1]
    if last.get("role") == "tool":
        return ScriptedReply(text="It is sunny in Paris, 21 degrees.")
    text = last.get("content") or ""
    if isinstance(text, str) and "weather" in text:
        return ScriptedReply(tool_calls=[ScriptedCall("get_weather", {"city": "Paris"})])
    return ScriptedReply(text="A reply of a few words, as a model writes them. " * 3)


def _text(turn: int) -> str:
    return f"What's the weather in Paris? ({turn})" if turn % 4 == 0 else f"Hello, turn {turn}"


def _fresh(message: Any) -> Any:
    copy = message.model_copy(deep=True)
    copy.id = new_id("msg")
    for part in copy.tool_calls:
        part.tool_call_id = new_id("call")
    return copy


async def _runtime(size: int) -> Runtime:
    runtime = Runtime(model=ScriptedModel(_script), tools=[get_weather])
    for n in range(8):
        await runtime.send(_text(n))
    seed = list(runtime.thread.messages)
    while len(runtime.thread.messages) < size:
        runtime.thread.messages.extend(_fresh(m) for m in seed)
    del runtime.thread.messages[size:]
    if runtime.thread.messages[-1].role == "user":
        runtime.thread.messages.pop()
    return runtime


async def _replies(runtime: Runtime, count: int) -> list[float]:
    times = []
    for n in range(count):
        gc.collect()
        start = time.process_time()
        message = await runtime.send(f"Hello again, turn {n}")
        times.append(time.process_time() - start)
        if message.status.type != "complete":
            raise RuntimeError(f"reply {n} did not complete: {message.status!r}")
    return times


async def measure() -> dict[int, float]:
    out = {}
    for size in SIZES:
        runtime = await _runtime(size)
        await _replies(runtime, 3)  # warm-up
        out[size] = statistics.median(await _replies(runtime, REPLIES))
    return out


async def profile() -> None:
    runtime = await _runtime(SIZES[-1])
    await _replies(runtime, 3)
    profiler = cProfile.Profile()
    profiler.enable()
    await _replies(runtime, REPLIES)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)


def main() -> int:
    if "--profile" in sys.argv:
        asyncio.run(profile())
        return 0
    results = asyncio.run(measure())
    base = results[SIZES[0]]
    lines = [
        f"- reply CPU at {size:,} messages: {cpu * 1000:.2f} ms ({cpu / base:.2f}x the {SIZES[0]})"
        for size, cpu in results.items()
    ]
    ratio = results[SIZES[-1]] / base
    verdict = "met" if ratio <= TARGET else "missed"
    lines.append(
        f"- ratio {SIZES[-1]:,}/{SIZES[0]}: {ratio:.2f}x (target <= {TARGET:.0f}x: {verdict})"
    )
    body = "\n".join(lines)
    print(body)
    head = (
        f"Headless runtime, scripted model, no persistence: median kernel CPU of "
        f"{REPLIES} replies (`time.process_time`, no payload encoding).\n\n"
    )
    update_section("bench_history", head + body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
