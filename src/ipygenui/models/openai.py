"""OpenAIModel: streaming chat completions from any OpenAI-compatible server.

The official ``openai`` async client does auth, base URL and typed HTTP
errors. Retries are ours (the client we make has ``max_retries=0``), so the
chat can say what it waits for: "Rate limited by http://...: retrying in
118 s", and, while a request gets no byte, "No answer from http://... for
30 s" (``_retries.py``, ``waits.py``). A ``Retry-After`` beyond ``max_retry_wait`` is an error
at once, not an hour of "Thinking…". Our client's timeouts are
:data:`DEFAULT_TIMEOUT` (the client's own default waits 600 s per attempt).
A client you pass is used as it is (its own retries and timeouts).
The clients we make use the ``aiohttp`` transport (``openai[aiohttp]``) when
it is installed: it reads what arrived in one go, where the default HTTP
stack parses and awaits each SSE frame on its own (a third less kernel CPU
for a fast provider, see benchmarks/bench_paced.py).

The stream itself is read raw (``with_streaming_response``) and each SSE
``data:`` frame decoded with ``json.loads``: iterating the client's typed
stream builds a pydantic object per frame, which costs several times
more CPU on the kernel's event loop (see benchmarks/bench_openai_ingest.py).
``typed_stream=True`` keeps the typed path for comparing a server's quirks.
The deltas decoded from one network read go to the loop as one batch
(``stream_batches``), so a burst of frames costs one patch per part.

Nothing ends silently: a stream without a finish reason, a dropped
connection, a timeout, an HTTP error after the retries or an error frame
raises :class:`~ipygenui.models.base.ModelError` with a message
a user can read, worded the same on both paths; the loop keeps the text
streamed so far. tests/openai_corpus/ holds the streams of real servers
(their quirks, their in-stream errors) both paths are tried against.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import importlib
import json
import os
import ssl
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai

from .._internal.loop_clients import LoopClients
from ._retries import Retries
from .base import (
    PROVIDER_DATA,
    REASONING,
    BatchStreaming,
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
from .waits import SilenceWatch, retry_after, seconds_text
from .waits import unless_cancelled as _unless_cancelled

__all__ = ["DEFAULT_TIMEOUT", "OpenAIModel"]

DEFAULT_TIMEOUT = openai.Timeout(120.0, connect=10.0, write=30.0, pool=30.0)
"""Timeouts of the clients OpenAIModel makes: 10 s to connect, 120 s without a
byte (waiting for the first one included). A local server loading a model or
a reasoning model can be silent for a minute or more; the chat says so after
``silence_notice`` seconds, and Stop works at any time. Raise it with
``timeout=`` for slower servers."""


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

_SMALL_READ = 4096
_READ_PAUSE = 0.012
"""Seconds to wait (the socket unread) after a read smaller than _SMALL_READ
bytes: below the widget's frame interval (1/30 s), which paces what the browser
sees anyway, and long enough for a stream of 2,000 frames a second to bring
about two dozen per read (benchmarks/bench_paced.py; 4 ms cost about two
points more of a core in an interleaved run)."""

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


_WIRE_CALL_FIELDS = ("extra_content",)
"""Tool call fields a provider's data may put back on the wire (Gemini's
``extra_content.google.thought_signature``)."""


def _vendor_strings(value: Any) -> dict[str, dict[str, str]]:
    """``extra_content`` as providers send it, ``{vendor: {field: text}}``:
    anything else in it (an integer signature, a nested blob) is dropped."""
    if not isinstance(value, dict):
        return {}
    typed = {
        vendor: {k: v for k, v in fields.items() if isinstance(k, str) and isinstance(v, str)}
        for vendor, fields in value.items()
        if isinstance(vendor, str) and isinstance(fields, dict)
    }
    return {vendor: fields for vendor, fields in typed.items() if fields}


def _http_client() -> Any:
    """The aiohttp transport for a client we make; None (the default one) without aiohttp."""
    try:
        return openai.DefaultAioHttpClient(verify=_tls_context())
    except RuntimeError:  # openai's "install the aiohttp extra"
        return None


@functools.cache
def _tls_context() -> ssl.SSLContext | bool:
    """One TLS context for all our clients: loading the CA bundle costs ~0.1 s
    of CPU, and a client is made per event loop."""
    for name in ("httpx2", "httpx"):  # the HTTP library of openai>=3, of older versions
        with contextlib.suppress(ImportError, AttributeError):
            context: ssl.SSLContext = importlib.import_module(name).create_ssl_context()
            return context
    return True


class OpenAIModel(BatchStreaming):
    """A chat model behind an OpenAI-compatible API (OpenAI, Ollama, vLLM, LM Studio).

    ``request_options`` go into every request (``temperature=0``,
    ``parallel_tool_calls=True``, ``max_completion_tokens=...``). Usage is
    requested with ``stream_options={"include_usage": True}``; pass
    ``stream_options=None`` for a server that refuses it.

    Waiting: ``timeout`` (seconds, or an ``openai.Timeout``) configures the
    client we make (default :data:`DEFAULT_TIMEOUT`) or, with a given
    ``client``, every request. ``max_retries`` retries a refused request
    (HTTP 408, 409, 429, 5xx, no connection) after the server's
    ``Retry-After`` or a backoff, saying so in the chat; default 2, or 0 with
    a given client (it retries by itself: give it ``max_retries=0`` and us
    ``max_retries=N`` to see its retries). A ``Retry-After`` longer than
    ``max_retry_wait`` seconds fails at once with a clear error.
    ``silence_notice``: seconds without a byte before the chat says
    "No answer from ... for N s".

    Provider data: what a provider wants back with a call (Gemini's
    ``extra_content`` thought signature) or a step (DeepSeek's
    ``reasoning_content``) is kept on the thread's parts under
    ``provider_key`` (default ``"openai-compatible:<base_url>"``) and sent back
    only to a model with the same key, never to another provider.
    ``send_reasoning_content``: None (default) sends an assistant tool-call
    message's ``reasoning_content`` when this provider streamed it in that
    field; False never.
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
        timeout: float | openai.Timeout | None = None,
        max_retries: int | None = None,
        max_retry_wait: float = 120.0,
        silence_notice: float = 10.0,
        provider_key: str | None = None,
        send_reasoning_content: bool | None = None,
        **request_options: Any,
    ) -> None:
        if max_retries is not None and (not isinstance(max_retries, int) or max_retries < 0):
            raise ValueError(f"max_retries must be a whole number >= 0, got {max_retries!r}")
        if not max_retry_wait >= 0 or not silence_notice > 0:
            raise ValueError("max_retry_wait must be >= 0 and silence_notice > 0 (seconds)")
        if client is None and api_key is None and not os.environ.get("OPENAI_API_KEY"):
            if base_url is None:
                raise ValueError(
                    "OpenAIModel needs an API key: pass api_key=... or set OPENAI_API_KEY "
                    "(or pass base_url=... for a local server that needs none)"
                )
            api_key = "not-needed"  # local servers (Ollama, vLLM) ignore the key
        self.model = model
        self.name = model
        self.spec = f"openai:{model}"
        self.typed_stream = typed_stream
        self.request_options = request_options
        self.max_retries = max_retries if max_retries is not None else (2 if client is None else 0)
        self.max_retry_wait = max_retry_wait
        self.silence_notice = silence_notice
        self._timeout = timeout
        self._client = client
        self._client_options = {
            "base_url": base_url,
            "api_key": api_key,
            "max_retries": 0,  # ours, said aloud (see stream)
            "timeout": DEFAULT_TIMEOUT if timeout is None else timeout,
        }
        self._own_clients: LoopClients[openai.AsyncOpenAI] = LoopClients(
            self._make_client, lambda client: client.close()
        )
        """Ours, one per event loop, closed with its loop, at ``close()`` and at exit."""
        self._pause_reads = False
        if provider_key is None:
            url = str(client.base_url) if client is not None else base_url
            url = url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
            provider_key = f"openai-compatible:{url.rstrip('/')}"
        self.provider_key = provider_key
        self.send_reasoning_content = send_reasoning_content

    def __repr__(self) -> str:
        return f"OpenAIModel({self.model!r}, base_url={str(self.client.base_url)!r})"

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The client: the one given, else one of our own per event loop (an async
        HTTP connection pool cannot be shared across loops)."""
        if self._client is not None:
            return self._client
        return self._own_clients.get()

    def _make_client(self) -> openai.AsyncOpenAI:
        http_client = _http_client()
        options: dict[str, Any] = {**self._client_options, "http_client": http_client}
        # only aiohttp gathers what arrived while we waited into one read: the
        # default transport yields one HTTP chunk per read, so a pause would throttle it
        self._pause_reads = http_client is not None
        return openai.AsyncOpenAI(**options)

    async def aclose(self) -> None:
        """Close the client we made (a later request makes a new one); a client
        you passed is yours to close."""
        await self._own_clients.aclose()

    def close(self) -> None:
        """``aclose()`` from synchronous code (``Runtime.close()`` calls it)."""
        self._own_clients.close()

    def _request_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "stream_options": {"include_usage": True},
            **self.request_options,
            "model": self.model,
            "messages": self._wire_messages(request.messages),
            "stream": True,
        }
        if kwargs["stream_options"] is None:
            del kwargs["stream_options"]
        if self._client is not None and self._timeout is not None:
            kwargs["timeout"] = self._timeout
        if request.tools:  # some servers refuse tool_choice without tools
            kwargs["tools"] = request.tools
            kwargs["tool_choice"] = request.tool_choice
        if request.max_tokens is not None:  # a tool server's sampling limit: the lower one wins
            given = kwargs.get("max_completion_tokens")
            limit = request.max_tokens if given is None else min(given, request.max_tokens)
            kwargs["max_completion_tokens"] = limit
        return kwargs

    def _wire_messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The history as this provider reads it: its own provider data put back
        (``extra_content`` on a call, ``reasoning_content`` on a step), every
        other provider's dropped with the private keys."""
        out = messages
        for i, entry in enumerate(messages):
            calls = entry.get("tool_calls")
            if not calls or (REASONING not in entry and not any(PROVIDER_DATA in c for c in calls)):
                continue
            if out is messages:
                out = list(messages)  # the caller's list stays as it is
            wire = {k: v for k, v in entry.items() if k != REASONING}
            wire["tool_calls"] = [self._wire_call(call) for call in calls]
            texts = [
                r["text"]
                for r in entry.get(REASONING, ())
                if self.send_reasoning_content is not False
                and (r.get("provider_data") or {}).get(self.provider_key, {}).get("field")
                == "reasoning_content"
            ]
            if texts:
                wire["reasoning_content"] = "".join(texts)
            out[i] = wire
        return out

    def _wire_call(self, call: dict[str, Any]) -> dict[str, Any]:
        data = call.get(PROVIDER_DATA)
        if data is None:
            return call
        wire = {k: v for k, v in call.items() if k != PROVIDER_DATA}
        own = data.get(self.provider_key)
        if isinstance(own, dict):
            # only the fields a provider sends back, of their type: a thread file is untrusted
            for name in _WIRE_CALL_FIELDS:
                typed = _vendor_strings(own.get(name))
                if typed:
                    wire[name] = typed
        return wire

    async def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelDelta]]:
        """Stream one reply as batches of deltas (those of one network read);
        raise ModelError on any failure.

        A refused request is retried (up to ``max_retries``) before anything
        streamed; the waits and silences are reported through ``request.status``.
        """
        kwargs = self._request_kwargs(request)
        url = str(self.client.base_url).rstrip("/")
        where = f"{self.name} at {url}"
        cancel = request.cancel
        retries = Retries(self.max_retries, self.max_retry_wait, url, where, request.status, cancel)
        while True:
            state = _StreamState(self.provider_key)
            try:
                async with SilenceWatch(url, self.silence_notice, request.status, cancel) as watch:
                    read = self._typed if self.typed_stream else self._raw
                    async for batch in read(kwargs, cancel, state, watch):
                        yield batch
                break
            except openai.APIStatusError as error:
                code, detail = error.status_code, _error_text(error)
                asked = retry_after(error.response.headers)
                plan = retries.after_status(error, code, asked, detail)
                if plan is None:
                    raise ModelError(
                        f"{where} answered HTTP {code}: {detail}"
                        + _image_hint(code, request.messages)
                    ) from error
            except openai.APIConnectionError as error:
                if isinstance(error, openai.APITimeoutError) and not _refused(error):
                    limit = _read_timeout(self._timeout or self.client.timeout)
                    within = f" in {seconds_text(limit)}" if limit else ""
                    raise ModelError(
                        f"no answer from {where}{within} (the read timeout: set timeout= "
                        "to wait longer)"
                    ) from error
                refused = _connection_refused(error)
                plan = retries.after_connection_error(error, refused, _cause_text(error))
            except ModelError:
                raise
            except _CUTS as caught:
                if cancel.is_set():
                    return  # closing the response on cancel ends the read this way
                if state.finish is not None:
                    break  # cut after the finish reason (before [DONE]): the reply is whole
                cut = caught.cause if isinstance(caught, _CutMidStream) else caught
                kind = "timed out" if "timeout" in type(cut).__name__.lower() else "lost"
                raise ModelError(
                    f"the connection to {where} {kind} mid-stream ({_cause_text(cut)}); "
                    "the reply is incomplete"
                ) from cut
            if not await retries.wait(plan):
                return  # stopped while waiting
        if cancel.is_set():
            return
        if state.finish is None:
            raise ModelError(
                f"the stream from {where} ended without a finish reason "
                "(the connection was probably cut); the reply is incomplete"
            )
        yield [FinishDelta(state.finish)]

    async def _raw(
        self,
        kwargs: dict[str, Any],
        cancel: asyncio.Event,
        state: _StreamState,
        watch: SilenceWatch,
    ) -> AsyncIterator[list[ModelDelta]]:
        create = self.client.chat.completions.with_streaming_response.create
        pause = self._pause_reads and self._client is None
        async with contextlib.AsyncExitStack() as stack:
            # Stop must work before the first byte too (a server that never answers).
            response = await _unless_cancelled(stack.enter_async_context(create(**kwargs)), cancel)
            if response is None:
                return
            watch.heard()
            watcher = asyncio.ensure_future(_close_when_set(cancel, response))
            socket = _socket_of(response) if pause else None
            try:
                buffer = b""
                after_cr = False
                data: list[bytes] = []
                async for raw in response.iter_bytes():
                    watch.heard()
                    if cancel.is_set():
                        return
                    if after_cr and raw[:1] == b"\n":
                        raw = raw[1:]  # the LF of a CRLF cut between two reads
                    text = buffer + raw
                    after_cr = False
                    if b"\r" in text:  # CRLF or lone CR line ends, read as LF
                        after_cr = text.endswith(b"\r")
                        text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                    lines = text.split(b"\n")
                    buffer = lines.pop()
                    batch: list[ModelDelta] = []
                    done = False
                    try:
                        for line in lines:
                            if line.startswith(b"data:"):
                                data.append(line[6:] if line[5:6] == b" " else line[5:])
                            elif not line and data:  # a blank line ends the event
                                payload = data[0] if len(data) == 1 else b"\n".join(data)
                                data = []
                                if payload == b"[DONE]":
                                    done = True
                                    break
                                batch.extend(state.deltas(_decode(payload)))
                            # other fields (event:, id:, comments) carry nothing we use
                    except ModelError:
                        if batch:  # what came before a bad frame is kept
                            yield batch
                        raise
                    except (AttributeError, TypeError) as error:
                        if batch:
                            yield batch
                        raise ModelError(_odd_shape(error)) from error
                    if batch:
                        yield batch
                    if done:
                        return
                    if pause and len(raw) < _SMALL_READ:
                        # A trickle (a paced provider): each read would carry one
                        # frame and cost a trip through the HTTP stack. Waiting a
                        # moment lets the next read bring several as one batch.
                        await _wait_for_more(socket)
            finally:
                watcher.cancel()

    async def _typed(
        self,
        kwargs: dict[str, Any],
        cancel: asyncio.Event,
        state: _StreamState,
        watch: SilenceWatch,
    ) -> AsyncIterator[list[ModelDelta]]:
        stream = await _unless_cancelled(self.client.chat.completions.create(**kwargs), cancel)
        if stream is None:
            return
        watch.heard()
        watcher = asyncio.ensure_future(_close_when_set(cancel, stream))
        try:
            async for chunk in stream:
                watch.heard()
                if cancel.is_set():
                    return
                if not isinstance(chunk, openai.BaseModel):  # a list, a string, null
                    raise ModelError(_not_an_object(chunk))
                # warnings=False: a field of another type than the client's own
                # (content as blocks) is read below, not warned about per frame
                batch = list(state.deltas(chunk.to_dict(warnings=False)))
                if batch:
                    yield batch
        except openai.APIStatusError:
            raise
        except openai.APIConnectionError as error:
            # the connection failed after the reply began: a cut, as on the raw
            # path, never "could not reach" (nor a retry streaming the text twice)
            raise _CutMidStream(error.__cause__ or error) from error
        except openai.APIError as error:
            # the client raises an error frame (Groq's "event: error", a chunk's
            # "error") as a bare APIError: worded as the raw path words it
            raise ModelError(_stream_error(error.body or error.message)) from error
        except json.JSONDecodeError as error:
            raise ModelError(_not_json(error.doc)) from error
        except (AttributeError, TypeError) as error:
            raise ModelError(_odd_shape(error)) from error
        finally:
            watcher.cancel()
            await stream.close()


class _CutMidStream(Exception):
    """The typed stream's connection failed after the reply began (the client
    raises that as the ``APIConnectionError`` of a request that never reached)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


_CUTS: tuple[type[BaseException], ...] = (*_TRANSPORT_ERRORS, _CutMidStream)
"""What ends a stream that had begun: the reply so far is kept, the error says so."""


def _socket_of(response: Any) -> asyncio.Transport | None:
    """The TCP transport under a response of the aiohttp transport; None when the
    client is another (its internals are not ours: any change just gives None)."""
    stream = getattr(getattr(response, "http_response", None), "stream", None)
    stream = getattr(stream, "_stream", stream)  # httpx's wrapper around the transport's
    connection = getattr(getattr(stream, "_aiohttp_response", None), "connection", None)
    transport = getattr(connection, "transport", None)
    needed = ("pause_reading", "resume_reading", "is_reading", "is_closing")
    return transport if all(hasattr(transport, name) for name in needed) else None


async def _wait_for_more(socket: asyncio.Transport | None) -> None:
    """Wait _READ_PAUSE with the socket unread, so what arrives meanwhile comes
    in one read: without the pause the event loop would still wake for every
    TCP packet (one per SSE frame at a paced provider's rate)."""
    if socket is None or not socket.is_reading() or socket.is_closing():
        # another client, or aiohttp's own flow control paused it: just wait
        await asyncio.sleep(_READ_PAUSE)
        return
    socket.pause_reading()
    try:
        await asyncio.sleep(_READ_PAUSE)
    finally:
        if not socket.is_closing():
            socket.resume_reading()


class _StreamState:
    """Turns chunk dicts into deltas, remembering what the stream said."""

    __slots__ = ("finish", "ids", "index_map", "key", "reasoning_data", "saw_tool_call")

    def __init__(self, key: str = "openai-compatible") -> None:
        self.key = key
        self.reasoning_data = {key: {"field": "reasoning_content"}}
        self.finish: FinishReason | None = None
        self.saw_tool_call = False
        self.ids: dict[int, str] = {}  # our index -> call id
        self.index_map: dict[int, int] = {}  # server index -> our index

    def deltas(self, chunk: dict[str, Any]) -> Iterator[ModelDelta]:
        error = chunk.get("error")
        if error:  # even beside choices (OpenRouter's finish_reason "error"); null is none
            raise ModelError(_stream_error(error))
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue  # n > 1 is not supported: only the first choice counts
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content")
            if reasoning:  # DeepSeek wants it back with the step's tool calls
                yield ReasoningDelta(_text(reasoning), self.reasoning_data)
            else:
                reasoning = delta.get("reasoning")
                if reasoning:
                    yield ReasoningDelta(_text(reasoning))
            content = delta.get("content")
            if content:
                if content.__class__ is str:
                    yield TextDelta(content)
                else:  # Mistral's reasoning models: a list of thinking and text blocks
                    yield from _content_blocks(content)
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
            yield _usage_delta(usage)

    def _tool_call(self, call: dict[str, Any]) -> ToolCallDelta:
        self.saw_tool_call = True
        server_index = call.get("index")
        call_id = call.get("id")
        function = call.get("function") or {}
        if server_index is None:  # some servers omit it: one call per id
            server_index = len(self.index_map) if call_id else max(self.index_map, default=0)
        index = self.index_map.get(server_index)
        if index is None:
            index = len(self.ids)
            self.index_map[server_index] = index
        elif call_id and self.ids.get(index, call_id) != call_id:
            if function.get("name"):  # a new call (servers that send every call as 0)
                index = len(self.ids)
                self.index_map[server_index] = index
            else:  # a fragment of this call under a fresh id (Kimi, LM Studio)
                call_id = None
        if call_id:
            self.ids[index] = call_id
        extra = call.get("extra_content")  # Gemini: the thought signature, wanted back
        name = function.get("name")
        arguments = function.get("arguments") or ""
        if arguments.__class__ is not str:  # an object, not its JSON text
            arguments = json.dumps(arguments)
        return ToolCallDelta(
            index=index,
            id=_text(call_id) if call_id else None,
            name=_text(name) if name else None,
            arguments=arguments,
            provider_data={self.key: {"extra_content": extra}} if extra else None,
        )


def _text(value: Any) -> str:
    """A field that must be text; anything else is a chunk of the wrong shape."""
    if value.__class__ is not str:
        raise TypeError(f"expected text, got {value!r:.80}")
    return str(value)


def _content_blocks(blocks: Any) -> Iterator[ModelDelta]:
    """A delta's content given as blocks (Mistral's reasoning models): thinking
    blocks hold text parts, text blocks the answer."""
    if not isinstance(blocks, list):
        raise TypeError(f"content is {blocks!r:.80}")
    for block in blocks:
        kind = block.get("type")
        if kind == "thinking":
            texts = [_text(part.get("text") or "") for part in block.get("thinking") or ()]
            if any(texts):
                yield ReasoningDelta("".join(texts))
        elif kind == "text" and block.get("text"):
            yield TextDelta(_text(block["text"]))


def _usage_delta(usage: dict[str, Any]) -> UsageDelta:
    """A chunk's ``usage``: OpenAI's token details, or DeepSeek's cache hit count."""
    prompt = usage.get("prompt_tokens_details") or {}
    completion = usage.get("completion_tokens_details") or {}
    cached = _count(prompt, "cached_tokens") or _count(usage, "prompt_cache_hit_tokens")
    return UsageDelta(
        input_tokens=_count(usage, "prompt_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        reasoning_tokens=_count(completion, "reasoning_tokens"),
        cache_read_tokens=cached,
        cache_write_tokens=_count(prompt, "cache_write_tokens"),
    )


def _count(fields: Any, key: str) -> int:
    """A token count a server reported, 0 when absent or not a count."""
    value = fields.get(key) if isinstance(fields, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _decode(payload: bytes) -> dict[str, Any]:
    try:
        chunk = json.loads(payload)
    except ValueError as error:
        raise ModelError(_not_json(payload[:200].decode("utf-8", "replace"))) from error
    if not isinstance(chunk, dict):
        raise ModelError(_not_an_object(chunk))
    return chunk


async def _close_when_set(cancel: asyncio.Event, response: Any) -> None:
    """Close the response as soon as the run is cancelled, even mid-read."""
    await cancel.wait()
    with contextlib.suppress(Exception):
        await response.close()


def _refused(error: BaseException) -> bool:
    """A "timeout" caused by a refused connection (the aiohttp transport maps
    every connection error to a connect timeout): a connection error then."""
    cause = error.__cause__ or error.__context__
    seen = 0
    while cause is not None and seen < 8:
        if isinstance(cause, OSError) and not isinstance(cause, TimeoutError):
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def _connection_refused(error: BaseException) -> bool:
    """Whether a connection error comes from a refused connection (nothing
    listens there), found along its chain of causes."""
    cause: BaseException | None = error
    for _ in range(10):
        if cause is None:
            return False
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        ):
            return True
        nested = getattr(cause, "exceptions", None)  # anyio's group of attempts
        if isinstance(nested, tuple) and any(_connection_refused(e) for e in nested[:4]):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _read_timeout(timeout: Any) -> float | None:
    """The seconds a client waits for a byte, from a number or an ``openai.Timeout``."""
    if isinstance(timeout, int | float):
        return float(timeout)
    read = getattr(timeout, "read", None)
    return float(read) if isinstance(read, int | float) else None


def _not_json(frame: str) -> str:
    return f"the server sent a frame that is not JSON: {frame[:200]!r}"


def _not_an_object(value: Any) -> str:
    return f"the server sent a frame that is not a JSON object: {value!r:.200}"


def _odd_shape(error: BaseException) -> str:
    return f"the server sent a chunk of an unexpected shape ({error})"


def _stream_error(error: Any) -> str:
    """An error the server sent inside the stream, in its words and with its
    code when that adds something ("... (tool_use_failed)")."""
    text = _message(error)
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, str) and code and code not in text:
        text = f"{text} ({code})"
    return f"the server reported an error mid-stream: {text}"


def _message(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def _image_hint(status: int, messages: list[dict[str, Any]]) -> str:
    """What a refused request with an image probably means, in the user's words."""
    if not 400 <= status < 500 or status == 429:
        return ""
    for entry in messages:
        content = entry.get("content")
        if isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "image_url" for p in content
        ):
            return (
                " (the request carried an image attachment: this model may not accept "
                "images; use a vision model, or send the message without the image)"
            )
    return ""


def _error_text(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]  # Gemini's OpenAI-compatible endpoint: [{"error": {...}}]
    if isinstance(body, dict):
        inner = body.get("error", body)
        return _message(inner)
    return error.message


def _cause_text(error: BaseException) -> str:
    """The error and its cause as one phrase ("Connection error: All connection
    attempts failed"), without the end punctuation of either."""
    cause = error.__cause__ or error.__context__
    text = (str(error) or type(error).__name__).rstrip(" .")
    if cause is not None and str(cause) and str(cause) not in text:
        text = f"{text}: {str(cause).rstrip(' .')}"
    return text
