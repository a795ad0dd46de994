"""Shared test helpers for runtime tests: scripted calls and a model that blocks mid-stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from ipygenui.models.base import ModelDelta, ModelRequest, TextDelta, ToolCallDelta
from ipygenui.models.history import check_openai_history
from ipygenui.testing import ScriptedCall, ScriptedModel


def call(
    name: str, args: dict[str, Any] | str | None = None, id: str | None = None
) -> ScriptedCall:
    return ScriptedCall(name, {} if args is None else args, id=id)


def tool_messages(request: ModelRequest) -> dict[str, Any]:
    """tool_call_id -> parsed content of the tool messages the model received."""
    out = {}
    for entry in request.messages:
        if entry["role"] == "tool":
            try:
                out[entry["tool_call_id"]] = json.loads(entry["content"])
            except ValueError:
                out[entry["tool_call_id"]] = entry["content"]
    return out


def assert_valid(model: ScriptedModel) -> None:
    for request in model.requests:
        check_openai_history(request.messages)


class BlockingModel:
    """Streams ``deltas`` then blocks until cancelled; ``reached`` is set once they are consumed."""

    name = "blocking"
    offline = True

    def __init__(self, deltas: list[ModelDelta]) -> None:
        self.deltas = deltas
        self.reached = asyncio.Event()
        self.cancelled = False
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        self.requests.append(request)
        for delta in self.deltas:
            yield delta
        self.reached.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


__all__ = ["BlockingModel", "TextDelta", "ToolCallDelta", "assert_valid", "call", "tool_messages"]
