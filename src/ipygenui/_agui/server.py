"""``Runtime.ag_ui_app()``: the runtime served to any AG-UI client.

One endpoint, ``POST /``: the body is a ``RunAgentInput``, the response the
run's AG-UI events as server-sent events, from RUN_STARTED to RUN_FINISHED or
RUN_ERROR. What the input asks for: tool messages answering calls that wait
(a human tool's answer, or a client's frontend result) resume the waiting
run; otherwise a new user message at its end starts a run answering it. The
runtime serves its one thread whatever ``thread_id`` the client sends, and
one run at a time (a request while a run is active gets 409).

The app may be served from another thread than the runtime's event loop
(uvicorn in a background thread of a notebook): the runtime is then driven on
its own loop (the one running where ``ag_ui_app()`` was called) and its
events cross over thread-safely.
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
    try:
        home: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        home = None  # no loop where the app was made: the runtime runs on the server's

    async def run_agent(request: Request) -> Response:
        try:
            data = RunAgentInput.model_validate(await request.json())
        except (ValueError, ValidationError) as exc:
            return JSONResponse({"error": f"not a RunAgentInput: {exc}"}, status_code=422)
        here = asyncio.get_running_loop()
        queue: asyncio.Queue[BaseEvent] = asyncio.Queue()

        def deliver(event: BaseEvent) -> None:
            here.call_soon_threadsafe(queue.put_nowait, event)

        async def start() -> tuple[Run, Any]:
            # on the runtime's loop: subscribe, then start, so no event is missed
            if runtime.running:
                raise RuntimeError("a run is active: wait for its end")
            unsubscribe = runtime.subscribe_agui(deliver)
            try:
                return start_from_input(runtime, data), unsubscribe
            except ValueError:
                unsubscribe()
                raise

        try:
            if home is None or home is here:
                run, unsubscribe = await start()
            else:
                run, unsubscribe = await asyncio.wrap_future(
                    asyncio.run_coroutine_threadsafe(start(), home)
                )
        except RuntimeError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        except ValueError as exc:
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
                if home is None or home is here:
                    unsubscribe()
                else:
                    home.call_soon_threadsafe(unsubscribe)

        return StreamingResponse(stream(), media_type=encoder.get_content_type())

    return Starlette(routes=[Route("/", run_agent, methods=["POST"])])
