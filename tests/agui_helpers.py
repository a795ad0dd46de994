"""Shared helpers for the AG-UI server tests: a run's input as a client sends
it, posted to ``rt.ag_ui_app()`` over httpx's ASGI transport with the app's
token, and the event stream parsed with the protocol's own types."""

from __future__ import annotations

from typing import Any

import httpx
from ag_ui.core import RunAgentInput
from pydantic import TypeAdapter


def parse_sse(body: str) -> list[Any]:
    from ag_ui.core import Event

    adapter = TypeAdapter(Event)
    return [
        adapter.validate_json(line[len("data: ") :])
        for line in body.splitlines()
        if line.startswith("data: ")
    ]


def run_input(*messages: Any, thread_id: str = "t1") -> dict[str, Any]:
    data = RunAgentInput(
        thread_id=thread_id, run_id="client-run", messages=list(messages), tools=[], context=[]
    )
    return data.model_dump(mode="json", by_alias=True, exclude_none=True)


def client_headers(app: Any) -> dict[str, str]:
    """What a real client sends: the app's token as a bearer token."""
    return {"accept": "text/event-stream", "authorization": f"Bearer {app.token}"}


async def post(app: Any, body: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.post("/", json=body, headers=client_headers(app))
