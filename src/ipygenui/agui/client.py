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

A run that ends paused on calls of the agent's own tools (``RUN_FINISHED``
with an ``interrupt`` outcome, one tool-call interrupt per call) hands those
calls to the chat as approval cards (``runtime/_loop/agent_interrupts.py``); the
next run carries the user's decisions as its ``resume`` entries, in the
payload pydantic-ai's adapter advertises (``{"approved": true}``, or
``false`` with the reason), and without the placeholder results of those
calls in its messages. An interrupt the user left for a new message is
resumed ``cancelled`` by the next run (AG-UI lets none stay open). An
interrupt the chat cannot show as the approval of one call this run made
(none named, a call it did not make or already answered, a call of the
chat's own tools, a call the user already decided) is an error: nothing
runs on it.

Anything wrong (the URL down, an HTTP error, a page that is no event stream,
an event the protocol does not know, events out of order, RUN_ERROR, a stream
that stops before RUN_FINISHED) raises ``ModelError`` naming the URL and what
broke: the reply ends incomplete/error and the thread stays valid.

The agent is untrusted, so what it sends is bounded: one event
(``max_event_bytes``) and one run's stream (``max_run_bytes``), read as they
arrive (``_sse_reader.py``), and the shared state it builds
(``max_state_bytes``, ``max_state_depth``), checked before each snapshot is
taken and before each patch operation runs (``_state_limits.py``). Past a
limit the connection is closed and the run ends with an error naming it;
the shared state keeps its last good value, so the next run can send it.

Stop (``rt.cancel()``) hangs up the connection at once, even when the loop
then closes (a script's ``asyncio.run``) before the HTTP client's own cleanup
could run. The HTTP client is one per event loop, closed with that loop, at
``aclose()``/``close()`` (``Runtime.close()``) and at exit
(``_internal/loop_clients.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    Context,
    Event,
    EventType,
    ResumeEntry,
    RunAgentInput,
    ToolMessage,
)
from pydantic import TypeAdapter, ValidationError

from .._internal.install_hint import install_hint
from .._internal.loop_clients import LoopClients
from ..a2ui import AGENT_A2UI_TOOL
from ..messages import new_id
from ..models.agent import AgentDecision, AgentInterrupt, AgentRequest
from ..models.base import (
    FinishDelta,
    ModelDelta,
    ModelError,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from ._activity import A2UI_ACTIVITY, a2ui_call_of
from ._convert import to_agui_messages, to_agui_tools
from ._sequence import SequenceChecker, SequenceError
from ._sse_reader import sse_data
from ._state_limits import (
    DEFAULT_MAX_STATE_BYTES,
    DEFAULT_MAX_STATE_DEPTH,
    StateLimitError,
    StateLimits,
)

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
_TEXT = {EventType.TEXT_MESSAGE_CONTENT, EventType.TEXT_MESSAGE_CHUNK}
_REASONING = {EventType.REASONING_MESSAGE_CONTENT, EventType.REASONING_MESSAGE_CHUNK}

DEFAULT_MAX_EVENT_BYTES = 8_000_000
"""One event: room for a long text or tool-argument delta, a snapshot of a
full-size state (``max_state_bytes``) or of a long thread."""
DEFAULT_MAX_RUN_BYTES = 64_000_000
"""One run's whole stream (an agent's run is one model step of ours)."""
_ERROR_BODY_BYTES = 4096
"""Of an HTTP error page or a non-event-stream answer, what is read to quote it."""


def _import_extra() -> tuple[Any, Any]:
    try:
        import httpx
        import jsonpatch
    except ImportError as exc:
        raise ImportError(f"gu.AGUIAgent needs {exc.name}: {install_hint('agui')}") from exc
    return httpx, jsonpatch


class AGUIAgent:
    """An agent served over AG-UI at ``url`` (``gu.Chat(agent=gu.AGUIAgent(url))``).

    ``headers`` go with every request (an API key); ``context`` (description
    -> value) is sent as the run's context; ``forwarded_props`` reach the
    agent untouched; ``timeout`` bounds connecting and each read (seconds).

    Limits on what the agent sends (bytes; past one the run ends with an
    error naming it): ``max_event_bytes`` for one event (8 MB),
    ``max_run_bytes`` for one run's stream (64 MB), ``max_state_bytes``
    (1 MB, as compact JSON) and ``max_state_depth`` (64 levels) for the
    shared state its snapshots and patches make.
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
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_run_bytes: int = DEFAULT_MAX_RUN_BYTES,
        max_state_bytes: int = DEFAULT_MAX_STATE_BYTES,
        max_state_depth: int = DEFAULT_MAX_STATE_DEPTH,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"AGUIAgent needs an http(s) URL, got {url!r}")
        limits = {
            "max_event_bytes": max_event_bytes,
            "max_run_bytes": max_run_bytes,
            "max_state_bytes": max_state_bytes,
            "max_state_depth": max_state_depth,
        }
        for key, limit in limits.items():
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise ValueError(f"AGUIAgent's {key} must be a whole number >= 1, got {limit!r}")
        httpx, _ = _import_extra()
        self.url = url
        self.headers = dict(headers or {})
        self.context = dict(context or {})
        self.forwarded_props = forwarded_props
        self.timeout = timeout
        self.name = name or f"AG-UI agent at {url}"
        self.max_event_bytes = max_event_bytes
        self.max_run_bytes = max_run_bytes
        self.max_state_bytes = max_state_bytes
        self.max_state_depth = max_state_depth
        self._clients: LoopClients[Any] = LoopClients(
            lambda: httpx.AsyncClient(timeout=self.timeout), lambda client: client.aclose()
        )
        """One HTTP client per event loop: its connections and TLS setup are reused."""

    def __repr__(self) -> str:
        return f"AGUIAgent({self.url!r})"

    def run_input(self, request: AgentRequest) -> RunAgentInput:
        """What one run of the agent is asked (the POST body)."""
        resumed = {decision.tool_call_id for decision in request.resume}
        messages = [
            m
            for m in to_agui_messages(request.messages)
            if not (isinstance(m, ToolMessage) and m.tool_call_id in resumed)
        ]  # a resumed call is answered by the agent: not by a placeholder of ours
        return RunAgentInput(
            thread_id=request.thread_id,
            run_id=new_id("run"),
            protocol_version=PROTOCOL_VERSION,
            messages=messages,
            tools=to_agui_tools(request.tools),
            state=request.state,
            context=[Context(description=k, value=v) for k, v in self.context.items()],
            forwarded_props=self.forwarded_props,
            resume=[_resume_entry(decision) for decision in request.resume] or None,
        )

    async def run(self, request: AgentRequest) -> AsyncIterator[ModelDelta]:
        httpx, _ = _import_extra()
        state_limits = StateLimits(self.max_state_bytes, self.max_state_depth)
        body, depth = self._body(request, state_limits)
        headers = {"accept": "text/event-stream", **self.headers}
        reader = _RunReader(self.url, request, state_limits, depth)
        client = self._clients.get()
        where = f"The agent at {self.url}"
        try:
            async with client.stream("POST", self.url, json=body, headers=headers) as response:
                try:
                    await self._check_response(response)
                    chunks = response.aiter_bytes()
                    limits = (self.max_event_bytes, self.max_run_bytes)
                    async with contextlib.aclosing(sse_data(chunks, where, *limits)) as events:
                        async for data in events:
                            for delta in reader.apply(_parse(self.url, data)):
                                yield delta
                            if reader.finished:
                                return
                except (asyncio.CancelledError, GeneratorExit):
                    # Stopped: hang up now. The client's own cleanup awaits, and a
                    # loop closing next (asyncio.run) cancels it half way through.
                    _hang_up(response)
                    raise
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

    def _body(self, request: AgentRequest, limits: StateLimits) -> tuple[dict[str, Any], int]:
        """The POST body and the depth of the state it carries. A shared state
        the agent cannot be sent is a clear error: the agent's own states are
        kept within the limits, but a user's (``set_agent_state``) may not be."""
        try:
            _, depth = limits.check(request.state, "a state")
        except StateLimitError as exc:
            raise ModelError(
                f"The shared state (Runtime.agent_state) cannot be sent to the agent at "
                f"{self.url}: {exc}; replace it with Runtime.set_agent_state()"
            ) from exc
        try:
            data: dict[str, Any] = self.run_input(request).model_dump(
                mode="json", by_alias=True, exclude_none=True
            )
        except ValueError as exc:  # pydantic's serialization errors
            raise ModelError(
                f"The run's input for the agent at {self.url} cannot be serialized: {exc}"
            ) from exc
        return data, depth

    async def aclose(self) -> None:
        """Close the HTTP connections (a later run opens new ones)."""
        await self._clients.aclose()

    def close(self) -> None:
        """``aclose()`` from synchronous code (``Runtime.close()`` calls it)."""
        self._clients.close()

    async def _check_response(self, response: Any) -> None:
        if response.status_code >= 400:
            text = (await _start_of(response)).decode("utf-8", "replace")
            raise ModelError(
                f"The agent at {self.url} answered HTTP {response.status_code}: {text[:300]}"
            )
        kind = response.headers.get("content-type", "")
        if not kind.startswith("text/event-stream"):
            start = (await _start_of(response))[:120].decode("utf-8", "replace")
            raise ModelError(
                f"The agent at {self.url} answered {kind or 'no content type'}, not an AG-UI "
                f"event stream (text/event-stream): {start!r}"
            )


async def _start_of(response: Any) -> bytes:
    """The first bytes of a body we only quote (an error page may be any size)."""
    start = b""
    async for chunk in response.aiter_bytes():
        start += chunk
        if len(start) >= _ERROR_BODY_BYTES:
            break
    return start[:_ERROR_BODY_BYTES]


def _hang_up(response: Any) -> None:
    """Shut the response's socket down now, with no await (the server sees the
    disconnect); the HTTP client closes it for good when its cleanup runs."""
    stream = response.extensions.get("network_stream")  # httpcore's, documented
    sock = stream.get_extra_info("socket") if stream is not None else None
    shutdown = getattr(sock, "shutdown", None)  # a socket, or asyncio's view of one
    if callable(shutdown):
        with contextlib.suppress(OSError):
            shutdown(socket.SHUT_RDWR)


def _parse(url: str, data: bytes) -> BaseEvent:
    try:
        event: BaseEvent = _EVENT.validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ModelError(
            f"The agent at {url} sent an event that is not AG-UI ({where}: {first['msg']}): "
            f"{data[:200].decode('utf-8', 'replace')}"
        ) from exc
    return event


class _RunReader:
    """One run's events -> model deltas, state updates and custom events."""

    def __init__(self, url: str, request: AgentRequest, limits: StateLimits, depth: int) -> None:
        self.url = url
        self.request = request
        self.limits = limits
        self.state: Any = request.state
        """The shared state as this run's events left it: the base of the next
        delta (a snapshot replaces it). Never changed in place: it may be the
        runtime's, which listeners and the user hold."""
        self._depth = depth
        """A bound on the state's depth (``measure`` counts it exactly; patches raise it)."""
        self.finished = False
        self._rules = SequenceChecker()
        self._calls: dict[str, int] = {}
        """The run's tool calls: AG-UI id -> ToolCallDelta index."""
        self._names: dict[str, str] = {}
        """The run's tool calls: AG-UI id -> tool name."""
        self._resumed = {decision.tool_call_id for decision in request.resume}
        self._activities: dict[str, Any] = {}
        """The run's A2UI activities: message id -> their content now."""

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
        if kind == EventType.ACTIVITY_SNAPSHOT:
            return self._activity(data, data.content)
        if kind == EventType.ACTIVITY_DELTA:
            return self._activity_delta(data)
        if kind == EventType.TOOL_CALL_RESULT:
            index = self._calls.get(data.tool_call_id)
            if index is not None:  # a tool the agent ran itself
                self.request.server_results[index] = (_result(data.content), False)
            elif data.tool_call_id in self._resumed:  # a call the user decided on
                self.request.resumed_results[data.tool_call_id] = (_result(data.content), False)
            return []
        if kind == EventType.STATE_SNAPSHOT:
            snapshot = data.snapshot
            state = snapshot if isinstance(snapshot, dict) else {"value": snapshot}
            try:
                _, self._depth = self.limits.check(state, "a STATE_SNAPSHOT")
            except StateLimitError as exc:
                raise self._refused(exc) from exc
            self._set_state(state)
        elif kind == EventType.STATE_DELTA:
            self._patch_state(data.delta)
        elif kind == EventType.CUSTOM:
            self.request.custom(data.name, data.value)
        elif kind == EventType.RUN_ERROR:
            code = f" ({data.code})" if data.code else ""
            raise ModelError(f"The agent at {self.url} failed{code}: {data.message}")
        elif kind == EventType.RUN_FINISHED:
            outcome = getattr(data, "outcome", None)
            if outcome is not None and outcome.type == "interrupt":
                for interrupt in outcome.interrupts:
                    self._interrupted(interrupt)
            self.finished = True
            kernel_calls = len(self._calls) > len(self.request.server_results)
            return [FinishDelta("tool_calls" if kernel_calls else "stop")]
        return []

    def _activity(self, data: Any, content: Any) -> list[ModelDelta]:
        """An A2UI activity: a ``show_a2ui`` call the agent answered itself
        (other activity types are not shown)."""
        if data.activity_type != A2UI_ACTIVITY:
            return []
        self._activities[str(data.message_id)] = content  # what a delta patches
        call_id = str(data.message_id)
        if call_id in self._calls:  # a later version of the same activity: a call of its own
            call_id = f"{call_id}-{len(self._calls)}"
        start = self._start_call(call_id, AGENT_A2UI_TOOL)
        args, result, is_error = a2ui_call_of(content)
        self.request.server_results[start.index] = (result, is_error)
        return [start, ToolCallDelta(start.index, arguments=args)]

    def _activity_delta(self, data: Any) -> list[ModelDelta]:
        """An ACTIVITY_DELTA: the RFC 6902 patch applied to the activity's content
        (a copy), shown as its next version, as a later snapshot is. A delta for
        an activity this run did not show, or of another type, is ignored, as
        the official client does; one that does not apply ends the reply."""
        content = self._activities.get(str(data.message_id))
        if content is None or data.activity_type != A2UI_ACTIVITY:
            return []
        _, jsonpatch = _import_extra()
        ops = [_plain_op(op) for op in data.patch]
        try:
            _, depth = self.limits.check(content, "an activity")
            patched, _ = self.limits.patch(content, ops, depth)
        except StateLimitError as exc:
            raise ModelError(f"The agent at {self.url} sent {exc}") from exc
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            raise ModelError(
                f"The agent at {self.url} sent an ACTIVITY_DELTA for {data.message_id} that "
                f"does not apply to its content: {exc}"
            ) from exc
        return self._activity(data, patched)

    def _start_call(self, call_id: str, name: str) -> ToolCallDelta:
        index = self._calls[call_id] = len(self._calls)
        self._names[call_id] = name
        return ToolCallDelta(index, id=call_id, name=name)

    def _interrupted(self, interrupt: Any) -> None:
        """An interrupt of the run: the approval of one of the agent's own calls."""
        call_id = interrupt.tool_call_id
        index = self._calls.get(call_id) if call_id is not None else None
        what = f"The agent at {self.url} paused its run on interrupt {interrupt.id!r}"
        if call_id is None:
            raise ModelError(
                f"{what} ({interrupt.reason}), which names no tool call: only the approval "
                f"of a tool call can be asked in the chat"
            )
        if call_id in self._resumed:
            raise ModelError(
                f"{what} for tool call {call_id} again, which the user already decided: "
                f"it is not asked twice"
            )
        if index is None:
            raise ModelError(f"{what} for tool call {call_id}, which this run did not make")
        name = self._names[call_id]
        own = {s.get("function", s).get("name") for s in self.request.tools}
        if name in own:
            raise ModelError(
                f"{what} for tool call {call_id} of the chat's own tool {name!r}: the chat "
                f"runs and gates its own tools"
            )
        if index in self.request.server_results:
            raise ModelError(f"{what} for tool call {call_id}, which it already answered")
        if index in self.request.interrupts:
            raise ModelError(f"{what} for tool call {call_id}, which another interrupt names")
        self.request.interrupts[index] = AgentInterrupt(interrupt.id, interrupt.message)

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
            state, self._depth = self.limits.patch(self.state, ops, self._depth)
        except StateLimitError as exc:
            raise self._refused(exc) from exc
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            raise ModelError(
                f"The agent at {self.url} sent a STATE_DELTA that does not apply to the "
                f"state: {exc}"
            ) from exc
        if not isinstance(state, dict):  # the shared state is an object: wrap the rest
            state, self._depth = {"value": state}, self._depth + 1
        self._set_state(state)

    def _set_state(self, state: dict[str, Any]) -> None:
        self.state = state
        self.request.set_state(state)

    def _refused(self, exc: StateLimitError) -> ModelError:
        return ModelError(f"The agent at {self.url} sent {exc}; the shared state is left as it was")


def _resume_entry(decision: AgentDecision) -> ResumeEntry:
    """The user's decision as AG-UI resumes an interrupt (the approval payload),
    or the interrupt abandoned (``cancelled``, no payload)."""
    if decision.cancelled:
        return ResumeEntry(interrupt_id=decision.interrupt_id, status="cancelled")
    payload: dict[str, Any] = {"approved": decision.approved}
    if decision.approved and decision.args is not None:
        payload["editedArgs"] = decision.args
    if not decision.approved and decision.reason:
        payload["reason"] = decision.reason
    return ResumeEntry(interrupt_id=decision.interrupt_id, status="resolved", payload=payload)


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
