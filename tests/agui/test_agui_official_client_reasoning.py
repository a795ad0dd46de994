"""Reasoning out of ``rt.ag_ui_app()`` as the official AG-UI client
(``@ag-ui/client``'s ``HttpAgent``, its own verifier in its pipeline) reads it.

Faults tried: a signed thought from a real pydantic-ai stream (its
``FunctionModel``, through ``ProviderModel``) before a tool call, and a
second unsigned one before the answer: each reasoning message goes out inside
its own REASONING_START / REASONING_END span, the signature as the message's
REASONING_ENCRYPTED_VALUE and again in the closing MESSAGES_SNAPSHOT (which
replaces the message wholesale), an unsigned thought with none.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import messages as pm
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel

import ipygenui as gu
from agui_agents import serve
from agui_peer import drive, official_client_available
from ipygenui.models.providers import ProviderModel


@pytest.fixture(autouse=True)
def _peers() -> None:
    official_client_available()


@gu.tool
def add(a: int, b: int) -> int:
    return a + b


async def thinking(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """A signed thought and a call, then an unsigned thought and the answer."""
    if not any(
        isinstance(m, pm.ModelRequest) and any(isinstance(p, pm.ToolReturnPart) for p in m.parts)
        for m in messages
    ):
        yield {0: DeltaThinkingPart(content="Two numbers: ")}
        yield {0: DeltaThinkingPart(content="add them.", signature="sig-opaque-1")}
        yield {1: DeltaToolCall(name="add", json_args='{"a": 2, "b": 3}', tool_call_id="a1")}
    else:
        yield {0: DeltaThinkingPart(content="It returned 5.")}
        yield "It is 5."


async def test_reasoning_goes_out_in_spans_with_the_providers_signature() -> None:
    rt = gu.Runtime(model=ProviderModel(FunctionModel(stream_function=thinking)), tools=[add])
    app = rt.ag_ui_app()
    with serve(app) as url:
        [report] = await drive(url, app.token, [{"add": [{"role": "user", "content": "2+3?"}]}])
    assert "error" not in report, report["error"]
    reasoning = [e for e in report["events"] if e["type"].startswith("REASONING")]
    signed, unsigned = (m["id"] for m in report["messages"] if m["role"] == "reasoning")
    assert [(e["type"], e.get("messageId") or e.get("entityId")) for e in reasoning] == [
        ("REASONING_START", signed),
        ("REASONING_MESSAGE_START", signed),
        ("REASONING_MESSAGE_CONTENT", signed),
        ("REASONING_MESSAGE_CONTENT", signed),
        ("REASONING_MESSAGE_END", signed),
        ("REASONING_ENCRYPTED_VALUE", signed),
        ("REASONING_END", signed),
        ("REASONING_START", unsigned),
        ("REASONING_MESSAGE_START", unsigned),
        ("REASONING_MESSAGE_CONTENT", unsigned),
        ("REASONING_MESSAGE_END", unsigned),
        ("REASONING_END", unsigned),
    ]
    value = next(e for e in reasoning if e["type"] == "REASONING_ENCRYPTED_VALUE")
    assert value["subtype"] == "message" and value["encryptedValue"] == "sig-opaque-1"
    thoughts = [m for m in report["messages"] if m["role"] == "reasoning"]
    assert [(m["content"], m.get("encryptedValue")) for m in thoughts] == [
        ("Two numbers: add them.", "sig-opaque-1"),  # the snapshot restates the artefact
        ("It returned 5.", None),
    ]
    said = [m.get("content") for m in report["messages"] if m["role"] == "assistant"]
    assert said[-1] == "It is 5." and rt.thread.messages[-1].text == "It is 5."
