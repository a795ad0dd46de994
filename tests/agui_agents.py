"""Real AG-UI agents for tests: pydantic-ai agents behind pydantic-ai's own
AG-UI adapter, served by uvicorn on a loopback port in a background thread.
Their models are pydantic-ai ``FunctionModel``s, so they run offline.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import uvicorn
from ag_ui.core import StateDeltaEvent
from pydantic import BaseModel
from pydantic_ai import Agent, DeferredToolRequests, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import ipygenui as gu


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` on a loopback port in a background thread; yields its URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)


class Notes(BaseModel):
    """The agents' shared state."""

    notes: list[str] = []


def agui_app(agent: Agent[Any, Any]) -> Starlette:
    """The agent behind pydantic-ai's AG-UI adapter: POST / runs it."""

    async def run(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent, deps=StateDeps(Notes()))

    return Starlette(routes=[Route("/", run, methods=["POST"])])


def returned(messages: list[ModelMessage]) -> dict[str, Any]:
    """tool name -> content of the tool returns the model has read."""
    out: dict[str, Any] = {}
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart):
                    out[part.tool_name] = part.content
    return out


async def ops_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """A scripted model step by step: note the request (a tool of the agent's own,
    which updates the shared state), then show a Metric component and ask to
    drop a table (the notebook's tools), then report what the drop returned."""
    seen = returned(messages)
    if "remember" not in seen:
        yield "Noting that. "
        yield {0: DeltaToolCall(name="remember", json_args='{"note": "drop t"}', tool_call_id="m1")}
    elif "drop_table" not in seen:
        yield "Here is the table size; dropping it needs your approval."
        metric = '{"metrics": [{"label": "rows", "value": 42}]}'
        yield {
            0: DeltaToolCall(name="show_component_Metric", json_args=metric, tool_call_id="c1"),
            1: DeltaToolCall(name="drop_table", json_args='{"name": "t"}', tool_call_id="d1"),
        }
    else:
        yield f"Done: {seen['drop_table']}."


def ops_agent() -> Agent[StateDeps[Notes], str]:
    agent: Agent[StateDeps[Notes], str] = Agent(
        FunctionModel(stream_function=ops_stream), name="ops", deps_type=StateDeps[Notes]
    )

    @agent.tool_plain
    def remember(note: str) -> ToolReturn:
        """Keep a note in the shared state."""
        delta = StateDeltaEvent(delta=[{"op": "add", "path": "/note", "value": note}])
        return ToolReturn(return_value="noted", metadata=[delta])

    return agent


async def gated_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """A scripted model with an approval-gated tool of the agent's own: ask to
    delete (showing a Metric component too when the chat offers it), then
    report what the deletion returned (or the user's refusal)."""
    seen = returned(messages)
    if "delete_everything" not in seen:
        yield "Deleting needs your approval. "
        calls: dict[int, DeltaToolCall] = {}
        if any(t.name == "show_component_Metric" for t in info.function_tools):
            metric = '{"metrics": [{"label": "rows", "value": 42}]}'
            calls[0] = DeltaToolCall(
                name="show_component_Metric", json_args=metric, tool_call_id="c1"
            )
        args = '{"where": "prod"}'
        calls[len(calls)] = DeltaToolCall(
            name="delete_everything", json_args=args, tool_call_id="x1"
        )
        yield calls
    else:
        yield f"The agent read: {seen['delete_everything']}."


RAN: list[str] = []
"""What the notebook's own gated tool (``drop_table``) dropped."""


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table (asks first)."""
    RAN.append(name)
    return f"dropped {name}"


DELETED: list[str] = []
"""What the gated agent's own tool deleted (it runs in the agent's process)."""


def gated_agent() -> Agent[StateDeps[Notes], Any]:
    """An agent whose own tool needs the user's approval (pydantic-ai's
    ``requires_approval``): its runs end with an AG-UI interrupt for it."""
    agent: Agent[StateDeps[Notes], Any] = Agent(
        FunctionModel(stream_function=gated_stream),
        name="gated",
        deps_type=StateDeps[Notes],
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def delete_everything(where: str) -> str:
        """Delete everything (asks first)."""
        DELETED.append(where)
        return f"deleted {where}"

    return agent


async def failing_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """A model that starts its answer, then fails (a provider's quota, say)."""
    yield "Let me check. "
    raise RuntimeError("the model's quota is exhausted")


def failing_agent() -> Agent[StateDeps[Notes], str]:
    """An agent whose model fails mid-answer: pydantic-ai's adapter ends its
    run with RUN_ERROR."""
    return Agent(
        FunctionModel(stream_function=failing_stream), name="failing", deps_type=StateDeps[Notes]
    )
