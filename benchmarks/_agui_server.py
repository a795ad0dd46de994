"""A minimal AG-UI agent server for bench_agui: every POST gets the same run,
one TEXT_MESSAGE_CONTENT event per token, encoded once at start.

Run: ``python benchmarks/_agui_server.py --tokens 2000`` prints ``PORT <n>``.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections.abc import AsyncIterator

import uvicorn
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


def frames(tokens: list[str], thread_id: str, run_id: str) -> list[str]:
    encode = EventEncoder().encode
    return [
        encode(RunStartedEvent(thread_id=thread_id, run_id=run_id)),
        encode(TextMessageStartEvent(message_id="m", role="assistant")),
        *(encode(TextMessageContentEvent(message_id="m", delta=t)) for t in tokens),
        encode(TextMessageEndEvent(message_id="m")),
        encode(RunFinishedEvent(thread_id=thread_id, run_id=run_id)),
    ]


def app(tokens: list[str]) -> Starlette:
    async def run(request: Request) -> Response:
        data = json.loads(await request.body())

        async def body() -> AsyncIterator[str]:
            for frame in frames(tokens, data["threadId"], data["runId"]):
                yield frame

        return StreamingResponse(body(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=2000)
    args = parser.parse_args()
    tokens = [f"w{i % 10}. " for i in range(args.tokens)]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    print(f"PORT {port}", flush=True)
    sys.stdout.flush()
    uvicorn.run(app(tokens), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
