"""The local OpenAI-compatible server (``tests/openai_server.py``), set up for benchmarks.

Two additions to the test server:
- it answers by the conversation: a request whose last message is a tool
  result gets a one-line text reply, any other the benchmark's reply (so a
  run with a component call ends after its second step, however often the
  benchmark repeats it);
- ``rate`` paces the stream on a deadline (frame i leaves at i / rate
  seconds, however long a sleep overshoots), and every frame's wall-clock
  send time and the content length it completes are recorded.

Run as a separate process so its CPU is not counted with the kernel's::

    python benchmarks/_server.py --rows 1000 [--rate 2000]   # prints "PORT <n>"
    python benchmarks/_server.py --text-tokens 2000          # a text reply
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from openai_server import OpenAIServer, Reply, ToolCall, _frame, table_args

TABLE_TOOL = "show_component_Table"


def table_reply(rows: int, chunk: int = 4) -> Reply:
    """A reply calling the Table component with ``rows`` rows."""
    return Reply.calls(ToolCall(TABLE_TOOL, table_args(rows), id="call_table"), chunk_size=chunk)


def words(count: int) -> str:
    """``count`` plain words (one token each, no markdown), space separated."""
    return "".join(f"w{i} " for i in range(count))


class BenchServer(OpenAIServer):
    """An :class:`OpenAIServer` that serves ``reply`` paced at ``rate`` frames/s."""

    def __init__(self, reply: Reply, rate: float | None = None, port: int = 0) -> None:
        super().__init__(port=port)
        self.reply = reply
        self.rate = rate
        self.sent: list[tuple[float, int]] = []
        """(wall-clock time a frame was written, content characters streamed so far)."""

    async def _respond(
        self,
        method: str,
        path: str,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            messages = json.loads(body).get("messages") or [{}]
            answered = messages[-1].get("role") == "tool"
            self.default = Reply.text_reply("Done.") if answered else self.reply
        return await super()._respond(method, path, body, reader, writer)

    async def _stream(
        self,
        reply: Reply,
        include_usage: bool,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if reply is not self.reply:
            return await super()._stream(reply, include_usage, reader, writer)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        self.sent = []
        streamed = 0
        start = time.perf_counter()
        for index, chunk in enumerate(reply.chunks(include_usage)):
            if self.rate:
                ahead = start + index / self.rate - time.perf_counter()
                if ahead > 0:
                    await writer.drain()
                    await asyncio.sleep(ahead)
            streamed += _content_chars(chunk)
            writer.write(_frame(json.dumps(chunk, separators=(",", ":")).encode()))
            if self.rate or index % 64 == 63:
                await writer.drain()
            self.sent.append((time.time(), streamed))
        writer.write(_frame(b"[DONE]"))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


def _content_chars(chunk: dict[str, Any]) -> int:
    total = 0
    for choice in chunk.get("choices") or ():
        delta = choice.get("delta") or {}
        total += len(delta.get("content") or "")
        for call in delta.get("tool_calls") or ():
            total += len((call.get("function") or {}).get("arguments") or "")
    return total


@contextlib.contextmanager
def server_process(
    rows: int, rate: float | None = None, text_tokens: int | None = None
) -> Iterator[str]:
    """Serve the ``rows``-row table reply (or, with ``text_tokens``, a text reply of
    that many tokens) from another process; yields its base URL."""
    cmd = [sys.executable, __file__, "--rows", str(rows)]
    if rate:
        cmd += ["--rate", str(rate)]
    if text_tokens:
        cmd += ["--text-tokens", str(text_tokens)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"benchmark server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def main() -> None:
    parser = argparse.ArgumentParser(description="benchmark OpenAI-compatible server")
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=None, help="frames per second")
    parser.add_argument("--text-tokens", type=int, default=None, help="a text reply instead")
    args = parser.parse_args()
    reply = table_reply(args.rows)
    if args.text_tokens:
        reply = Reply.text_reply(words(args.text_tokens), chunk_size=len("w0000 "))
    server = BenchServer(reply, rate=args.rate)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve_forever())


if __name__ == "__main__":
    main()
