"""gu.record around ProviderModel (pydantic-ai and each provider's SDK) against
the local servers built from the real APIs' recordings (tests/provider_servers/):
the reasoning, its provider data (signatures, reasoning item ids) and the call
are recorded, replayed with no server, and the key never reaches the file."""

from __future__ import annotations

from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.messages import ReasoningPart
from provider_servers import AnthropicServer, Call, GeminiServer, ResponsesServer, Turn

KEY = "provider-secret-key-31415"
SERVERS = {
    "anthropic:claude-sonnet-4-5": AnthropicServer,
    "google-gla:gemini-2.5-flash": GeminiServer,
    "openai-responses:gpt-5": ResponsesServer,
}


@gu.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@pytest.mark.parametrize("spec", sorted(SERVERS))
async def test_a_native_providers_step_replays_with_its_reasoning_and_call(
    spec: str, tmp_path: Path
) -> None:
    path = tmp_path / "native.jsonl"
    with SERVERS[spec]() as server:
        server.script(Turn(reasoning="Call add.", calls=[Call("add", {"a": 1, "b": 2})]))
        server.script(Turn(text="It is 3."))
        model = gu.model(spec, base_url=server.base_url, api_key=KEY, thinking=True)
        live = await gu.Runtime(model=gu.record(model, path), tools=[add]).send("1 + 2?")
        assert server.refusals == []
    assert live.text == "It is 3."
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert '"provider_data"' in text

    replay = gu.replay(path, pace="instant")
    again = await gu.Runtime(model=replay, tools=[add]).send("1 + 2?")
    assert again.text == live.text and replay.misses == 0
    assert [c.result for c in again.tool_calls] == [3]

    def reasoning(message: gu.Message) -> list[tuple[str, object]]:
        return [(p.text, p.provider_data) for p in message.parts if isinstance(p, ReasoningPart)]

    assert reasoning(again) == reasoning(live)
    assert [c.provider_data for c in again.tool_calls] == [c.provider_data for c in live.tool_calls]
