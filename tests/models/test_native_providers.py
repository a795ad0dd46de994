"""Native providers through ``gu.model("provider:model", base_url=, api_key=)``
(``ProviderModel`` over pydantic-ai's direct model-request API and each
provider's official SDK) against local servers speaking Anthropic Messages,
Gemini ``streamGenerateContent`` and the OpenAI Responses API
(``tests/provider_servers/``, built from recordings of the real APIs).

Each server answers a follow-up request as its provider does: 200 only when
the provider's data (Anthropic's signed thinking block, Gemini's thought
signature, the Responses reasoning item) came back with the tool call, its
real HTTP 400 otherwise, and a 400 for another provider's data too. So a
two-step tool loop finishing here means the data round-tripped: through the
runtime, through a thread file, and past a switch of provider.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.events import MessagePatched
from ipygenui.messages import Message, ReasoningPart, ToolCallPart
from ipygenui.models.openai import OpenAIModel
from openai_server import OpenAIServer, Reply
from provider_servers import AnthropicServer, Call, GeminiServer, ResponsesServer, Turn
from provider_servers._http import ProviderServer
from provider_servers.gemini import decode_signature

REASONING = "The user wants a sum: call add."


@gu.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@gu.tool(requires_approval=True)
def transfer(amount: int) -> str:
    """Moves money between the user's accounts."""
    return f"moved {amount}"


@dataclass
class Native:
    spec: str
    server: type[ProviderServer]

    def model(self, server: ProviderServer) -> Any:
        return gu.model(self.spec, base_url=server.base_url, api_key="test-key", thinking=True)


ANTHROPIC = Native("anthropic:claude-sonnet-4-5", AnthropicServer)
GEMINI = Native("google-gla:gemini-2.5-flash", GeminiServer)
RESPONSES = Native("openai-responses:gpt-5", ResponsesServer)
NATIVE = {"anthropic": ANTHROPIC, "gemini": GEMINI, "responses": RESPONSES}


def carried(server: ProviderServer, request: dict[str, Any]) -> list[str]:
    """The data ``server`` issued that ``request`` sends back (signatures, item ids)."""
    if isinstance(server, AnthropicServer):
        return [
            block["signature"]
            for message in request["messages"]
            if message["role"] == "assistant" and isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "thinking" and block.get("signature") in server.signatures
        ]
    if isinstance(server, GeminiServer):
        found = []
        for content in request["contents"]:
            for part in content.get("parts") or []:
                signature = part.get("thoughtSignature")
                if signature and decode_signature(signature) in server.signatures:
                    found.append(signature)
        return found
    assert isinstance(server, ResponsesServer)
    issued = set(server.reasoning_of.values())
    return [
        item["id"]
        for item in request["input"]
        if item.get("type") == "reasoning" and item.get("id") in issued
    ]


@pytest.fixture(params=sorted(NATIVE))
def native(request: pytest.FixtureRequest) -> Iterator[tuple[Native, ProviderServer]]:
    provider = NATIVE[request.param]
    with provider.server() as server:
        yield provider, server


def calls_of(message: Message) -> list[ToolCallPart]:
    return [part for part in message.parts if isinstance(part, ToolCallPart)]


async def test_a_two_step_tool_loop_with_reasoning(
    native: tuple[Native, ProviderServer],
) -> None:
    provider, server = native
    server.script(Turn(reasoning=REASONING, calls=[Call("add", {"a": 1, "b": 2})]))
    server.script(Turn(text="It is 3."))
    rt = gu.Runtime(model=provider.model(server), tools=[add])
    message = await rt.send("1 + 2?")
    assert message.text == "It is 3.", message
    assert server.refusals == []
    reasoning = [p for p in message.parts if isinstance(p, ReasoningPart)]
    assert [p.text for p in reasoning] == [REASONING]
    (call,) = calls_of(message)
    assert call.args == {"a": 1, "b": 2} and call.result == 3
    assert carried(server, server.requests[1]), "the provider's data did not go back"
    (row,) = rt.usage()
    assert row["spec"] == provider.spec
    assert row["input_tokens"] == 2 * 21 and row["output_tokens"] == 2 * 34
    assert row["cache_read_tokens"] == 2 * 5
    if provider is not ANTHROPIC:  # Anthropic counts thinking inside output_tokens only
        assert row["reasoning_tokens"] == 2 * 13


async def test_parallel_calls_then_a_second_turn(native: tuple[Native, ProviderServer]) -> None:
    """Two calls in one step (Gemini signs only the first), then a new tool loop
    on the same thread: the second loop's follow-up carries both loops' data."""
    provider, server = native
    both = [Call("add", {"a": 1, "b": 2}), Call("add", {"a": 3, "b": 4})]
    server.script(Turn(reasoning="Two sums.", text="Adding both. ", calls=both))
    server.script(Turn(text="3 and 7."))
    server.script(Turn(reasoning="One more.", calls=[Call("add", {"a": 5, "b": 5})]))
    server.script(Turn(text="10."))
    rt = gu.Runtime(model=provider.model(server), tools=[add])
    first = await rt.send("1 + 2 and 3 + 4?")
    assert first.text == "Adding both. 3 and 7.", first
    assert [call.result for call in calls_of(first)] == [3, 7]
    second = await rt.send("5 + 5?")
    assert second.text == "10.", second
    assert server.refusals == []
    assert len(carried(server, server.requests[-1])) == 2


async def _paused_on_approval(
    provider: Native, server: ProviderServer, path: Path
) -> tuple[gu.Runtime, str]:
    server.script(Turn(reasoning="Move it.", calls=[Call("transfer", {"amount": 5})]))
    rt = gu.Runtime(model=provider.model(server), tools=[transfer], persist=path)
    message = await rt.send("move 5 to savings")
    (call,) = calls_of(message)
    assert message.status.type == "requires-action", message.status
    return rt, call.tool_call_id


async def test_the_loop_continues_after_a_reload_mid_loop(
    native: tuple[Native, ProviderServer], tmp_path: Path
) -> None:
    """Saved while a call waits for approval, loaded by a new runtime, approved
    there: the follow-up needs the provider's data the thread file kept."""
    provider, server = native
    path = tmp_path / "thread.json"
    _, call_id = await _paused_on_approval(provider, server, path)
    server.script(Turn(text="Moved 5."))
    loaded = gu.Runtime(model=provider.model(server), tools=[transfer], persist=path)
    run = loaded.approve(call_id)
    assert run is not None
    final = await run
    assert final.text == "Moved 5.", final
    assert server.refusals == []
    assert carried(server, server.requests[-1])


def _drop_anthropic_thinking(thread: dict[str, Any]) -> None:
    for message in thread["messages"]:
        message["parts"] = [p for p in message["parts"] if p["type"] != "reasoning"]


def _corrupt_gemini_signatures(thread: dict[str, Any]) -> None:
    for message in thread["messages"]:
        for part in message["parts"]:
            details = (part.get("provider_data") or {}).get("pydantic-ai:google") or {}
            if "thought_signature" in details.get("provider_details", {}):
                details["provider_details"]["thought_signature"] = "Y29ycnVwdGVk"


def _drop_responses_reasoning(thread: dict[str, Any]) -> None:
    _drop_anthropic_thinking(thread)


BREAKS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "anthropic": (
        _drop_anthropic_thinking,
        "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
    ),
    "gemini": (_corrupt_gemini_signatures, "Corrupted thought signature."),
    "responses": (
        _drop_responses_reasoning,
        "of type 'function_call' was provided without its required 'reasoning' item",
    ),
}


def _edit_thread_file(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    saved = json.loads(path.read_text(encoding="utf-8"))
    edit(saved["thread"])
    path.write_text(json.dumps(saved), encoding="utf-8")


async def test_a_broken_round_trip_shows_the_providers_400(
    native: tuple[Native, ProviderServer], tmp_path: Path
) -> None:
    """The same reload with the provider's data taken out of the file (Gemini:
    replaced, since pydantic-ai sends Gemini's documented dummy signature for
    a call that has none, which Gemini accepts): the provider's 400 reaches the
    chat in its own words, and the thread keeps the call and its result."""
    provider, server = native
    path = tmp_path / "thread.json"
    paused, call_id = await _paused_on_approval(provider, server, path)
    paused.close()  # one JSON file to edit by hand (it was the file plus its journal)
    edit, words = BREAKS[next(k for k, v in NATIVE.items() if v is provider)]
    _edit_thread_file(path, edit)
    server.script(Turn(text="never sent"))
    loaded = gu.Runtime(model=provider.model(server), tools=[transfer], persist=path)
    run = loaded.approve(call_id)
    assert run is not None
    final = await run
    assert len(server.refusals) == 1
    assert final.status.type == "incomplete", final.status
    error = final.status.error or ""
    assert "HTTP 400" in error and words in error, error
    (call,) = calls_of(loaded.thread.messages[-2]) or calls_of(final)
    assert call.result == "moved 5"


async def test_switching_provider_mid_thread_sends_each_only_its_own_data(
    openai_server: OpenAIServer,
) -> None:
    """Anthropic, then Gemini, then our OpenAIModel, then Anthropic again, one
    tool loop each on one thread: every request is valid for its provider
    (the servers refuse another provider's signatures, OpenAI a field it does
    not know), and none carries another provider's data."""
    with AnthropicServer() as claude, GeminiServer() as gemini:
        rt = gu.Runtime(model=ANTHROPIC.model(claude), tools=[add])
        claude.script(Turn(reasoning="Claude thinks.", calls=[Call("add", {"a": 1, "b": 2})]))
        claude.script(Turn(text="3 says Claude."))
        assert (await rt.send("1 + 2?")).text == "3 says Claude."

        rt.model = GEMINI.model(gemini)
        gemini.script(Turn(reasoning="Gemini thinks.", calls=[Call("add", {"a": 2, "b": 2})]))
        gemini.script(Turn(text="4 says Gemini."))
        assert (await rt.send("2 + 2?")).text == "4 says Gemini."
        claude_signatures = list(claude.signatures)
        for request in gemini.requests:
            wire = json.dumps(request)
            assert not any(signature in wire for signature in claude_signatures)
        assert carried(gemini, gemini.requests[-1])

        rt.model = OpenAIModel("test-model", base_url=openai_server.base_url, api_key="k")
        openai_server.script(
            Reply(text="5 says OpenAI.", refuse_missing="openai"),
        )
        assert (await rt.send("2 + 3?")).text == "5 says OpenAI."
        wire = json.dumps(openai_server.requests[-1])
        for leaked in ("thought_signature", "thoughtSignature", "extra_content", "signature"):
            assert leaked not in wire, leaked
        assert not any(signature in wire for signature in claude_signatures)
        assert len([m for m in openai_server.requests[-1]["messages"] if m.get("tool_calls")]) == 2

        rt.model = ANTHROPIC.model(claude)
        claude.script(Turn(reasoning="Claude again.", calls=[Call("add", {"a": 3, "b": 3})]))
        claude.script(Turn(text="6 says Claude."))
        assert (await rt.send("3 + 3?")).text == "6 says Claude."
        assert claude.refusals == [] and gemini.refusals == []
        last = claude.requests[-1]
        assert len(carried(claude, last)) == 2  # its own first turn and this one
        last_wire = json.dumps(last)
        assert "thoughtSignature" not in last_wire
        assert not any(sig in last_wire for sig in carried(gemini, gemini.requests[-1]))


class ScoreRow(BaseModel):
    id: int
    name: str
    score: int


class ScoresProps(BaseModel):
    title: str
    rows: list[ScoreRow]


SCORES_ESM = "export default { render({ model, el }) { el.textContent = 'scores'; } };"


async def test_a_component_renders_progressively_from_anthropics_input_json_delta() -> None:
    scores = gu.Component("Scores", props=ScoresProps, esm=SCORES_ESM)
    rows = [{"id": i, "name": f"u{i:03d}", "score": 10 + i} for i in range(30)]
    props = {"title": "Scores", "rows": rows}
    seen: list[int] = []

    def watch(event: object) -> None:
        if isinstance(event, MessagePatched) and event.message is not None:
            for part in calls_of(event.message):
                if not part.args_complete:
                    seen.append(len(part.args.get("rows") or []))

    with AnthropicServer() as server:
        call = Call("show_component_Scores", props)
        server.script(Turn(reasoning="A table.", calls=[call], chunk_size=24, delay=0.002))
        server.script(Turn(text="Shown."))
        rt = gu.Runtime(model=ANTHROPIC.model(server), components=[scores])
        rt.subscribe(watch)
        message = await rt.send("show the scores")
        await asyncio.sleep(0)
    assert message.text == "Shown.", message
    partial = [count for count in seen if 0 < count < len(rows)]
    assert len(set(partial)) > 3, seen  # several partial tables, before the end
    (shown,) = rt.shown_components()
    assert shown.name == "Scores" and isinstance(shown.props, ScoresProps)
    assert len(shown.props.rows) == len(rows)
