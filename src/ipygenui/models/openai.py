"""OpenAIModel: streaming chat completions from any OpenAI-compatible server.

The official ``openai`` async client does auth, base URL, retries and typed
HTTP errors. The stream itself is read raw (``with_streaming_response``) and
each SSE ``data:`` frame decoded with ``json.loads``: iterating the client's
typed stream builds a pydantic object per frame, which costs several times
more CPU on the kernel's event loop (see benchmarks/bench_openai_ingest.py).
``typed_stream=True`` keeps the typed path for comparing a server's quirks.

Nothing ends silently: a stream without a finish reason, a dropped
connection, a timeout, an HTTP error after the client's own retries or an
error frame raises :class:`~ipygenui.models.base.ModelError` with a message
a user can read; the loop keeps the text streamed so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai

from .base import (
    FinishDelta,
    FinishReason,
    ModelDelta,
    ModelError,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)

__all__ = ["OpenAIModel"]


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Errors the HTTP library raises while a body streams (openai>=3 uses
    httpx2, older versions httpx); the client wraps only the request itself."""
    errors: list[type[BaseException]] = [openai.OpenAIError, OSError, asyncio.TimeoutError]
    for module_name in ("httpx2", "httpx"):
        with contextlib.suppress(ImportError):
            module = __import__(module_name)
            errors.append(module.HTTPError)
            errors.append(module.StreamError)
    return tuple(errors)


_TRANSPORT_ERRORS = _transport_errors()

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


class OpenAIModel:
    """A chat model behind an OpenAI-compatible API (OpenAI, Ollama, vLLM, LM Studio).

    ``request_options`` go into every request (``temperature=0``,
    ``parallel_tool_calls=True``, ``max_completion_tokens=...``). Usage is
    requested with ``stream_options={"include_usage": True}``; pass
    ``stream_options=None`` for a server that refuses it.
    """

    offline = False

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        *,
        typed_stream: bool = False,
        **request_options: Any,
    ) -> None:
        if client is None and api_key is None and not os.environ.get("OPENAI_API_KEY"):
            if base_url is None:
                raise ValueError(
                    "OpenAIModel needs an API key: pass api_key=... or set OPENAI_API_KEY "
                    "(or pass base_url=... for a local server that needs none)"
                )
            api_key = "not-needed"  # local servers (Ollama, vLLM) ignore the key
        self.model = model
        self.name = model
        self.typed_stream = typed_stream
        self.request_options = request_options
        self._client = client
        self._client_options = {"base_url": base_url, "api_key": api_key}
        self._own_client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAIModel({self.model!r}, base_url={str(self.client.base_url)!r})"

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The client: the one given, else one of our own per event loop (an async
        HTTP connection pool cannot be shared across loops)."""
        if self._client is not None:
            return self._client
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self._own_client is None or (loop is not None and loop is not self._client_loop):
            self._own_client = openai.AsyncOpenAI(**self._client_options)  # type: ignore[arg-type]
            self._client_loop = loop
        return self._own_client

    def _request_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "stream_options": {"include_usage": True},
            **self.request_options,
            "model": self.model,
            "messages": request.messages,
            "stream": True,
        }
        if kwargs["stream_options"] is None:
            del kwargs["stream_options"]
        if request.tools:  # some servers refuse tool_choice without tools
            kwargs["tools"] = request.tools
            kwargs["tool_choice"] = request.tool_choice
        return kwargs

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        """Stream one reply as deltas; raise ModelError on any failure."""
        state = _StreamState()
        kwargs = self._request_kwargs(request)
        where = f"{self.name} at {self.client.base_url}"
        try:
            if self.typed_stream:
                async for delta in self._typed(kwargs, request.cancel, state):
                    yield delta
            else:
                async for delta in self._raw(kwargs, request.cancel, state):
                    yield delta
        except openai.APIStatusError as error:
            raise ModelError(
                f"{where} answered HTTP {error.status_code}: {_error_text(error)}"
            ) from error
        except openai.APITimeoutError as error:
            raise ModelError(f"{where} timed out: no answer in time") from error
        except openai.APIConnectionError as error:
            raise ModelError(f"could not reach {where}: {_cause_text(error)}") from error
        except ModelError:
            raise
        except _TRANSPORT_ERRORS as error:
            if request.cancel.is_set():
                return  # closing the response on cancel ends the read this way
            kind = "timed out" if "timeout" in type(error).__name__.lower() else "lost"
            raise ModelError(
                f"the connection to {where} {kind} mid-stream ({_cause_text(error)}); "
                "the reply is incomplete"
            ) from error
        if request.cancel.is_set():
            return
        if state.finish is None:
            raise ModelError(
                f"the stream from {where} ended without a finish reason "
                "(the connection was probably cut); the reply is incomplete"
            )
        yield FinishDelta(state.finish)

    async def _raw(
        self, kwargs: dict[str, Any], cancel: asyncio.Event, state: _StreamState
    ) -> AsyncIterator[ModelDelta]:
        create = self.client.chat.completions.with_streaming_response.create
        async with create(**kwargs) as response:
            watcher = asyncio.ensure_future(_close_when_set(cancel, response))
            try:
                buffer = b""
                data: list[bytes] = []
                async for raw in response.iter_bytes():
                    if cancel.is_set():
                        return
                    lines = (buffer + raw).split(b"\n")
                    buffer = lines.pop()
                    for line in lines:
                        if line.endswith(b"\r"):
                            line = line[:-1]
                        if line.startswith(b"data:"):
                            data.append(line[6:] if line[5:6] == b" " else line[5:])
                        elif not line and data:  # a blank line ends the event
                            payload = data[0] if len(data) == 1 else b"\n".join(data)
                            data = []
                            if payload == b"[DONE]":
                                return
                            for delta in state.deltas(_decode(payload)):
                                yield delta
                        # other fields (event:, id:, comments) carry nothing we use
            finally:
                watcher.cancel()

    async def _typed(
        self, kwargs: dict[str, Any], cancel: asyncio.Event, state: _StreamState
    ) -> AsyncIterator[ModelDelta]:
        stream = await self.client.chat.completions.create(**kwargs)
        watcher = asyncio.ensure_future(_close_when_set(cancel, stream))
        try:
            async for chunk in stream:
                if cancel.is_set():
                    return
                for delta in state.deltas(chunk.to_dict()):
                    yield delta
        finally:
            watcher.cancel()
            await stream.close()


class _StreamState:
    """Turns chunk dicts into deltas, remembering what the stream said."""

    __slots__ = ("finish", "ids", "index_map", "saw_tool_call")

    def __init__(self) -> None:
        self.finish: FinishReason | None = None
        self.saw_tool_call = False
        self.ids: dict[int, str] = {}  # our index -> call id
        self.index_map: dict[int, int] = {}  # server index -> our index

    def deltas(self, chunk: dict[str, Any]) -> Iterator[ModelDelta]:
        if "error" in chunk and not chunk.get("choices"):
            raise ModelError(f"the server reported an error mid-stream: {_message(chunk['error'])}")
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue  # n > 1 is not supported: only the first choice counts
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                yield ReasoningDelta(reasoning)
            content = delta.get("content")
            if content:
                yield TextDelta(content)
            calls = delta.get("tool_calls")
            if calls:
                for call in calls:
                    yield self._tool_call(call)
            reason = choice.get("finish_reason")
            if reason:
                self.finish = _FINISH.get(reason, "other")
                # some servers (older Ollama, vLLM parsers) say "stop" after tool calls
                if self.finish == "stop" and self.saw_tool_call:
                    self.finish = "tool_calls"
        usage = chunk.get("usage")
        if usage:
            yield UsageDelta(
                input_tokens=usage.get("prompt_tokens") or 0,
                output_tokens=usage.get("completion_tokens") or 0,
            )

    def _tool_call(self, call: dict[str, Any]) -> ToolCallDelta:
        self.saw_tool_call = True
        server_index = call.get("index")
        call_id = call.get("id")
        function = call.get("function") or {}
        if server_index is None:  # some servers omit it: one call per id
            server_index = len(self.index_map) if call_id else max(self.index_map, default=0)
        index = self.index_map.get(server_index)
        # a new id at a used index is a new call (servers that send every call as 0)
        if index is None or (call_id and self.ids.get(index, call_id) != call_id):
            index = len(self.ids)
            self.index_map[server_index] = index
        if call_id:
            self.ids[index] = call_id
        return ToolCallDelta(
            index=index,
            id=call_id,
            name=function.get("name"),
            arguments=function.get("arguments") or "",
        )


def _decode(payload: bytes) -> dict[str, Any]:
    try:
        chunk = json.loads(payload)
    except ValueError as error:
        shown = payload[:200].decode("utf-8", "replace")
        raise ModelError(f"the server sent a frame that is not JSON: {shown!r}") from error
    if not isinstance(chunk, dict):
        raise ModelError(f"the server sent a frame that is not a JSON object: {chunk!r:.200}")
    return chunk


async def _close_when_set(cancel: asyncio.Event, response: Any) -> None:
    """Close the response as soon as the run is cancelled, even mid-read."""
    await cancel.wait()
    with contextlib.suppress(Exception):
        await response.close()


def _message(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def _error_text(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        return _message(inner)
    return error.message


def _cause_text(error: BaseException) -> str:
    cause = error.__cause__ or error.__context__
    text = str(error) or type(error).__name__
    if cause is not None and str(cause) and str(cause) not in text:
        text = f"{text}: {cause}"
    return text
