"""What the local HTTP test servers share (``openai_server.py`` and the native
provider servers in ``provider_servers/``): plain-asyncio HTTP/1.1 on
127.0.0.1, on a free port unless one is given, run on an event loop of its own
in a background thread (a test), or on the current loop in a process of its
own (a benchmark, so the server's CPU is not counted).

A server says what a request gets in ``_respond``; reading requests off a
keep-alive connection, the thread and the shutdown are here.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import threading
from typing import Any, Self


class LocalServer(abc.ABC):
    """An HTTP server on ``host``:``port`` (0: a free port, known once started)."""

    name = "local"
    """Names the server's thread and its start-up failure."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @abc.abstractmethod
    async def _respond(
        self,
        method: str,
        path: str,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; False when the connection must not be reused."""

    # --- lifecycle ------------------------------------------------------------

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"the {self.name} test server did not start")
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and self._server is not None:
            loop.call_soon_threadsafe(self._server.close)
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        self._server = loop.run_until_complete(
            asyncio.start_server(self._handle, self.host, self.port)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            pending = asyncio.all_tasks(loop)  # open keep-alive connections
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    async def serve_forever(self) -> None:
        """Serve on the current loop (the subprocess mode); prints "PORT <n>" first."""
        server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = server.sockets[0].getsockname()[1]
        print(f"PORT {self.port}", flush=True)
        async with server:
            await server.serve_forever()

    # --- HTTP -------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: one request after another
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if not await self._respond(method, path, body, reader, writer):
                    return
        except (ConnectionError, asyncio.CancelledError):
            return  # a client went away, or the server stops with connections open
        finally:
            with contextlib.suppress(Exception):
                writer.close()


async def send_json(
    writer: asyncio.StreamWriter,
    status: int,
    payload: Any,
    extra_headers: dict[str, str] | None = None,
) -> None:
    """One whole JSON answer (the connection stays open for the next request)."""
    body = json.dumps(payload).encode()
    head = (
        f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
    )
    for name, value in (extra_headers or {}).items():
        head += f"{name}: {value}\r\n"
    writer.write(head.encode() + b"\r\n" + body)
    await writer.drain()
