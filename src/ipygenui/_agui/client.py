"""``gu.AGUIAgent``: an external agent driven over AG-UI.

Each model step of a run is one run of the agent: a POST of a
``RunAgentInput`` (the thread in AG-UI form, the chat's tools as frontend
tools, the shared state, context) and the server-sent events it answers
with, read with the protocol's types and checked against its ordering rules.
The events become the model deltas the run loop already streams into the
message (text, reasoning, tool calls); the results of tools the agent ran
itself answer their calls; state snapshots and JSON Patch deltas update the
shared state; CUSTOM events reach the thread listeners. Calls of the chat's
tools run in the kernel, gated as usual, and go back on the next run.

Anything wrong (the URL down, an HTTP error, a page that is no event stream,
an event the protocol does not know, events out of order, RUN_ERROR, a stream
that stops before RUN_FINISHED) raises ``ModelError`` naming the URL and what
broke: the reply ends incomplete/error and the thread stays valid.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ag_ui.core import BaseEvent, Context, Event, EventType, RunAgentInput
from pydantic import TypeAdapter, ValidationError

from ..messages import new_id
from ..models.agent import AgentRequest
from ..models.base import (
    FinishDelta,
    ModelDelta,
    ModelError,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from .convert import to_agui_messages, to_agui_tools
from .sequence import SequenceChecker, SequenceError

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
_TEXT = {EventType.TEXT_MESSAGE_CONTENT, EventType.TEXT_MESSAGE_CHUNK}
_REASONING = {EventType.REASONING_MESSAGE_CONTENT, EventType.REASONING_MESSAGE_CHUNK}


def _import_extra() -> tuple[Any, Any]:
    try:
        import httpx
        import jsonpatch
    except ImportError as exc:
        raise ImportError(f"gu.AGUIAgent needs {exc.name}: pip install 'ipygenui[agui]'") from exc
    return httpx, jsonpatch


class AGUIAgent:
    """An agent served over AG-UI at ``url`` (``gu.Chat(agent=gu.AGUIAgent(url))``).

    ``headers`` go with every request (an API key); ``context`` (description
    -> value) is sent as the run's context; ``forwarded_props`` reach the
    agent untouched; ``timeout`` bounds connecting and each read (seconds).
    """

    offline = False

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        context: Mapping[str, str] | None = None,
        forwarded_props: Any = None,
        timeout: float = 60.0,
        name: str | None = None,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"AGUIAgent needs an http(s) URL, got {url!r}")
        _import_extra()
        self.url = url
        self.headers = dict(headers or {})
        self.context = dict(context or {})
        self.forwarded_props = forwarded_props
        self.timeout = timeout
        self.name = name or f"AG-UI agent at {url}"
        self._client: tuple[asyncio.AbstractEventLoop, Any] | None = None
        """One HTTP client per event loop: its connections and TLS setup are reused."""

    def __repr__(self) -> str:
        return f"AGUIAgent({self.url!r})"

    def run_input(self, request: AgentRequest) -> RunAgentInput:
        """What one run of the agent is asked (the POST body)."""
        return RunAgentInput(
            thread_id=request.thread_id,
            run_id=new_id("run"),
            messages=to_agui_messages(request.messages),
            tools=to_agui_tools(request.tools),
            state=request.state,
            context=[Context(description=k, value=v) for k, v in self.context.items()],
            forwarded_props=self.forwarded_props,
        )

    async def run(self, request: AgentRequest) -> AsyncIterator[ModelDelta]:
        httpx, _ = _import_extra()
        body = self.run_input(request).model_dump(mode="json", by_alias=True, exclude_none=True)
        headers = {"accept": "text/event-stream", **self.headers}
        reader = _RunReader(self.url, request)
        client = self._http_client(httpx)
        try:
            async with client.stream("POST", self.url, json=body, headers=headers) as response:
                await self._check_response(response)
                async for event in _sse_events(self.url, response):
                    for delta in reader.apply(event):
                        yield delta
                    if reader.finished:
                        return
        except httpx.ConnectError as exc:
            raise ModelError(f"The agent at {self.url} is not reachable: {exc}") from exc
        except httpx.TimeoutException as exc:
            raise ModelError(f"The agent at {self.url} did not answer in time ({exc!r})") from exc
        except httpx.HTTPError as exc:
            raise ModelError(
                f"The connection to the agent at {self.url} broke: {type(exc).__name__}: {exc}"
            ) from exc
        raise ModelError(
            f"The agent at {self.url} closed its event stream before RUN_FINISHED: "
            "the run did not end"
        )

    def _http_client(self, httpx: Any) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client[0] is not loop or self._client[1].is_closed:
            self._client = (loop, httpx.AsyncClient(timeout=self.timeout))
        return self._client[1]

    async def aclose(self) -> None:
        """Close the HTTP connections (a later run opens new ones)."""
        if self._client is not None:
            client, self._client = self._client[1], None
            await client.aclose()

    async def _check_response(self, response: Any) -> None:
        if response.status_code >= 400:
            text = (await response.aread()).decode("utf-8", "replace")
            raise ModelError(
                f"The agent at {self.url} answered HTTP {response.status_code}: {text[:300]}"
            )
        kind = response.headers.get("content-type", "")
        if not kind.startswith("text/event-stream"):
            start = (await response.aread())[:120].decode("utf-8", "replace")
            raise ModelError(
                f"The agent at {self.url} answered {kind or 'no content type'}, not an AG-UI "
                f"event stream (text/event-stream): {start!r}"
            )


async def _sse_events(url: str, response: Any) -> AsyncIterator[BaseEvent]:
    """The AG-UI events of a server-sent event stream (``data:`` lines)."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line.strip() and data:
            yield _parse(url, "\n".join(data))
            data = []
    if data:
        yield _parse(url, "\n".join(data))


def _parse(url: str, text: str) -> BaseEvent:
    try:
        event: BaseEvent = _EVENT.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ModelError(
            f"The agent at {url} sent an event that is not AG-UI ({where}: {first['msg']}): "
            f"{text[:200]}"
        ) from exc
    return event


class _RunReader:
    """One run's events -> model deltas, state updates and custom events."""

    def __init__(self, url: str, request: AgentRequest) -> None:
        self.url = url
        self.request = request
        self.finished = False
        self._rules = SequenceChecker()
        self._calls: dict[str, int] = {}
        """The run's tool calls: AG-UI id -> ToolCallDelta index."""

    def apply(self, event: BaseEvent) -> list[ModelDelta]:
        try:
            self._rules.check(event)
        except SequenceError as exc:
            raise ModelError(f"The agent at {self.url} broke the AG-UI event order: {exc}") from exc
        kind = event.type
        data: Any = event
        if kind in _TEXT:
            return [TextDelta(data.delta)] if data.delta else []
        if kind in _REASONING:
            return [ReasoningDelta(data.delta)] if data.delta else []
        if kind == EventType.TOOL_CALL_START:
            return [self._start_call(data.tool_call_id, data.tool_call_name)]
        if kind == EventType.TOOL_CALL_ARGS:
            return [ToolCallDelta(self._calls[data.tool_call_id], arguments=data.delta)]
        if kind == EventType.TOOL_CALL_CHUNK:
            return self._chunk(data)
        if kind == EventType.TOOL_CALL_RESULT:
            index = self._calls.get(data.tool_call_id)
            if index is not None:  # a tool the agent ran itself
                self.request.server_results[index] = (_result(data.content), False)
            return []
        if kind == EventType.STATE_SNAPSHOT:
            snapshot = data.snapshot
            self.request.set_state(
                copy.deepcopy(snapshot) if isinstance(snapshot, dict) else {"value": snapshot}
            )
        elif kind == EventType.STATE_DELTA:
            self._patch_state(data.delta)
        elif kind == EventType.CUSTOM:
            self.request.custom(data.name, data.value)
        elif kind == EventType.RUN_ERROR:
            code = f" ({data.code})" if data.code else ""
            raise ModelError(f"The agent at {self.url} failed{code}: {data.message}")
        elif kind == EventType.RUN_FINISHED:
            self.finished = True
            kernel_calls = len(self._calls) > len(self.request.server_results)
            return [FinishDelta("tool_calls" if kernel_calls else "stop")]
        return []

    def _start_call(self, call_id: str, name: str) -> ToolCallDelta:
        index = self._calls[call_id] = len(self._calls)
        return ToolCallDelta(index, id=call_id, name=name)

    def _chunk(self, data: Any) -> list[ModelDelta]:
        call_id = data.tool_call_id or (next(reversed(self._calls)) if self._calls else None)
        if call_id is None:
            raise ModelError(f"The agent at {self.url} sent TOOL_CALL_CHUNK with no call id")
        out: list[ModelDelta] = []
        if call_id not in self._calls:
            out.append(self._start_call(call_id, data.tool_call_name or ""))
        if data.delta:
            out.append(ToolCallDelta(self._calls[call_id], arguments=data.delta))
        return out

    def _patch_state(self, delta: list[Any]) -> None:
        _, jsonpatch = _import_extra()
        ops = [_plain_op(op) for op in delta]
        try:
            state = jsonpatch.apply_patch(self.request.state, ops, in_place=False)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            raise ModelError(
                f"The agent at {self.url} sent a STATE_DELTA that does not apply to the "
                f"state: {exc}"
            ) from exc
        self.request.state = state
        self.request.set_state(state if isinstance(state, dict) else {"value": state})


def _plain_op(op: Any) -> Any:
    """A JSON Patch operation as the dict ``jsonpatch`` reads (ag_ui parses them to models)."""
    if not hasattr(op, "model_dump"):
        return op
    dumped = op.model_dump(mode="json", by_alias=True)
    return {k: v for k, v in dumped.items() if v is not None or k == "value"}


def _result(content: Any) -> Any:
    """A tool result's content: JSON when it is JSON text."""
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return content
    return [part.model_dump(mode="json") for part in content]
