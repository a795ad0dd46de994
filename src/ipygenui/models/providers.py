"""ProviderModel: every provider pydantic-ai speaks, behind our model protocol.

One adapter for Claude (Anthropic Messages), Gemini (the native Gemini API,
``google-gla:``, or Vertex, ``google-vertex:``), the OpenAI Responses API
(``openai-responses:``), Groq, Mistral, Bedrock, DeepSeek, OpenRouter,
Ollama ... : pydantic-ai's direct model-request API
(:func:`pydantic_ai.direct.model_request_stream`) streams one request through
each provider's official SDK, and this module turns its events into our
deltas. It needs the ``ipygenui[providers]`` extra and is imported only when
a ``ProviderModel`` is made (``gu.model("anthropic:...")``).

What a provider wants back on the next request (Anthropic's signed thinking
blocks, Gemini's thought signatures, Responses reasoning items and item ids)
is kept on our parts under this model's ``provider_key``
(``"pydantic-ai:<provider>"``) and given back only to it:
``_provider_messages.py`` says what is kept and how the history is rebuilt.
``openai-responses:`` says each input item's type (``_responses_items.py``),
so a strict server of the Responses API (llama.cpp's) reads the history too.

Like ``OpenAIModel``, retries are ours (the SDKs' are turned off with
``max_retries=0`` in the request settings), so the chat says "Rate limited by
...: retrying in 20 s"; a silent server shows "No answer from ... for N s";
Stop closes the stream at once; every failure is a
:class:`~ipygenui.models.base.ModelError` a user can read.

The stream is read by a task of its own, and the loop takes what it turned
into deltas as one batch (``stream_batches``): the SDKs yield to the event
loop after every event, so without it each token would cost the runtime a
change of its own (benchmarks/bench_native_providers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import inspect
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from .._internal.install_hint import install_hint
from .._internal.loop_clients import LoopClients
from ._retries import Retries
from .base import (
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
from .waits import SilenceWatch

__all__ = ["INSTALL_HINT", "ProviderModel"]

INSTALL_HINT = install_hint("providers")

_ALIASES = {"google-gla": "google", "google-vertex": "google-cloud"}
"""pydantic-ai's older provider names (still what most docs say) -> the current ones."""

_IN_THE_EXTRA = frozenset(
    {"anthropic", "google", "google-cloud", "groq", "mistral"}
    | {"openai-responses", "openai-chat", "deepseek", "openrouter", "ollama"}
)
"""Providers whose SDK the ``providers`` extra brings; for the others (Bedrock's
boto3, xAI, Cohere ...) pydantic-ai's own message names the extra to install."""

_OLLAMA_URL = "http://localhost:11434/v1"

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_call": "tool_calls",
}

_SMALL_BATCH = 32
_BATCH_PAUSE = 0.012
"""Seconds to wait after a batch of fewer than _SMALL_BATCH deltas: below the
widget's frame interval (1/30 s), which paces what the browser sees anyway,
as ``OpenAIModel``'s pause between small reads."""

_KIND_RANK = {"thinking": 0, "text": 1, "call": 2}
"""The order history gives a step's parts (``_provider_messages.py``)."""

_TEST_SYSTEMS = frozenset({"function", "test"})
"""pydantic-ai's offline models: they report no finish reason."""


def _require_pydantic_ai() -> None:
    try:
        importlib.import_module("pydantic_ai.direct")
    except ImportError as error:
        raise ImportError(
            f"models other than openai: and demo need pydantic-ai: {INSTALL_HINT}"
        ) from error


class ProviderModel(BatchStreaming):
    """A model of any provider pydantic-ai supports, named ``"provider:model"``.

    ``name``: ``"anthropic:claude-sonnet-4-5"``, ``"google-gla:gemini-2.5-flash"``
    (or ``google:``), ``"google-vertex:..."`` (or ``google-cloud:``),
    ``"openai-responses:gpt-5-mini"``, ``"groq:..."``, ``"mistral:..."``,
    ``"bedrock:..."`` (``pip install "pydantic-ai-slim[bedrock]"``),
    ``"deepseek:..."``, ``"openrouter:..."``, ``"ollama:..."`` (default
    ``base_url`` http://localhost:11434/v1) ...; or a pydantic-ai ``Model``
    itself (a ``FunctionModel`` in tests, a model with a provider you built),
    used as it is.

    ``api_key`` and ``base_url`` reach the provider's client (a gateway, a
    proxy, a local server): passed to the provider's own constructor where it
    takes them (``AnthropicProvider``, ``GoogleProvider``, ``GoogleCloudProvider``,
    ``OpenAIProvider`` for ``openai-responses:``, ``GroqProvider``,
    ``MistralProvider``, ``OllamaProvider``, ``BedrockProvider``); for the
    OpenAI-compatible providers whose constructor takes no ``base_url``
    (``deepseek:``, ``openrouter:``) an ``openai.AsyncOpenAI`` client with them
    is given instead. Without ``api_key`` each provider reads its usual
    environment variable (``ANTHROPIC_API_KEY``, ``GOOGLE_API_KEY`` or
    ``GEMINI_API_KEY``, ``OPENAI_API_KEY``, ``GROQ_API_KEY`` ...).

    ``settings`` are the request's pydantic-ai ``ModelSettings``:
    ``temperature=``, ``max_tokens=``, ``thinking=True`` (or ``"low"`` ...),
    ``anthropic_thinking={...}``, ``openai_reasoning_effort=``,
    ``google_thinking_config=``, ``timeout=`` ...

    ``max_retries`` (default 2) retries a refused request (HTTP 408, 409, 429,
    5xx, no connection) before anything streamed, after the provider's
    ``Retry-After`` or a backoff, saying so in the chat; a wait beyond
    ``max_retry_wait`` seconds fails at once. ``silence_notice``: seconds
    without an event before the chat says "No answer from ... for N s".
    ``provider_key``: the key of this provider's data on the thread's parts
    (default ``"pydantic-ai:<provider>"``).
    """

    offline = False

    def __init__(
        self,
        name: Any,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        provider_key: str | None = None,
        max_retries: int = 2,
        max_retry_wait: float = 120.0,
        silence_notice: float = 10.0,
        **settings: Any,
    ) -> None:
        _require_pydantic_ai()
        from pydantic_ai.models import Model as PydanticModel

        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a whole number >= 0, got {max_retries!r}")
        if not max_retry_wait >= 0 or not silence_notice > 0:
            raise ValueError("max_retry_wait must be >= 0 and silence_notice > 0 (seconds)")
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.silence_notice = silence_notice
        self.settings: dict[str, Any] = dict(settings)
        self._given: Any = None
        if isinstance(name, PydanticModel):
            self._given = name
            provider, model_name = name.system, name.model_name
            self.spec = f"{provider}:{model_name}"
            first = name
        else:
            if not isinstance(name, str) or ":" not in name:
                raise ValueError(
                    f"ProviderModel takes a 'provider:model' name, such as "
                    f"'anthropic:claude-sonnet-4-5', got {name!r}"
                )
            provider, _, model_name = name.strip().partition(":")
            provider = _ALIASES.get(provider, provider)
            self.spec = name.strip()
            self._provider_name = provider
            self._model_name = model_name
            self._base_url = base_url
            self._api_key = api_key
            # a wrong name or a missing key fails here, not at the first reply
            first = self._build()
        self.provider = provider
        self.model_name = model_name
        self.name = f"{model_name} ({provider})"
        self.provider_key = provider_key or f"pydantic-ai:{provider}"
        self._require_finish = provider not in _TEST_SYSTEMS
        self._spare: Any = None if self._given is not None else first
        self._models: LoopClients[Any] = LoopClients(self._for_loop, _close_model)
        """Ours, one per event loop (an SDK's connection pool cannot be shared
        across loops), closed with its loop, at ``close()`` and at exit."""

    def __repr__(self) -> str:
        return f"ProviderModel({self.spec!r})"

    # --- the pydantic-ai model -------------------------------------------------

    def _build(self) -> Any:
        from pydantic_ai.exceptions import UserError
        from pydantic_ai.models import infer_model

        try:
            if self._provider_name == "openai-responses":  # each input item's type said
                from ._responses_items import responses_model_class

                provider = self._provider(self._provider_name)
                return responses_model_class()(self._model_name, provider=provider)
            return infer_model(f"{self._provider_name}:{self._model_name}", self._provider)
        except ImportError as error:
            if self._provider_name in _IN_THE_EXTRA:
                raise ImportError(f"{self.spec} needs {INSTALL_HINT} ({error})") from error
            raise ImportError(f"{self.spec} needs its provider's SDK: {error}") from error
        except UserError as error:  # no API key, an unknown provider
            raise ValueError(f"cannot use {self.spec}: {error}") from error

    def _provider(self, provider: str) -> Any:
        """The provider object, with ``base_url`` / ``api_key`` given to its client."""
        from pydantic_ai.providers import infer_provider_class

        try:
            cls = infer_provider_class(provider)
        except ValueError as error:
            raise ValueError(
                f"unknown provider {provider!r} in {self.spec!r}: use one of pydantic-ai's, "
                "such as anthropic:, google-gla:, openai-responses:, groq:, mistral:, "
                "bedrock:, deepseek:, openrouter:, ollama: (openai: is our chat-completions model)"
            ) from error
        accepts = inspect.signature(cls.__init__).parameters
        kwargs: dict[str, Any] = {}
        base_url = self._base_url
        if base_url is None and provider == "ollama" and not os.environ.get("OLLAMA_BASE_URL"):
            base_url = _OLLAMA_URL
        if base_url is not None and "base_url" not in accepts:
            if "openai_client" not in accepts:
                raise ValueError(f"{self.spec}: this provider takes no base_url=")
            import openai

            env = f"{provider.upper().replace('-', '_')}_API_KEY"
            key = self._api_key or os.environ.get(env) or "not-needed"
            client = openai.AsyncOpenAI(base_url=base_url, api_key=key)
            return cls(openai_client=client)  # type: ignore[call-arg]
        if base_url is not None:
            kwargs["base_url"] = base_url
        if self._api_key is not None:
            if "api_key" not in accepts:
                raise ValueError(f"{self.spec}: this provider takes no api_key=")
            kwargs["api_key"] = self._api_key
        return cls(**kwargs)

    def _for_loop(self) -> Any:
        if self._given is not None:
            return self._given
        model, self._spare = self._spare or self._build(), None
        return model

    @property
    def pydantic_model(self) -> Any:
        """The pydantic-ai ``Model`` this streams through (the running loop's)."""
        return self._models.get()

    @property
    def base_url(self) -> str:
        """Where requests go, as errors and notices name it."""
        with contextlib.suppress(Exception):
            url = self.pydantic_model.base_url
            if url:
                return str(url).rstrip("/")
        return self.provider

    async def aclose(self) -> None:
        """Close the clients we made (a later request makes new ones); a
        pydantic-ai model you passed is yours to close."""
        if self._given is None:
            await self._models.aclose()

    def close(self) -> None:
        """``aclose()`` from synchronous code (``Runtime.close()`` calls it)."""
        if self._given is None:
            self._models.close()

    # --- one request -------------------------------------------------------------

    def _request_settings(self, request: ModelRequest) -> dict[str, Any]:
        from ._provider_messages import tool_choice_setting

        settings = {**self.settings, "max_retries": 0}  # ours, said aloud (see stream_batches)
        choice = tool_choice_setting(request.tool_choice) if request.tools else None
        if choice is not None:
            settings["tool_choice"] = choice
        if request.max_tokens is not None:  # a tool server's sampling limit: the lower one wins
            own = settings.get("max_tokens")
            settings["max_tokens"] = (
                request.max_tokens if own is None else min(own, request.max_tokens)
            )
        return settings

    async def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelDelta]]:
        """Stream one reply as batches of deltas; raise ModelError on any failure.

        A refused request is retried (up to ``max_retries``) before anything
        streamed; waits and silences are reported through ``request.status``.
        """
        from pydantic_ai import exceptions as errors
        from pydantic_ai.models import ModelRequestParameters

        from ._provider_messages import to_model_messages, tool_definitions

        try:
            model = self.pydantic_model
        except (ImportError, ValueError) as error:  # made on a new loop: the key is gone
            raise ModelError(str(error)) from error
        messages = to_model_messages(request.messages, self.provider_key)
        parameters = ModelRequestParameters(
            function_tools=tool_definitions(request.tools), allow_text_output=True
        )
        settings = self._request_settings(request)
        url = self.base_url
        where = f"{self.name} at {url}"
        cancel = request.cancel
        retries = Retries(self.max_retries, self.max_retry_wait, url, where, request.status, cancel)
        while True:
            events = _Events(self.provider_key)
            try:
                async with (
                    SilenceWatch(url, self.silence_notice, request.status, cancel) as watch,
                    # closed when our reader stops early too: its task ends with it
                    contextlib.aclosing(
                        self._read(model, messages, settings, parameters, events, cancel, watch)
                    ) as read,
                ):
                    async for batch in read:
                        yield batch
                break
            except ModelError:
                raise
            except errors.ModelHTTPError as error:
                mid_stream = f"the server reported an error mid-stream: {_error_text(error)}"
                if events.streamed:  # never retried: the user has read part of the reply
                    raise ModelError(mid_stream) from error
                code, detail = error.status_code, _error_text(error)
                plan = retries.after_status(error, code, error.retry_after, detail)
                if plan is None and error.in_stream:  # an error event in an HTTP-200 stream
                    raise ModelError(mid_stream) from error
                if plan is None:
                    raise ModelError(
                        f"{where} answered HTTP {code}: {detail}"
                        + _image_hint(code, request.messages)
                    ) from error
            except _connection_errors() as error:
                if cancel.is_set():
                    return  # closing the stream on Stop ends the read this way
                if events.streamed:
                    kind = "timed out" if "timeout" in type(error).__name__.lower() else "lost"
                    raise ModelError(
                        f"the connection to {where} {kind} mid-stream ({_cause_text(error)}); "
                        "the reply is incomplete"
                    ) from error
                if isinstance(error, errors.ModelTimeoutError | TimeoutError):
                    raise ModelError(
                        f"no answer from {where} ({_cause_text(error)}): "
                        "set timeout= to wait longer"
                    ) from error
                refused = _connection_refused(error)
                plan = retries.after_connection_error(error, refused, _cause_text(error))
            except errors.ModelAPIError as error:
                if cancel.is_set():
                    return
                prefix = "the server reported an error mid-stream" if events.streamed else where
                raise ModelError(f"{prefix}: {_api_error_text(error)}") from error
            except errors.UnexpectedModelBehavior as error:
                raise ModelError(f"{where} sent a reply that cannot be read: {error}") from error
            except errors.UserError as error:
                raise ModelError(
                    f"{where} refused the request before sending it: {error}"
                ) from error
            if not await retries.wait(plan):
                return  # stopped while waiting

    async def _read(
        self,
        model: Any,
        messages: list[Any],
        settings: dict[str, Any],
        parameters: Any,
        events: _Events,
        cancel: asyncio.Event,
        watch: SilenceWatch,
    ) -> AsyncGenerator[list[ModelDelta]]:
        """The stream's deltas, as batches: a task of its own reads the stream,
        and each batch is all it turned into deltas since the last one was
        taken (what one network read brought, when the loop keeps up). Stop
        cancels that task, which closes the stream at once, whatever it waits on."""
        from pydantic_ai.direct import model_request_stream

        where = f"{self.name} at {self.base_url}"
        pending: list[ModelDelta] = []
        ready = asyncio.Event()
        state: dict[str, Any] = {"done": False, "failure": None}

        async def produce() -> None:
            try:
                opened = model_request_stream(
                    model,
                    messages,
                    model_settings=settings,  # type: ignore[arg-type]  # a TypedDict open to each provider's keys
                    model_request_parameters=parameters,
                )
                async with opened as stream:
                    watch.heard()
                    async for event in stream:
                        watch.heard()
                        deltas = events.deltas(event, stream)
                        if deltas:
                            pending.extend(deltas)
                            ready.set()
                    pending.extend(events.end(stream, self._require_finish, where))
            except BaseException as error:  # ours to hand over (a Stop's cancel too)
                state["failure"] = error
            finally:
                state["done"] = True
                ready.set()

        reader = asyncio.ensure_future(produce())
        stopper = asyncio.ensure_future(_cancel_when_set(cancel, reader))
        try:
            while True:
                await ready.wait()
                ready.clear()
                finished = state["done"]  # read first: then every delta is in pending
                if pending and not cancel.is_set():
                    batch = pending[:]
                    pending.clear()
                    events.streamed = True
                    yield batch
                    if len(batch) < _SMALL_BATCH and not finished:
                        # A trickle: each event would be a batch of its own (the
                        # SDKs yield to the loop after every event). Waiting a
                        # moment lets the next batch bring what arrived meanwhile.
                        await asyncio.sleep(_BATCH_PAUSE)
                if finished or cancel.is_set():
                    break
            failure = state["failure"]
            if failure is not None and not cancel.is_set():
                raise failure
        finally:
            stopper.cancel()
            if not reader.done():
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader  # the stream is closed before we return


class _Events:
    """Turns one stream's pydantic-ai events into our deltas."""

    def __init__(self, key: str) -> None:
        from pydantic_ai import messages

        self._pm = messages  # looked up once: deltas() runs for every event of a stream
        self.key = key
        self.streamed = False
        self.calls: dict[int, int] = {}
        """pydantic-ai part index -> our call index (one per call, in order)."""
        self.whole: set[int] = set()
        """Calls whose arguments came as a dict: sent as one JSON text at their end."""
        self.sent: set[int] = set()
        """Calls some argument text was sent for."""
        self.thinking_open = False
        self.thinking: list[dict[str, Any]] = []
        """The data of the thinking parts streaming into one reasoning part of ours."""
        self.text: list[dict[str, Any]] = []
        self.order: list[str] = []
        """The kinds of the step's parts as the provider sent them ("thinking",
        "text", "call"): history puts a step's text before its calls and its
        reasoning first, and a provider may check the order of what it issued."""

    def _response(self, stream: Any) -> dict[str, Any]:
        from ._provider_messages import RESPONSE_FIELDS

        fields = ((name, getattr(stream, name, None)) for name in RESPONSE_FIELDS)
        return {name: value for name, value in fields if isinstance(value, str)}

    def _flush(self, stream: Any) -> list[ModelDelta]:
        """End the run of thinking parts: their data goes on the reasoning part
        they streamed into (the accumulator's open one)."""
        if not self.thinking_open:
            return []
        self.thinking_open = False
        parts, self.thinking = self.thinking, []
        if not any(set(p) - {"content"} for p in parts):
            return []  # nothing a provider wants back (no id, signature or provider name)
        if len(parts) == 1:
            parts[0].pop("content", None)  # it is the reasoning part's text
        data = {"parts": parts, "response": self._response(stream)}
        self.order += ["thinking"] * len(parts)
        return [ReasoningDelta("", {self.key: data})]

    def deltas(self, event: Any, stream: Any) -> list[ModelDelta]:
        pm = self._pm
        if isinstance(event, pm.PartDeltaEvent):  # nearly every event: checked first
            delta = event.delta
            if isinstance(delta, pm.TextPartDelta):
                return [TextDelta(delta.content_delta)] if delta.content_delta else []
            if isinstance(delta, pm.ThinkingPartDelta):
                return [ReasoningDelta(delta.content_delta)] if delta.content_delta else []
            if isinstance(delta, pm.ToolCallPartDelta):
                index = self.calls.get(event.index)
                if index is None or index in self.whole:
                    return []
                args = delta.args_delta
                if isinstance(args, dict):
                    if index not in self.sent:
                        self.whole.add(index)
                    return []
                if args:
                    self.sent.add(index)
                    return [ToolCallDelta(index, arguments=args)]
            return []
        if isinstance(event, pm.PartStartEvent):
            part = event.part
            if isinstance(part, pm.ThinkingPart):
                self.thinking_open = True
                return [ReasoningDelta(part.content)] if part.content else []
            if isinstance(part, pm.TextPart):
                out = self._flush(stream)
                if part.content:
                    out.append(TextDelta(part.content))
                return out
            if isinstance(part, pm.ToolCallPart):
                if event.index in self.calls:
                    return []  # the same call started again: its deltas and end follow
                out = self._flush(stream)
                index = self.calls[event.index] = len(self.calls)
                self.order.append("call")
                arguments = ""
                if isinstance(part.args, dict):
                    self.whole.add(index)
                elif part.args:
                    arguments = part.args
                    self.sent.add(index)
                out.append(
                    ToolCallDelta(
                        index, id=part.tool_call_id, name=part.tool_name, arguments=arguments
                    )
                )
                return out
            return []  # a provider's own tools' parts: we ask for none
        if isinstance(event, pm.PartEndEvent):
            from ._provider_messages import part_data

            part = event.part
            if isinstance(part, pm.ThinkingPart):
                self.thinking.append({**part_data(part), "content": part.content})
            elif isinstance(part, pm.TextPart):
                self.order.append("text")
                self.text.append(
                    {
                        **part_data(part, ("id", "provider_name", "provider_details")),
                        "content": part.content,
                    }
                )
            elif isinstance(part, pm.ToolCallPart) and event.index in self.calls:
                return self._end_call(self.calls[event.index], part, stream)
        return []

    def _end_call(self, index: int, part: Any, stream: Any) -> list[ModelDelta]:
        from ._provider_messages import part_data

        out: list[ModelDelta] = []
        if index in self.whole or index not in self.sent:
            # whole arguments (Gemini, Ollama ...) or none streamed: the JSON at once
            arguments = part.args_as_json_str() if part.args else ""
            if (arguments and arguments != "{}") or index in self.whole:
                out.append(ToolCallDelta(index, arguments=arguments))
            self.sent.add(index)
        data = part_data(part, ("id", "provider_name", "provider_details"))
        if data:
            out.append(
                ToolCallDelta(
                    index, provider_data={self.key: {**data, "response": self._response(stream)}}
                )
            )
        return out

    def end(self, stream: Any, require_finish: bool, where: str) -> list[ModelDelta]:
        """The stream's last deltas: what was held back, the usage, the finish reason."""
        out = self._flush(stream)
        step: dict[str, Any] = {}  # a step's data rides on its first call (history has both)
        texts = [t for t in self.text if set(t) - {"content"}]
        if texts:
            if len(self.text) == 1:
                texts[0].pop("content", None)
            step["text"] = self.text
        order = self.order
        if "text" not in step and order.count("text") > 1:  # history joins them into one
            first = order.index("text")
            order = [k for i, k in enumerate(order) if k != "text" or i == first]
        if order != sorted(order, key=_KIND_RANK.__getitem__):
            step["order"] = order
        if step and self.calls:
            out.append(ToolCallDelta(0, provider_data={self.key: step}))
        usage = stream.usage
        tokens = UsageDelta(
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            reasoning_tokens=getattr(usage, "output_reasoning_tokens", 0) or 0,
            cache_read_tokens=usage.cache_read_tokens or 0,
            cache_write_tokens=usage.cache_write_tokens or 0,
        )
        if tokens != UsageDelta():
            out.append(tokens)
        reason = stream.finish_reason
        if reason == "error":
            raise ModelError(f"{where} ended its reply with an error; the reply is incomplete")
        if reason is None and require_finish:
            raise ModelError(
                f"the stream from {where} ended without a finish reason "
                "(the connection was probably cut); the reply is incomplete"
            )
        finish = _FINISH.get(reason or "stop", "other")
        if self.calls and finish == "stop":
            finish = "tool_calls"  # some providers say "stop" after tool calls
        out.append(FinishDelta(finish))
        return out


async def _cancel_when_set(cancel: asyncio.Event, reader: asyncio.Future[None]) -> None:
    """Stop the stream's reader as soon as the run is stopped, even mid-read
    (its ``async with`` then closes the stream and its connection)."""
    await cancel.wait()
    reader.cancel()


async def _close_model(model: Any) -> None:
    """Close the HTTP client a provider made for itself (entering and leaving
    the model's context does that, pydantic-ai's own way)."""
    async with model:
        pass


@functools.cache
def _connection_errors() -> tuple[type[BaseException], ...]:
    """pydantic-ai's connection errors, and those an SDK lets through from a
    body that stops mid-read."""
    from pydantic_ai.exceptions import ModelConnectionError

    found: list[type[BaseException]] = [ModelConnectionError, OSError, asyncio.TimeoutError]
    for module_name in ("httpx2", "httpx"):
        with contextlib.suppress(ImportError):
            module = importlib.import_module(module_name)
            found += [module.TransportError, module.StreamError]
    return tuple(found)


def _message_of(body: Any) -> str | None:
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body.strip() or None
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]  # Gemini: [{"error": {...}}]
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            message = inner.get("message")
            return str(message) if message else json.dumps(inner, default=str)[:500]
        return str(inner)
    return None


def _error_text(error: Any) -> str:
    """The provider's own words for a refused request."""
    return _message_of(error.body) or _api_error_text(error)


def _api_error_text(error: Any) -> str:
    return _message_of(getattr(error, "body", None)) or str(getattr(error, "message", error))


def _image_hint(status: int, messages: list[dict[str, Any]]) -> str:
    from .openai import _image_hint as hint

    return hint(status, messages)


def _connection_refused(error: BaseException) -> bool:
    from .openai import _connection_refused as refused

    return refused(error)


def _cause_text(error: BaseException) -> str:
    from .openai import _cause_text as cause

    return cause(error)
