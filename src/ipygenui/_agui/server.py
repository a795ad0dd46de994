"""``Runtime.ag_ui_app()``: the runtime served to any AG-UI client.

One endpoint, ``POST /``: the body is a ``RunAgentInput``, the response the
run's AG-UI events as server-sent events, from RUN_STARTED to RUN_FINISHED or
RUN_ERROR. What the input asks for: tool messages answering calls that wait
(a human tool's answer, or a client's frontend result) resume the waiting
run; otherwise a new user message at its end starts a run answering it. The
runtime serves its one thread whatever ``thread_id`` the client sends, and
one run at a time (a request while a run is active gets 409).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ag_ui.core import BaseEvent, EventType, RunAgentInput, ToolMessage, UserMessage
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError

if TYPE_CHECKING:
    from ..runtime import Run, Runtime


def _missing(extra: str, exc: ImportError) -> ImportError:
    return ImportError(f"Runtime.ag_ui_app() needs {exc.name}: pip install 'ipygenui[{extra}]'")


def _user_text(message: UserMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") or "" for part in content)


def start_from_input(runtime: Runtime, data: RunAgentInput) -> Run:
    """Start the run ``data`` asks for; ``ValueError`` says why there is none."""
    waiting = {
        p.tool_call_id
        for m in runtime.thread.messages
        for p in m.tool_calls
        if not p.has_result and p.args_complete
    }
    run: Run | None = None
    for message in data.messages:
        if isinstance(message, ToolMessage) and message.tool_call_id in waiting:
            waiting.discard(message.tool_call_id)
            run = runtime.add_tool_result(message.tool_call_id, message.content) or run
    if run is not None:
        return run
    known = {m.id for m in runtime.thread.messages}
    last = data.messages[-1] if data.messages else None
    if isinstance(last, UserMessage) and last.id not in known and _user_text(last).strip():
        return runtime.send(_user_text(last))
    raise ValueError(
        "nothing to run: the input ends with no new user message and answers no waiting call"
    )


def ag_ui_app(runtime: Runtime) -> Any:
    try:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, Response, StreamingResponse
        from starlette.routing import Route
    except ImportError as exc:
        raise _missing("agui", exc) from exc

    encoder = EventEncoder()

    async def run_agent(request: Request) -> Response:
        try:
            data = RunAgentInput.model_validate(await request.json())
        except (ValueError, ValidationError) as exc:
            return JSONResponse({"error": f"not a RunAgentInput: {exc}"}, status_code=422)
        if runtime.running:
            return JSONResponse({"error": "a run is active: wait for its end"}, status_code=409)
        queue: asyncio.Queue[BaseEvent] = asyncio.Queue()
        unsubscribe = runtime.subscribe_agui(queue.put_nowait)
        try:
            run = start_from_input(runtime, data)
        except ValueError as exc:
            unsubscribe()
            return JSONResponse({"error": str(exc)}, status_code=400)

        async def stream() -> Any:
            try:
                while True:
                    event = await queue.get()
                    yield encoder.encode(event)
                    if event.type == EventType.RUN_ERROR or (
                        event.type == EventType.RUN_FINISHED
                        and getattr(event, "run_id", None) == run.run_id
                    ):
                        return
            finally:
                unsubscribe()

        return StreamingResponse(stream(), media_type=encoder.get_content_type())

    return Starlette(routes=[Route("/", run_agent, methods=["POST"])])
