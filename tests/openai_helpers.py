"""Shared by the OpenAIModel tests: a model factory over the local server and stream readers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import openai
import pytest

from ipygenui.models.base import ModelDelta, ModelError, ModelRequest, TextDelta
from ipygenui.models.openai import OpenAIModel
from openai_server import OpenAIServer

HI = [{"role": "user", "content": "hi"}]

ModelFactory = Callable[..., OpenAIModel]


@pytest.fixture
async def make_model(openai_server: OpenAIServer) -> AsyncIterator[ModelFactory]:
    """OpenAIModel over a real openai client aimed at the test server; the
    clients are closed before the test's event loop ends."""
    clients: list[openai.AsyncOpenAI] = []

    def make(**options: Any) -> OpenAIModel:
        client = openai.AsyncOpenAI(
            base_url=openai_server.base_url,
            api_key="test-key",
            max_retries=options.pop("max_retries", 2),
            timeout=options.pop("timeout", 10.0),
        )
        clients.append(client)
        return OpenAIModel("test-model", client=client, **options)

    yield make
    for client in clients:
        await client.close()


async def collect(model: OpenAIModel, request: ModelRequest | None = None) -> list[ModelDelta]:
    request = request or ModelRequest(messages=HI)
    return [delta async for delta in model.stream(request)]


async def collect_until_error(
    model: OpenAIModel, request: ModelRequest | None = None
) -> tuple[list[ModelDelta], ModelError]:
    seen: list[ModelDelta] = []
    with pytest.raises(ModelError) as info:
        async for delta in model.stream(request or ModelRequest(messages=HI)):
            seen.append(delta)
    return seen, info.value


def text_of(deltas: list[ModelDelta]) -> str:
    return "".join(d.text for d in deltas if isinstance(d, TextDelta))
