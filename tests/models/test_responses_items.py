"""``openai-responses:`` says every input item's ``type``: a strict server
(llama.cpp's, ``tests/models/test_llamacpp_responses.py``) refuses an item
without one ("Cannot determine type of 'item'"), and an assistant message
whose content is not ``output_text`` parts.

The requests are read as the local Responses server (``tests/provider_servers/``)
received them, over a tool loop and a second turn, for a model OpenAI
profiles (``gpt-5``: item ids sent back) and one it does not (no ids).
"""

from __future__ import annotations

from typing import Any

import pytest

import ipygenui as gu
from ipygenui.models._responses_items import typed_items
from provider_servers import Call, ResponsesServer, Turn


@gu.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def untyped(request: dict[str, Any]) -> list[Any]:
    """The input items (and message content parts) of ``request`` without a type."""
    found = []
    for item in request["input"]:
        if "type" not in item:
            found.append(item)
        elif item["type"] == "message":
            want = "output_text" if item["role"] == "assistant" else "input_text"
            content = item["content"]
            if not isinstance(content, list) or any(p.get("type") != want for p in content):
                found.append(item)
    return found


@pytest.mark.parametrize("name", ["gpt-5", "local-model"])
async def test_every_input_item_carries_its_type(name: str) -> None:
    with ResponsesServer() as server:
        server.script(
            Turn(reasoning="Call add.", calls=[Call("add", {"a": 1, "b": 2})]),
            Turn(text="It is 3."),
            Turn(text="You are welcome."),
        )
        model = gu.model(f"openai-responses:{name}", base_url=server.base_url, api_key="k")
        rt = gu.Runtime(model=model, tools=[add])
        await rt.send("1 + 2?")
        reply = await rt.send("Thanks.")
        assert reply.text == "You are welcome."
        assert len(server.requests) == 3
        roles = [i.get("role") for i in server.requests[-1]["input"] if "role" in i]
        assert roles[-2:] == ["assistant", "user"]  # the first turn's reply went back
        for request in server.requests:
            assert untyped(request) == []


def test_other_items_and_keys_are_kept() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "add", "arguments": "{}"}
    parts = [{"type": "input_text", "text": "hi"}]
    items = [
        call,
        {"role": "assistant", "content": "Done.", "phase": "final_answer"},
        {"type": "message", "role": "user", "content": parts},
    ]
    assert typed_items(items) == [
        call,
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
            "phase": "final_answer",
        },
        {"type": "message", "role": "user", "content": parts},
    ]
