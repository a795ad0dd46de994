"""Kernel CPU to ingest one streamed component call through OpenAIModel.

The local OpenAI-compatible server (tests/openai_server.py) runs in a separate
process so only the client side is counted. It streams a show_component_Table
call whose props hold a 1,000-row table, 4 characters of arguments per SSE
frame. We compare CPU time (``time.process_time``) of:

- merely iterating the official client's typed stream (no work on the chunks);
- ``OpenAIModel`` (raw frames + json.loads) yielding every delta;
- the same plus feeding every argument delta to the partial JSON parser and
  reading the value (the loop's whole ingest work);
- ``OpenAIModel(typed_stream=True)``, for comparison.

Target (issue 4): OpenAIModel costs less than merely iterating the typed stream.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_openai_ingest.py``
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict

import openai

from _paths import ROOT
from _results import update_section
from ipygenui._internal.partial_json import PartialJSONParser
from ipygenui.models.base import ModelRequest, ToolCallDelta, delta_batches
from ipygenui.models.openai import OpenAIModel
from openai_server import Reply, ToolCall, table_args

ROWS = 1_000
REPEATS = 5
MESSAGES = [{"role": "user", "content": "show me the scores"}]


def start_server(reply: Reply) -> tuple[subprocess.Popen[str], str]:
    spec = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)  # noqa: SIM115
    with spec:
        json.dump(asdict(reply), spec)
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "openai_server.py"), "--reply", spec.name],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("PORT "):
        server.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return server, f"http://127.0.0.1:{line.split()[1]}/v1"


async def measure(run: Callable[[], Awaitable[int]]) -> tuple[float, int]:
    await run()  # warm up: connection, imports, caches
    best = float("inf")
    count = 0
    for _ in range(REPEATS):
        start = time.process_time()
        count = await run()
        best = min(best, time.process_time() - start)
    return best, count


async def main_async(base_url: str) -> list[tuple[str, float, int]]:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    request_args = {"model": "bench", "messages": MESSAGES}

    async def typed_iteration() -> int:
        stream = await client.chat.completions.create(**request_args, stream=True)  # type: ignore[call-overload]
        count = 0
        async for _chunk in stream:
            count += 1
        return count

    def model_run(model: OpenAIModel, parse: bool) -> Callable[[], Awaitable[int]]:
        async def run() -> int:
            parser = PartialJSONParser()
            count = 0
            async for delta in model.stream(ModelRequest(messages=MESSAGES)):
                count += 1
                if parse and isinstance(delta, ToolCallDelta) and delta.arguments:
                    parser.feed(delta.arguments)
                    parser.value  # noqa: B018
            if parse:
                assert parser.value == table_args(ROWS)
            return count

        return run

    def batch_run(model: OpenAIModel, parse: bool) -> Callable[[], Awaitable[int]]:
        async def run() -> int:
            parser = PartialJSONParser()
            count = 0
            batches = delta_batches(model, ModelRequest(messages=MESSAGES))
            assert batches is not None
            async for batch in batches:
                count += len(batch)
                if parse:  # as the accumulator does: one feed and one read per batch
                    text = "".join(d.arguments for d in batch if isinstance(d, ToolCallDelta))
                    if text:
                        parser.feed(text)
                        parser.value  # noqa: B018
            if parse:
                assert parser.value == table_args(ROWS)
            return count

        return run

    own = OpenAIModel("bench", base_url=base_url, api_key="bench")  # the aiohttp transport
    raw = OpenAIModel("bench", client=client)
    typed = OpenAIModel("bench", client=client, typed_stream=True)
    results = []
    for label, run in (
        ("official client, typed stream, iterate only", typed_iteration),
        ("OpenAIModel (raw frames + json.loads), every delta", model_run(raw, False)),
        ("OpenAIModel + partial JSON parse of every delta", model_run(raw, True)),
        ("OpenAIModel(typed_stream=True), every delta", model_run(typed, False)),
        ("OpenAIModel, its own aiohttp client, every batch (ours)", batch_run(own, False)),
        (
            "OpenAIModel, its own aiohttp client + partial JSON parse per batch",
            batch_run(own, True),
        ),
    ):
        seconds, count = await measure(run)
        results.append((label, seconds, count))
        print(f"{label}: {seconds * 1000:.0f} ms CPU ({count:,} items)", flush=True)
    await client.close()
    await own.client.close()
    return results


def main() -> None:
    reply = Reply.calls(ToolCall("show_component_Table", table_args(ROWS)), chunk_size=4)
    frames = sum(1 for _ in reply.chunks())
    server, base_url = start_server(reply)
    try:
        results = asyncio.run(main_async(base_url))
    finally:
        server.terminate()
        server.wait(10)
    typed_s = results[0][1]
    before_s = results[1][1]
    ours_s = results[-2][1]
    verdict = (
        f"- OpenAIModel costs {ours_s / typed_s:.2f}x the CPU of merely iterating the typed "
        f"stream (target < 1): {'met' if ours_s < typed_s else 'NOT met'}; its batches over "
        f"its own aiohttp client cost {ours_s / before_s:.2f}x reading one delta at a time "
        "over the default transport (the second row)"
    )
    print(verdict)
    lines = [
        f"| {label} | {seconds * 1000:.0f} ms | {count:,} |" for label, seconds, count in results
    ]
    body = "\n".join(
        [
            f"One show_component_Table call, {ROWS:,}-row props, 4 characters of arguments per",
            f"SSE frame ({frames:,} frames), from the local server in another process. Kernel",
            f"CPU (`time.process_time`), best of {REPEATS} after a warm-up.",
            "",
            "| path | CPU | chunks / deltas |",
            "|---|---:|---:|",
            *lines,
            "",
            verdict,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_openai_ingest.py`",
        ]
    )
    update_section("bench_openai_ingest", body)


if __name__ == "__main__":
    main()
