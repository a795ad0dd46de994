"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

Real HTTP/1.1 on 127.0.0.1 (plain asyncio, chunked transfer), real SSE frames
``data: {...}\\n\\n`` ending with ``data: [DONE]\\n\\n``, scripted replies, and
failures on purpose: an HTTP status (500, 429 with ``retry-after-ms`` or a
given ``Retry-After``), a connection dropped mid-stream or just before
``[DONE]``, a slow stream, a stream that ends without a finish reason or
without ``[DONE]``, an error frame, a server that never answers and one that
stalls mid-stream (both hold the connection until the client closes it, which
``client_closed`` records). A recorded stream (tests/openai_corpus/) is
served byte for byte, whole or in small pieces (``Reply.sse_body``). Every
request body is recorded so tests can assert on what reached the model.

In a test (``tests/conftest.py`` registers the fixture below)::

    from openai_server import Reply

    async def test_x(openai_server):
        openai_server.script(Reply.text("Hello"))
        model = OpenAIModel("m", base_url=openai_server.base_url, api_key="k")

From a benchmark, in another process (so its CPU is not counted)::

    python tests/openai_server.py --reply reply.json   # prints "PORT <n>", serves
                                                       # that reply to every request
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

from _local_server import LocalServer, send_json

__all__ = ["OpenAIServer", "Reply", "ToolCall", "openai_server", "table_args"]


@dataclass
class ToolCall:
    name: str
    arguments: str | dict[str, Any]
    id: str | None = None
    extra_content: dict[str, Any] | None = None
    """Sent on the call's first chunk, as Gemini's OpenAI-compatible endpoint
    sends ``{"google": {"thought_signature": "..."}}``."""

    def text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass
class Reply:
    """One scripted answer to one request."""

    text: str = ""
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"  # vLLM/DeepSeek; Ollama uses "reasoning"
    tool_calls: list[ToolCall] = field(default_factory=list)
    chunk_size: int = 4
    """Characters of text / reasoning / arguments per SSE frame."""
    interleave: bool = False
    """Alternate the argument pieces of parallel calls frame by frame."""
    finish_reason: str | None = "auto"
    """"auto": tool_calls if there are calls else stop; None: send none."""
    usage: tuple[int, int] | None = (11, 22)
    status: int = 200
    """A non-200 status answers with an OpenAI-style error body and no stream."""
    error_message: str | None = None
    """The error body's message of a non-200 answer (default "scripted failure <status>")."""
    retry_after: str | None = None
    """The ``Retry-After`` header of a non-200 answer (a 429 without it gets
    ``retry-after-ms: 5``)."""
    hang: bool = False
    """Read the request, then answer nothing until the client closes the connection."""
    stall_after: int | None = None
    """Send this many frames, then nothing more until the client closes the connection."""
    cut_before_done: bool = False
    """Abort the TCP connection after the last frame, before ``[DONE]``."""
    drop_after: int | None = None
    """Abort the TCP connection after this many frames."""
    error_after: int | None = None
    """Send an OpenAI error frame after this many frames, then end."""
    delay: float = 0.0
    """Seconds to wait before each frame (pacing: 1 / tokens per second); with
    ``sse_body``, before each of its frames, each written on its own."""
    send_done: bool = True
    garbage_after: int | None = None
    """Send a frame that is not JSON after this many frames."""
    index_all_zero: bool = False
    """Quirk of some servers: every parallel call streamed with index 0."""
    model: str = "test-model"
    sse_body: bytes | None = None
    """Sent verbatim as the stream's body (a recorded stream, tests/openai_corpus/)
    in place of the frames above; ``cut_before_done`` aborts after it."""
    piece_size: int | None = None
    """With ``sse_body``: HTTP chunks of this many bytes, each written and flushed
    on its own (a stream cut into small pieces); None: one chunk."""
    refuse_missing: str | None = None
    """Answer HTTP 400 with the provider's real error body, as it does, when the
    request's history breaks its rule: ``"thought_signature"`` (Gemini: a tool
    call without its ``extra_content``), ``"reasoning_content"`` (DeepSeek: an
    assistant tool-call message without it), ``"openai"`` (OpenAI: a field it does
    not know on an assistant message or a call, such as another provider's
    ``extra_content``, or a call left without its tool message). See
    :data:`PROVIDER_ERRORS`."""

    @classmethod
    def text_reply(cls, text: str, **options: Any) -> Reply:
        return cls(text=text, **options)

    @classmethod
    def calls(cls, *calls: ToolCall, **options: Any) -> Reply:
        return cls(tool_calls=list(calls), **options)

    def chunks(self, include_usage: bool = True) -> Iterator[dict[str, Any]]:
        """The chat.completion.chunk objects of this reply, in order."""
        size = max(1, self.chunk_size)
        yield self._chunk({"role": "assistant", "content": ""})
        for piece in _pieces(self.reasoning, size):
            yield self._chunk({self.reasoning_field: piece})
        for piece in _pieces(self.text, size):
            yield self._chunk({"content": piece})
        streams = []
        for index, call in enumerate(self.tool_calls):
            wire_index = 0 if self.index_all_zero else index
            head = {
                "index": wire_index,
                "id": call.id or f"call_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            if call.extra_content is not None:
                head["extra_content"] = call.extra_content
            bodies = [
                {"index": wire_index, "function": {"arguments": piece}}
                for piece in _pieces(call.text(), size)
            ]
            streams.append([head, *bodies])
        if self.interleave:
            longest = max((len(s) for s in streams), default=0)
            for step in range(longest):
                for stream in streams:
                    if step < len(stream):
                        yield self._chunk({"tool_calls": [stream[step]]})
        else:
            for stream in streams:
                for part in stream:
                    yield self._chunk({"tool_calls": [part]})
        reason = self.finish_reason
        if reason == "auto":
            reason = "tool_calls" if self.tool_calls else "stop"
        if reason is not None:
            yield self._chunk({}, finish_reason=reason)
        if include_usage and self.usage is not None:
            prompt, completion = self.usage
            yield {
                **self._head(),
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }

    def completion(self) -> dict[str, Any]:
        """The same reply as one non-streaming chat.completion object."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id or f"call_{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.text()},
                }
                for i, call in enumerate(self.tool_calls)
            ]
        reason = self.finish_reason
        if reason == "auto" or reason is None:
            reason = "tool_calls" if self.tool_calls else "stop"
        prompt, completion = self.usage or (0, 0)
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    def _head(self) -> dict[str, Any]:
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
        }

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            **self._head(),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }


PROVIDER_ERRORS: dict[str, Any] = {
    # Gemini's OpenAI-compatible endpoint, body as quoted in
    # github.com/manthanabc/paws/issues/103 (a JSON list holding the error)
    "thought_signature": [
        {
            "error": {
                "code": 400,
                "message": "Function call is missing a thought_signature in functionCall parts. "
                "This is required for tools to work correctly, and missing thought_signature "
                "may lead to degraded model performance. Additional data, function call "
                "`default_api:{name}` , position {position}. Please refer to "
                "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
                "status": "INVALID_ARGUMENT",
            }
        }
    ],
    # DeepSeek, body as quoted in github.com/deepseek-ai/DeepSeek-V3/issues/1053
    "reasoning_content": {
        "error": {
            "message": "Missing `reasoning_content` field in the assistant message at message "
            "index {position}. For more information, please refer to "
            "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    },
    # OpenAI, bodies as quoted in github.com/microsoft/autogen/issues/1174 (a field
    # it does not know) and github.com/aliasrobotics/cai/issues/111 (a call unanswered)
    "openai_unexpected": {
        "error": {
            "message": "Additional properties are not allowed ('{name}' was unexpected) - "
            "'messages.{position}'",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    },
    "openai_unanswered": {
        "error": {
            "message": "An assistant message with 'tool_calls' must be followed by tool "
            "messages responding to each 'tool_call_id'. The following tool_call_ids did "
            "not have response messages: {name}",
            "type": "invalid_request_error",
            "param": "messages.[{position}].role",
            "code": None,
        }
    },
}
"""The 400 bodies real providers answer when a request drops their data (or,
for OpenAI, carries another provider's or leaves a call unanswered)."""

_OPENAI_ASSISTANT_FIELDS = {"role", "content", "tool_calls", "name", "refusal", "audio"}
_OPENAI_CALL_FIELDS = {"id", "type", "function"}


def _openai_refusal(messages: list[dict[str, Any]]) -> Any:
    """OpenAI's 400 for the first assistant message it would refuse, or None."""

    def body(rule: str, name: str, position: int) -> Any:
        text = json.dumps(PROVIDER_ERRORS[rule]).replace("{name}", name)
        return json.loads(text.replace("{position}", str(position)))

    for position, entry in enumerate(messages):
        if entry.get("role") != "assistant":
            continue
        calls = entry.get("tool_calls") or []
        for extra in sorted(set(entry) - _OPENAI_ASSISTANT_FIELDS):
            return body("openai_unexpected", extra, position)
        for call in calls:
            for extra in sorted(set(call) - _OPENAI_CALL_FIELDS):
                return body("openai_unexpected", extra, position)
        answered = set()
        for later in messages[position + 1 :]:
            if later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        missing = [c["id"] for c in calls if c.get("id") not in answered]
        if missing:
            return body("openai_unanswered", ", ".join(missing), position)
    return None


def provider_refusal(rule: str, messages: list[dict[str, Any]]) -> Any:
    """The provider's 400 body when ``messages`` break ``rule``; None when kept."""
    if rule == "openai":
        return _openai_refusal(messages)
    for position, entry in enumerate(messages):
        calls = entry.get("tool_calls") or []
        if entry.get("role") != "assistant" or not calls:
            continue
        if rule == "reasoning_content" and not entry.get("reasoning_content"):
            body = json.dumps(PROVIDER_ERRORS[rule]).replace("{position}", str(position))
            return json.loads(body)
        for call in calls:
            signature = ((call.get("extra_content") or {}).get("google") or {}).get(
                "thought_signature"
            )
            if rule == "thought_signature" and not signature:
                body = json.dumps(PROVIDER_ERRORS[rule])
                body = body.replace("{name}", call["function"]["name"])
                return json.loads(body.replace("{position}", str(position)))
    return None


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def table_args(rows: int) -> dict[str, Any]:
    """Props of a table component with ``rows`` rows of constant width (about
    40 characters each), so the text grows exactly with the row count."""
    return {
        "_status_message": "showing the table",
        "_completion_status_message": "showed the table",
        "title": "Scores",
        "rows": [
            {"id": 100_000 + i, "name": f"u{i % 1000:03d}", "score": 10 + i % 90}
            for i in range(rows)
        ],
    }


def _frame(payload: bytes) -> bytes:
    """One HTTP chunk holding one SSE frame."""
    body = b"data: " + payload + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(body), body)


class OpenAIServer(LocalServer):
    """The server, run on its own event loop in a background thread."""

    name = "openai"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.requests: list[dict[str, Any]] = []
        """Every request body received, in order (including refused ones)."""
        self.default: Reply | None = None
        """Served when the script is empty (else: HTTP 500 "no scripted reply")."""
        self.client_closed = threading.Event()
        """Set when a client closed a connection held open (``hang``, ``stall_after``)."""
        self._replies: deque[Reply] = deque()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies; each request takes the next one."""
        self._replies.extend(replies)

    async def _respond(
        self,
        method: str,
        path: str,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; False when the connection must not be reused."""
        if method != "POST" or not path.endswith("/chat/completions"):
            await send_json(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            return True
        try:
            request = json.loads(body)
        except ValueError:
            await send_json(writer, 400, {"error": {"message": "body is not JSON"}})
            return True
        self.requests.append(request)
        reply = self._replies.popleft() if self._replies else self.default
        if reply is None:
            await send_json(writer, 500, {"error": {"message": "no scripted reply"}})
            return True
        refusal = reply.refuse_missing and provider_refusal(
            reply.refuse_missing, request.get("messages") or []
        )
        if refusal:
            await send_json(writer, 400, refusal)
            return True
        if reply.hang:
            await self._hold(reader)
            return False
        if reply.status != 200:
            extra = {"retry-after-ms": "5"} if reply.status == 429 else {}
            if reply.retry_after is not None:
                extra = {"retry-after": reply.retry_after}
            message = reply.error_message or f"scripted failure {reply.status}"
            await send_json(
                writer, reply.status, {"error": {"message": message, "type": "test"}}, extra
            )
            return True
        if not request.get("stream"):
            await send_json(writer, 200, reply.completion())
            return True
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        return await self._stream(reply, include_usage, reader, writer)

    async def _hold(self, reader: asyncio.StreamReader) -> None:
        """Say nothing more until the client closes the connection."""
        with contextlib.suppress(ConnectionError):
            while await reader.read(65536):
                pass
        self.client_closed.set()

    async def _stream(
        self,
        reply: Reply,
        include_usage: bool,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
            b"transfer-encoding: chunked\r\nx-request-id: req_test\r\n\r\n"
        )
        if reply.sse_body is not None:
            return await _send_body(reply, reply.sse_body, writer)
        for sent, chunk in enumerate(reply.chunks(include_usage)):  # sent: frames so far
            if reply.drop_after is not None and sent >= reply.drop_after:
                await writer.drain()
                writer.transport.abort()  # the connection dies mid-stream
                return False
            if reply.stall_after is not None and sent >= reply.stall_after:
                await writer.drain()
                await self._hold(reader)
                return False
            if reply.error_after is not None and sent >= reply.error_after:
                error = {"error": {"message": "scripted stream error", "type": "server_error"}}
                writer.write(_frame(json.dumps(error).encode()))
                break
            if sent == reply.garbage_after:
                writer.write(_frame(b"{not json"))
            if reply.delay:
                await writer.drain()
                await asyncio.sleep(reply.delay)
            writer.write(_frame(json.dumps(chunk, separators=(",", ":")).encode()))
            if sent % 64 == 63:
                await writer.drain()
        else:
            if reply.cut_before_done:
                await writer.drain()
                writer.transport.abort()
                return False
            if reply.send_done:
                writer.write(_frame(b"[DONE]"))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


async def _send_body(reply: Reply, body: bytes, writer: asyncio.StreamWriter) -> bool:
    """Write a recorded stream's bytes as they are, in pieces of ``reply.piece_size``
    (or frame by frame, ``reply.delay`` apart)."""
    size = reply.piece_size or max(1, len(body))
    pieces = [body[start : start + size] for start in range(0, len(body), size)]
    if reply.delay:
        pieces = [frame for frame in re.split(rb"(?<=\n\n)", body) if frame]
    for piece in pieces:
        if reply.delay:
            await asyncio.sleep(reply.delay)
        writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        await writer.drain()
    if reply.cut_before_done:
        writer.transport.abort()
        return False
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    return True


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started server, stopped after the test."""
    with OpenAIServer() as server:
        yield server


def reply_to_json(reply: Reply) -> str:
    return json.dumps(asdict(reply))


def reply_from_json(text: str) -> Reply:
    data = json.loads(text)
    data["tool_calls"] = [ToolCall(**call) for call in data.get("tool_calls", [])]
    if data.get("usage") is not None:
        data["usage"] = tuple(data["usage"])
    return Reply(**data)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reply", help="a JSON file holding the Reply served to every request")
    args = parser.parse_args(argv)
    server = OpenAIServer(port=args.port)
    if args.reply:
        with open(args.reply, encoding="utf-8") as handle:
            server.default = reply_from_json(handle.read())
    else:
        server.default = Reply(text="Hello from the local test server.")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve_forever())


if __name__ == "__main__":
    main(sys.argv[1:])
