"""Kernel CPU of one 2,000-token reply through gu.AGUIAgent vs OpenAIModel.

Both servers run in processes of their own, so only the kernel's side is
counted: the local OpenAI-compatible server (tests/openai_server.py) streams
2,000 text tokens, one SSE frame each; a minimal AG-UI server
(benchmarks/_agui_server.py) streams the same tokens as 2,000
TEXT_MESSAGE_CONTENT events. Each run is a whole ``Runtime.send`` (request,
stream, parsing, the accumulator, thread events), on a fresh runtime. CPU
time (``time.process_time``), best of 5 after a warm-up, both in the same
process one after the other.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_agui.py``
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

import ipygenui as gu
from _paths import ROOT
from _results import update_section
from openai_server import Reply

TOKENS = 2_000
REPEATS = 5
WORDS = [f"w{i % 10}. " for i in range(TOKENS)]
TEXT = "".join(WORDS)


def start(command: list[str]) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("PORT "):
        server.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return server, int(line.split()[1])


async def measure(run: Callable[[], Awaitable[str]]) -> float:
    assert await run() == TEXT  # warm up: connection, imports, caches
    best = float("inf")
    for _ in range(REPEATS):
        begin = time.process_time()
        text = await run()
        best = min(best, time.process_time() - begin)
        assert text == TEXT
    return best


async def main_async(openai_port: int, agui_port: int) -> list[tuple[str, float]]:
    client = openai.AsyncOpenAI(
        base_url=f"http://127.0.0.1:{openai_port}/v1", api_key="bench", max_retries=0
    )
    model = gu.OpenAIModel("bench", client=client)
    agent = gu.AGUIAgent(f"http://127.0.0.1:{agui_port}/")

    async def through_openai() -> str:
        return (await gu.Runtime(model=model).send("go")).text

    async def through_agui() -> str:
        return (await gu.Runtime(agent=agent, model=model).send("go")).text

    results = []
    for label, run in (("OpenAIModel", through_openai), ("AGUIAgent", through_agui)):
        seconds = await measure(run)
        results.append((label, seconds))
        print(f"{label}: {seconds * 1000:.0f} ms CPU for {TOKENS:,} tokens", flush=True)
    await client.close()
    return results


def main() -> None:
    reply = Reply(text=TEXT, chunk_size=len(WORDS[0]))
    assert sum(1 for _ in reply.chunks()) >= TOKENS
    spec = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)  # noqa: SIM115
    with spec:
        json.dump(asdict(reply), spec)
    openai_server, openai_port = start(
        [sys.executable, str(ROOT / "tests" / "openai_server.py"), "--reply", spec.name]
    )
    agui_server, agui_port = start(
        [sys.executable, str(ROOT / "benchmarks" / "_agui_server.py"), "--tokens", str(TOKENS)]
    )
    try:
        results = asyncio.run(main_async(openai_port, agui_port))
    finally:
        for server in (openai_server, agui_server):
            server.terminate()
            server.wait(10)
    (_, openai_s), (_, agui_s) = results
    ratio = f"- AGUIAgent costs {agui_s / openai_s:.2f}x the kernel CPU of OpenAIModel"
    print(ratio)
    body = "\n".join(
        [
            f"The same {TOKENS:,}-token text reply (one SSE frame per token) through a whole",
            "`Runtime.send`, each server in a process of its own. Kernel CPU",
            f"(`time.process_time`), best of {REPEATS} after a warm-up, same run.",
            "",
            "| step source | CPU per reply |",
            "|---|---:|",
            *(f"| {label} | {seconds * 1000:.0f} ms |" for label, seconds in results),
            "",
            ratio,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_agui.py`",
        ]
    )
    update_section("bench_agui", body)


if __name__ == "__main__":
    main()
