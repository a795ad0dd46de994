"""``Runtime.ag_ui_app()``: the runtime served to any AG-UI client.

One endpoint, ``POST /``: the body is a ``RunAgentInput``, the response the
run's AG-UI events as server-sent events, from RUN_STARTED to RUN_FINISHED or
RUN_ERROR. What the input asks for: tool messages answering a human tool's
waiting calls resume the waiting run; otherwise a new user message at its end
starts a run answering it. The runtime serves its one thread whatever
``thread_id`` the client sends, and one run at a time (a request while a run
is active gets 409, but for the resume of a tool server's request the
client's run ended on while the runtime's run waits, ``_server_asks.py``).
An input carrying the mcp-apps middleware's proxied
MCP request is no run: ``_proxied.py`` answers it.

Every request first passes ``HttpGuard`` (``_http_guard.py``: Host, Origin,
token, JSON content type, size and depth), so nothing from a web page or a
process without the token reaches the runtime. A client answers only human
tools: a gated call is decided by the user in the notebook, and a user
message does not dismiss a call that waits for approval. A client that hangs
up cancels the run it started, so the next request is served. A resume
decides only the interrupts a run of that client's ``threadId`` ended with
(and of its ``parentRunId``, when it names one): not the notebook's own
pending calls, nor another client's; no error names a call the client was
not told of.

The app may be served from another thread than the runtime's event loop
(uvicorn in a background thread of a notebook): the runtime is then driven on
its own loop (the one running where ``ag_ui_app()`` was called) and its
events cross over thread-safely.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError

from .._internal.install_hint import install_hint
from ..errors import DecisionError
from ..messages import DecidedBy, Thread, ToolCallPart
from ..tools import Tool
from ._client_state import client_state
from ._client_tools import client_tools
from ._convert import result_message_id
from ._emitter import AGUIListener
from ._http_guard import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, HttpGuard, Refused
from ._proxied import answer_proxied, proxied_request_of
from ._resume import (
    INVALID,
    NOT_OPEN,
    Answer,
    Approve,
    BadResume,
    Decision,
    open_interrupts,
    read_resume,
)
from ._server_asks import open_requests


class ServedRun(Protocol):
    """What the app reads of a ``Run``."""

    @property
    def run_id(self) -> str: ...

    def done(self) -> bool: ...


class CheckedRequests(Protocol):
    """The runtime's tool server cards: an answer to a form checked as the
    notebook's is (``DecisionError``), before any of a resume is applied."""

    def checked(self, tool_call_id: str, result: Any) -> Any: ...


class ServedRuntime(Protocol):
    """What the app uses of a ``Runtime``: typed here, so this module does not
    import the runtime that imports it (mypy checks ``Runtime`` fits)."""

    @property
    def thread(self) -> Thread: ...

    @property
    def running(self) -> bool: ...

    @property
    def human_tool_names(self) -> list[str]: ...

    def send(self, text: str) -> ServedRun: ...

    def add_tool_result(self, tool_call_id: str, result: Any) -> ServedRun | None: ...

    @property
    def tools(self) -> dict[str, Any]: ...

    @property
    def agent_state(self) -> dict[str, Any]: ...

    def set_agent_state(self, state: dict[str, Any]) -> None: ...

    def _serve_client_tools(self, tools: Mapping[str, Tool]) -> None: ...

    def _add_client_result(self, tool_call_id: str, result: Any) -> ServedRun | None: ...

    @property
    def _server_requests(self) -> CheckedRequests: ...

    def subscribe_agui(self, listener: AGUIListener) -> Callable[[], None]: ...

    def cancel(self) -> None: ...

    def approve(
        self, tool_call_id: str, args: dict[str, Any] | None = None, *, by: DecidedBy = "code"
    ) -> ServedRun | None: ...

    def reject(
        self, tool_call_id: str, reason: str | None = None, *, by: DecidedBy = "code"
    ) -> ServedRun | None: ...


def _missing(extra: str, exc: ImportError) -> ImportError:
    return ImportError(f"Runtime.ag_ui_app() needs {exc.name}: {install_hint(extra)}")


def _user_text(message: UserMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") or "" for part in content)


def _waiting_calls(thread: Thread) -> dict[str, ToolCallPart]:
    return {
        p.tool_call_id: p
        for m in thread.messages
        for p in m.tool_calls
        if not p.has_result and p.args_complete
    }


def _waiting_replies(thread: Thread) -> dict[str, str]:
    """Each waiting call's (or request card's) id -> the id of the reply that holds it."""
    return {
        p.tool_call_id: m.id
        for m in thread.messages
        for p in [*m.tool_calls, *m.server_requests]
        if not p.has_result and p.args_complete
    }


@dataclass(frozen=True)
class Issued:
    """A call a client was sent to decide or answer: the client's ``threadId``
    and ``runId`` of the run that asked, and the reply holding the call."""

    thread_id: str
    run_id: str
    reply: str | None


def _not_the_clients(part: ToolCallPart) -> str:
    if part.approval is not None and part.approval.status == "pending":
        why = (
            "it waits for approval: resume its interrupt with a payload "
            '{"approved": true} or {"approved": false}, or decide it in the notebook'
        )
    else:
        why = "a client answers only a human tool's calls; this one is decided in the notebook"
    call = f"tool call {part.tool_call_id} ({part.tool_name})"
    return f"{call} cannot be answered with a tool message: {why}"


def _not_sent(part: ToolCallPart) -> str:
    return (
        f"tool call {part.tool_call_id} ({part.tool_name}) was not sent to this client: "
        "a client answers only the calls its own runs on its thread asked it for"
    )


def _undeclared(part: ToolCallPart) -> str:
    return (
        f"tool call {part.tool_call_id} ({part.tool_name}) calls no tool of this chat: "
        f"a client answers a call to its own tool only when it declares {part.tool_name!r} "
        "in the input's tools"
    )


def _awaiting_approval(thread: Thread) -> ToolCallPart | None:
    last = thread.last_assistant
    for part in last.tool_calls if last is not None else ():
        if part.approval is not None and part.approval.status == "pending" and not part.has_result:
            return part
    return None


def start_from_input(
    runtime: ServedRuntime,
    data: RunAgentInput,
    declared: Collection[str] = (),
    prepare: Callable[[], None] = lambda: None,
    issued: Collection[str] = (),
) -> ServedRun:
    """Start the run ``data`` asks for; ``Refused`` (or ``BadResume``, for its
    ``resume``) says why there is none.

    ``declared``: the names of the tools the client declared, whose calls it
    answers too; ``issued``: the interrupts this client's run ended with and
    the calls its run made to its own tools, the only ones its resume may
    decide or its tool messages answer (a human tool's call the notebook's
    own run made is the notebook user's to answer). Every answer is checked
    before any is given, and ``prepare`` (which takes the client's tools and
    state) runs only once all are, so a refused input changes nothing.
    """
    waiting = _waiting_calls(runtime.thread)
    human = set(runtime.human_tool_names)
    answers: list[ToolMessage] = []
    for message in data.messages:
        if isinstance(message, ToolMessage) and message.id == result_message_id(
            message.tool_call_id
        ):
            continue  # a snapshot's own tool message sent back (a waiting call's placeholder)
        part = waiting.pop(message.tool_call_id, None) if isinstance(message, ToolMessage) else None
        if not isinstance(message, ToolMessage) or part is None:
            continue  # the history the client sends back, or a call not waiting
        own = part.tool_name in declared and part.tool_name not in runtime.tools
        if not own and part.tool_name not in runtime.tools:
            raise Refused(403, _undeclared(part))
        if not own and (part.tool_name not in human or part.approval is not None):
            raise Refused(403, _not_the_clients(part))
        if part.tool_call_id not in issued:
            raise Refused(403, _not_sent(part))
        answers.append(message)
    decisions = _resumed(runtime, data, {a.tool_call_id for a in answers}, issued)
    new = _new_user_message(runtime, data)
    moving_on = new is not None and bool(data.resume)  # every interrupt cancelled for it
    run: ServedRun | None = None
    if answers:
        prepare()
    for answer in answers:
        try:
            run = runtime._add_client_result(answer.tool_call_id, answer.content) or run
        except DecisionError as exc:
            raise Refused(403, f"tool call {answer.tool_call_id}: {exc}") from None
    if decisions and not moving_on:
        if not answers:
            prepare()
        run = _decide(runtime, decisions) or run
    if run is not None:
        return run
    if new is not None and _user_text(new).strip():
        gated = _awaiting_approval(runtime.thread)
        if gated is not None and not moving_on:
            if gated.tool_call_id not in issued:  # the notebook's, or another client's
                raise Refused(
                    409,
                    "a tool call waits for approval in the notebook: a new message is "
                    "taken once it is decided there",
                )
            raise Refused(
                409,
                f"tool call {gated.tool_call_id} ({gated.tool_name}) waits for approval: "
                "resume its interrupt (or decide it in the notebook); a new message is "
                "taken once it is decided",
            )
        prepare()
        return runtime.send(_user_text(new))  # ends the waiting reply: its calls not run
    raise Refused(
        400, "nothing to run: the input ends with no new user message and answers no waiting call"
    )


def _new_user_message(runtime: ServedRuntime, data: RunAgentInput) -> UserMessage | None:
    """The input's last message when it is a user message the thread does not hold yet."""
    last = data.messages[-1] if data.messages else None
    if isinstance(last, UserMessage) and last.id not in {m.id for m in runtime.thread.messages}:
        return last
    return None


def _resumed(
    runtime: ServedRuntime, data: RunAgentInput, answered: set[str], issued: Collection[str]
) -> list[Decision]:
    """The decisions the input's ``resume`` asks for, all checked (``BadResume`` if not),
    of the open interrupts this client was ``issued`` only.
    Beside a new user message a resume may only cancel: the user moves on (AG-UI's
    way to leave interrupts), and the message ends the waiting reply."""
    if not data.resume:
        return []
    if _new_user_message(runtime, data) is not None and any(
        entry.status != "cancelled" for entry in data.resume
    ):
        raise BadResume(
            INVALID,
            "a resume that decides continues the interrupted run: send the new user "
            "message in a request of its own once that run ends (or cancel every "
            "interrupt to move on with it)",
        )
    waiting = {
        call: part
        for call, part in open_interrupts(runtime.thread, runtime.tools).items()
        if call in issued
    }
    return read_resume(
        data.resume,
        waiting,
        answered,
        runtime.human_tool_names,
        runtime.tools,
        runtime._server_requests.checked,
    )


def _decide(runtime: ServedRuntime, decisions: list[Decision]) -> ServedRun | None:
    """Apply checked decisions as ``approve`` / ``reject`` / ``add_tool_result`` do
    (same gates), recorded as the client's (the card says so); the run that
    continues, once the last call is decided."""
    run: ServedRun | None = None
    for decision in decisions:
        try:
            if isinstance(decision, Approve):
                run = runtime.approve(decision.tool_call_id, decision.args, by="client") or run
            elif isinstance(decision, Answer):
                run = runtime.add_tool_result(decision.tool_call_id, decision.result) or run
            else:
                run = runtime.reject(decision.tool_call_id, decision.reason, by="client") or run
        except DecisionError as exc:
            raise BadResume(NOT_OPEN, f"interrupt {decision.tool_call_id}: {exc}") from None
    return run


def _as_the_clients(event: BaseEvent, data: RunAgentInput) -> BaseEvent:
    """RUN_STARTED / RUN_FINISHED with the client's ``threadId`` and ``runId``:
    its run, as it named it (the runtime's own ids stay in its thread)."""
    if event.type in (EventType.RUN_STARTED, EventType.RUN_FINISHED):
        return event.model_copy(update={"thread_id": data.thread_id, "run_id": data.run_id})
    return event


def with_token(url: str, token: str) -> str:
    """``url`` with ``?token=`` set (its other query parameters kept)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "token"] + [("token", token)]
    return urlunsplit(parts._replace(query=urlencode(query)))


class AGUIApp:
    """The ASGI app of ``Runtime.ag_ui_app()``: serve it with uvicorn.

    Clients pass ``token`` as ``Authorization: Bearer <token>`` (or
    ``?token=<token>`` in the URL, see ``url``).
    """

    def __init__(self, asgi: Callable[..., Any], guard: HttpGuard) -> None:
        self._asgi = asgi
        self._guard = guard

    @property
    def token(self) -> str:
        """The token every request must send."""
        return self._guard.token

    def url(self, base: str = "http://127.0.0.1:8000/") -> str:
        """The endpoint's URL at ``base`` with its token, for a client to copy."""
        return with_token(base, self.token)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._asgi(scope, receive, send)

    def __repr__(self) -> str:  # no token: a notebook's output is saved with it
        return "<AGUIApp: clients send 'Authorization: Bearer <app.token>' (or use app.url(base))>"


def ag_ui_app(
    runtime: ServedRuntime,
    token: str | None = None,
    allow_origins: Iterable[str] = (),
    allow_hosts: Collection[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> AGUIApp:
    try:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, Response, StreamingResponse
        from starlette.routing import Route
    except ImportError as exc:
        raise _missing("agui", exc) from exc

    guard = HttpGuard.of(
        secrets.token_urlsafe(32) if token is None else token,
        allow_origins,
        allow_hosts,
        max_body_bytes,
        max_depth,
    )
    encoder = EventEncoder()
    issued: dict[str, Issued] = {}
    """Interrupt id, or the id of a call to a client's own tool -> what the
    client was sent (touched on the runtime's loop only)."""

    def issue(call: str, data: RunAgentInput) -> None:
        """Record ``call`` as sent to ``data``'s client, with the reply that holds it."""
        found = runtime.thread.find_tool_call(call)
        reply = found[0].id if found is not None else None
        issued[call] = Issued(data.thread_id, data.run_id, reply)

    def issued_to(data: RunAgentInput) -> set[str]:
        """The waiting calls ``data``'s client was sent: its thread's, of the
        run it names as its parent when it names one."""
        still_open = _waiting_replies(runtime.thread)
        for call in [c for c, sent in issued.items() if still_open.get(c) != sent.reply]:
            # decided, or its reply ended (an edit or regenerate stashed it): a
            # call of that id in another reply is not the one this client was sent
            del issued[call]
        return {
            call
            for call, sent in issued.items()
            if sent.thread_id == data.thread_id
            and (data.parent_run_id is None or sent.run_id == data.parent_run_id)
        }

    def live_run_asks(data: RunAgentInput) -> None:
        """An input while a run is active is refused (409), unless it resumes
        (or cancels, beside a new message) the interrupts of a tool server's
        cards this client's run ended on: the runtime's run still waits on them."""
        asks = [
            p.tool_call_id
            for p in open_requests(runtime.thread.last_assistant)
            if p.tool_call_id in issued_to(data)
        ]
        if not asks:
            if data.resume:  # answered in the notebook meanwhile, or never this client's
                raise BadResume(NOT_OPEN, "the interrupts resumed are not open: a run is active")
            raise Refused(409, "a run is active: wait for its end")
        if not data.resume:
            raise Refused(
                409,
                f"the run waits for the answer to {', '.join(asks)} (a tool server's "
                "request): resume the interrupt, or cancel it beside a new message",
            )

    try:
        home: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        home = None  # no loop where the app was made: the runtime runs on the server's

    class RunStream(StreamingResponse):
        """The run's events; ``on_close`` runs however the response ends
        (finished, or the client hung up before or while it streamed)."""

        def __init__(self, events: Any, on_close: Callable[[], None], **kwargs: Any) -> None:
            super().__init__(events, **kwargs)
            self._on_close = on_close

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                self._on_close()

    def refused(refusal: Refused, origin: str | None) -> Response:
        headers = {**guard.cors_headers(origin), **refusal.headers}
        return JSONResponse({"error": refusal.message}, refusal.status, headers=headers)

    def refused_resume(bad: BadResume, origin: str | None) -> Response:
        """A stream that opens with RUN_ERROR: AG-UI's way to reject an input's
        resume before the run starts (nothing ran, nothing changed)."""
        error = RunErrorEvent(message=bad.message, code=bad.code)

        async def one_event() -> Any:
            yield encoder.encode(error)

        return StreamingResponse(
            one_event(), media_type=encoder.get_content_type(), headers=guard.cors_headers(origin)
        )

    async def endpoint(request: Request) -> Response:
        origin: str | None = None
        try:
            guard.check_host(request)
            origin = guard.allowed_origin(request)
            if request.method == "OPTIONS":
                return Response(status_code=204, headers=guard.preflight_headers(request))
            guard.check_token(request)
            guard.check_json_type(request)
            body = await guard.read_json(request)
        except Refused as refusal:
            return refused(refusal, origin)
        try:
            data = RunAgentInput.model_validate(body)
        except (ValueError, ValidationError) as exc:
            return JSONResponse(
                {"error": f"not a RunAgentInput: {exc}"}, 422, headers=guard.cors_headers(origin)
            )
        proxied = proxied_request_of(data.forwarded_props)
        if proxied is not None:  # the mcp-apps middleware's request: no run
            return await answer_proxied_request(data, proxied, origin)
        try:
            return await run_agent(data, origin)
        except Refused as refusal:
            return refused(refusal, origin)

    async def on_home(work: Callable[[], Any]) -> Any:
        """Run ``work`` on the runtime's loop (this one, or ``home`` thread-safely)."""
        here = asyncio.get_running_loop()
        if home is None or home is here:
            return work()

        async def call() -> Any:
            return work()

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call(), home))

    def later_on_home(work: Callable[[], None]) -> None:
        """Run ``work`` on the runtime's loop without waiting (from a ``finally``)."""
        if home is None or home is asyncio.get_running_loop():
            work()
        elif not home.is_closed():
            home.call_soon_threadsafe(work)

    async def answer_proxied_request(
        data: RunAgentInput, request: dict[str, Any], origin: str | None
    ) -> Response:
        """RUN_STARTED, then RUN_FINISHED with the server's answer as its result."""
        here = asyncio.get_running_loop()
        answer = answer_proxied(runtime, request)  # on the runtime's loop: it reads the thread
        if home is None or home is here:
            result = await answer
        else:
            result = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(answer, home))
        ids = {"thread_id": data.thread_id, "run_id": data.run_id}

        async def two_events() -> Any:
            yield encoder.encode(RunStartedEvent(**ids, protocol_version=PROTOCOL_VERSION))
            yield encoder.encode(RunFinishedEvent(**ids, result=result))

        return StreamingResponse(
            two_events(), media_type=encoder.get_content_type(), headers=guard.cors_headers(origin)
        )

    async def run_agent(data: RunAgentInput, origin: str | None) -> Response:
        here = asyncio.get_running_loop()
        queue: asyncio.Queue[BaseEvent] = asyncio.Queue()
        own_tools = client_tools(data.tools or (), runtime.tools)
        state = client_state(data.state)

        def take_the_clients() -> None:
            """Its tools offered for its run, its state the run's (once nothing refuses)."""
            runtime._serve_client_tools(own_tools)
            if state is not None and state != runtime.agent_state:
                runtime.set_agent_state(state)

        def deliver(event: BaseEvent) -> None:
            if isinstance(event, ToolCallStartEvent) and event.tool_call_name in own_tools:
                issue(event.tool_call_id, data)  # its to answer
            if event.type == EventType.RUN_FINISHED:
                for interrupt in getattr(getattr(event, "outcome", None), "interrupts", None) or ():
                    issue(interrupt.id, data)
            if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                # on the runtime's loop, as the run ends: a run started next (a
                # send from the notebook) is not offered the client's tools
                runtime._serve_client_tools({})
            here.call_soon_threadsafe(queue.put_nowait, event)

        def start() -> tuple[ServedRun, Callable[[], None]]:
            # on the runtime's loop: subscribe, then start, so no event is missed
            if runtime.running:
                live_run_asks(data)  # refuses unless it answers the cards its run ended on
            unsubscribe = runtime.subscribe_agui(deliver)
            try:
                started = start_from_input(
                    runtime, data, own_tools, take_the_clients, issued_to(data)
                )
                return started, unsubscribe
            except BaseException:
                unsubscribe()
                runtime._serve_client_tools({})
                raise

        try:
            run, unsubscribe = await on_home(start)
        except BadResume as bad:
            return refused_resume(bad, origin)
        ended = False

        async def stream() -> Any:
            nonlocal ended
            while True:
                event = await queue.get()
                yield encoder.encode(_as_the_clients(event, data))
                if event.type == EventType.RUN_ERROR or (
                    event.type == EventType.RUN_FINISHED
                    and getattr(event, "run_id", None) == run.run_id
                ):
                    ended = True
                    return

        def close() -> None:
            """Stop listening; a run whose client left before its end is cancelled."""

            def on_the_runtimes_loop() -> None:
                unsubscribe()
                if not ended and not run.done():
                    runtime.cancel()
                runtime._serve_client_tools({})  # the client's tools go with its run

            later_on_home(on_the_runtimes_loop)

        return RunStream(
            stream(),
            close,
            media_type=encoder.get_content_type(),
            headers=guard.cors_headers(origin),
        )

    routes = [Route("/", endpoint, methods=["POST", "OPTIONS"])]
    return AGUIApp(Starlette(routes=routes), guard)
