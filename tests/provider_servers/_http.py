"""What the three native provider servers share: the scripted turn and the
request handling (the HTTP loop on 127.0.0.1, in a background thread or the
subprocess mode for benchmarks, is ``_local_server.py``'s).

Each server (``anthropic.py``, ``gemini.py``, ``responses.py``) turns a
:class:`Turn` into its provider's real event stream (shapes taken from the
recordings in ``recordings/``, see ``recordings/SOURCES.md``) and checks each
request against the rule its provider enforces, answering HTTP 400 with the
provider's real error body when the request breaks it.
"""

from __future__ import annotations

import abc
import asyncio
import json
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _local_server import LocalServer, send_json

RECORDINGS = Path(__file__).with_name("recordings")


@dataclass
class Call:
    """One tool call the model makes; ``args`` is the JSON text or its value."""

    name: str
    args: str | dict[str, Any]
    id: str | None = None

    def text(self) -> str:
        return self.args if isinstance(self.args, str) else json.dumps(self.args)

    def value(self) -> dict[str, Any]:
        return json.loads(self.args) if isinstance(self.args, str) else self.args


@dataclass
class Turn:
    """One scripted model reply: reasoning, then text, then tool calls."""

    text: str = ""
    reasoning: str = ""
    calls: list[Call] = field(default_factory=list)
    chunk_size: int = 8
    """Characters of reasoning / text / streamed arguments per event."""
    input_tokens: int = 21
    output_tokens: int = 34
    reasoning_tokens: int = 13
    cached_tokens: int = 5
    delay: float = 0.0
    """Seconds to wait before each event (a model's pace), so a client reads
    the stream in several pieces."""

    @classmethod
    def from_json(cls, text: str) -> Turn:
        data = json.loads(text)
        data["calls"] = [Call(**call) for call in data.get("calls", [])]
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), max(1, size)):
        yield text[start : start + size]


def recorded_events(name: str) -> list[dict[str, Any]]:
    """The JSON payloads of the ``data:`` lines of a recording, in order."""
    events = []
    for line in (RECORDINGS / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("data: "):
            events.append(json.loads(line[len("data: ") :]))
    return events


@dataclass
class Answer:
    """A JSON answer (``status``, ``body``) or, when ``frames`` is set, a 200
    ``text/event-stream`` made of those already-encoded SSE frames."""

    status: int = 200
    body: Any = None
    frames: Iterable[bytes] | None = None


class ProviderServer(LocalServer):
    """A provider's HTTP API on 127.0.0.1, on its own loop in a thread."""

    name = "provider"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.requests: list[dict[str, Any]] = []
        """Every request body received, in order (refused ones too)."""
        self.paths: list[str] = []
        self.refusals: list[Any] = []
        """The 400 bodies sent, in order."""
        self.default: Turn | None = None
        """Served when the script is empty."""
        self.after_tools: Turn | None = None
        """When set, served to every request continuing a tool loop (its last
        input is a tool result), so a benchmark's run ends after two steps."""
        self._turns: deque[Turn] = deque()

    @property
    @abc.abstractmethod
    def base_url(self) -> str:
        """What the provider's SDK client takes as its base URL."""

    @abc.abstractmethod
    def answer(self, path: str, request: dict[str, Any], turn: Turn) -> Answer:
        """The answer to one valid-JSON request that has a turn to serve."""

    def continues_tool_loop(self, request: dict[str, Any]) -> bool:
        """Whether ``request``'s last input answers a tool call."""
        return False

    def script(self, *turns: Turn) -> None:
        """Queue turns; each request takes the next one."""
        self._turns.extend(turns)

    # --- HTTP -------------------------------------------------------------------

    async def _respond(
        self,
        method: str,
        path: str,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if method != "POST":
            await send_json(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            return True
        try:
            request = json.loads(body)
        except ValueError:
            await send_json(writer, 400, {"error": {"message": "body is not JSON"}})
            return True
        self.requests.append(request)
        self.paths.append(path)
        turn = self._turns.popleft() if self._turns else self.default
        if self.after_tools is not None and self.continues_tool_loop(request):
            turn = self.after_tools
        if turn is None:
            await send_json(writer, 500, {"error": {"message": "no scripted reply"}})
            return True
        answer = self.answer(path, request, turn)
        if answer.frames is None:
            if answer.status == 400:
                self.refusals.append(answer.body)
            await send_json(writer, answer.status, answer.body)
            return True
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        for sent, frame in enumerate(answer.frames):
            if turn.delay:
                await writer.drain()
                await asyncio.sleep(turn.delay)
            writer.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            if sent % 64 == 63:
                await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True
