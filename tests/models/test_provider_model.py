"""ProviderModel: pydantic-ai's providers behind our model protocol, offline.

The event mapping is driven by pydantic-ai's own ``FunctionModel`` (real
pydantic-ai streaming, its parts manager and events, no network) through a
real ``gu.Runtime`` tool loop; the history conversion both ways is checked on
pydantic-ai's message types. The real wire formats (Anthropic, Gemini,
Responses) are tried in ``tests/models/test_native_providers.py`` against the local
servers in ``tests/provider_servers/``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import messages as pm
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingPart,
    DeltaToolCall,
    FunctionModel,
)
from pydantic_ai.usage import RequestUsage

import ipygenui as gu
from ipygenui.messages import ReasoningPart, ToolCallPart
from ipygenui.models._provider_messages import (
    to_model_messages,
    tool_choice_setting,
    tool_definitions,
)
from ipygenui.models.base import (
    FinishDelta,
    ModelError,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)
from ipygenui.models.demo import DemoModel
from ipygenui.models.history import to_openai_messages
from ipygenui.models.openai import OpenAIModel
from ipygenui.models.providers import ProviderModel, _Events
from ipygenui.models.select import resolve_model
from ipygenui.persistence import decode_thread, encode_thread

KEY = "pydantic-ai:anthropic"
OTHER = "pydantic-ai:google"


@gu.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def returned(messages: list[pm.ModelMessage]) -> bool:
    return any(
        isinstance(part, pm.ToolReturnPart)
        for message in messages
        if isinstance(message, pm.ModelRequest)
        for part in message.parts
    )


class Scripted:
    """A FunctionModel stream function: a signed thought and a call, then text."""

    def __init__(self) -> None:
        self.requests: list[list[pm.ModelMessage]] = []
        self.infos: list[AgentInfo] = []

    async def __call__(
        self, messages: list[pm.ModelMessage], info: AgentInfo
    ) -> AsyncIterator[Any]:
        self.requests.append(messages)
        self.infos.append(info)
        if not returned(messages):
            yield {0: DeltaThinkingPart(content="The user wants ")}
            yield {0: DeltaThinkingPart(content="a sum.", signature="sig-1")}
            yield {1: DeltaToolCall(name="add", json_args='{"a": 1,', tool_call_id="t1")}
            yield {1: DeltaToolCall(json_args=' "b": 2}')}
            yield {2: DeltaToolCall(name="add", json_args='{"a": 2, "b": 2}', tool_call_id="t2")}
        else:
            yield "It is "
            yield "3 and 4."


# --- the loop, through pydantic-ai's FunctionModel -------------------------------


async def test_a_two_step_tool_loop_keeps_the_signed_thought_and_sends_it_back() -> None:
    script = Scripted()
    model = ProviderModel(FunctionModel(stream_function=script))
    rt = gu.Runtime(model=model, tools=[add])
    await rt.send("1 + 2 and 2 + 2?")
    message = rt.thread.messages[-1]
    assert message.status.type == "complete", message.status
    reasoning, first, second, text = message.parts
    assert isinstance(reasoning, ReasoningPart) and reasoning.text == "The user wants a sum."
    stored = reasoning.provider_data["pydantic-ai:function"]  # type: ignore[index]
    assert stored["parts"] == [{"signature": "sig-1", "provider_name": "function"}]
    assert isinstance(first, ToolCallPart) and isinstance(second, ToolCallPart)
    assert (first.tool_call_id, first.result, second.tool_call_id, second.result) == (
        "t1",
        3,
        "t2",
        4,
    )
    assert text.text == "It is 3 and 4."  # type: ignore[union-attr]
    # the second request: the step as the provider wrote it, the results after it
    response, results = script.requests[1][-2:]
    assert isinstance(response, pm.ModelResponse) and isinstance(results, pm.ModelRequest)
    thinking, call_1, call_2 = response.parts
    assert isinstance(thinking, pm.ThinkingPart)
    assert (thinking.content, thinking.signature, thinking.provider_name) == (
        "The user wants a sum.",
        "sig-1",
        "function",
    )
    assert [(c.tool_name, c.args, c.tool_call_id) for c in (call_1, call_2)] == [  # type: ignore[union-attr]
        ("add", '{"a": 1, "b": 2}', "t1"),
        ("add", '{"a": 2, "b": 2}', "t2"),
    ]
    assert [(p.tool_name, p.content, p.tool_call_id) for p in results.parts] == [  # type: ignore[union-attr]
        ("add", "3", "t1"),
        ("add", "4", "t2"),
    ]
    assert [t.name for t in script.infos[0].function_tools] == ["add"]


async def test_a_step_goes_back_in_the_order_the_provider_sent_it() -> None:
    """Text, then a signed thought, then a call (a preamble before reasoning):
    history holds text before calls and reasoning apart; the next request has
    them as they came."""
    requests: list[list[pm.ModelMessage]] = []

    async def preamble(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        requests.append(messages)
        if returned(messages):
            yield "Done."
            return
        yield "Let me check."
        yield {1: DeltaThinkingPart(content="Which tool?", signature="sig-2")}
        yield {2: DeltaToolCall(name="add", json_args='{"a": 1, "b": 2}', tool_call_id="t1")}

    rt = gu.Runtime(model=ProviderModel(FunctionModel(stream_function=preamble)), tools=[add])
    await rt.send("sum?")
    response = next(m for m in requests[1] if isinstance(m, pm.ModelResponse))
    assert [type(p) for p in response.parts] == [pm.TextPart, pm.ThinkingPart, pm.ToolCallPart]


def test_events_text_parts_without_data_count_as_the_one_history_joins() -> None:
    events = _Events("k")
    stream = _StreamStub()
    signed = pm.ThinkingPart("Hm.", signature="s", provider_name="openai")
    call = pm.ToolCallPart("add", "{}", "c1")
    for i, part in enumerate([pm.TextPart("a"), signed, pm.TextPart("b"), call]):
        events.deltas(pm.PartStartEvent(index=i, part=part), stream)
        events.deltas(pm.PartEndEvent(index=i, part=part), stream)
    (step,) = [d for d in events.end(stream, True, "here") if isinstance(d, ToolCallDelta)]
    assert step.provider_data == {"k": {"order": ["text", "thinking", "call"]}}


def test_a_forged_order_is_ignored() -> None:
    history = history_with(KEY)
    history[2]["tool_calls"][0]["_provider_data"][KEY]["order"] = ["call", "call", "text"]
    _, response, _ = to_model_messages(history, KEY)
    assert [type(p) for p in response.parts] == [pm.ThinkingPart, pm.TextPart, pm.ToolCallPart]
    history[2]["tool_calls"][0]["_provider_data"][KEY]["order"] = ["text", "call", "thinking"]
    _, response, _ = to_model_messages(history, KEY)
    assert [type(p) for p in response.parts] == [pm.TextPart, pm.ToolCallPart, pm.ThinkingPart]


async def test_the_thought_survives_a_save_and_load(tmp_path: Any) -> None:
    script = Scripted()
    rt = gu.Runtime(model=ProviderModel(FunctionModel(stream_function=script)), tools=[add])
    await rt.send("sum?")
    loaded = decode_thread(encode_thread(rt.thread), tmp_path / "t.json")
    history = to_model_messages(to_openai_messages(loaded, "sys"), "pydantic-ai:function")
    response = next(m for m in history if isinstance(m, pm.ModelResponse))
    assert isinstance(response.parts[0], pm.ThinkingPart)
    assert response.parts[0].signature == "sig-1"


async def test_stream_deltas_are_ours() -> None:
    model = ProviderModel(FunctionModel(stream_function=Scripted()))
    request = ModelRequest(
        messages=[{"role": "user", "content": "sum?"}], tools=[add.openai_schema()]
    )
    deltas = [d async for d in model.stream(request)]
    assert deltas[0] == ReasoningDelta("The user wants ")
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert [(c.index, c.id, c.name) for c in calls if c.name] == [
        (0, "t1", "add"),
        (1, "t2", "add"),
    ]
    assert "".join(c.arguments for c in calls if c.index == 0) == '{"a": 1, "b": 2}'
    assert deltas[-1] == FinishDelta("tool_calls")


async def test_a_fast_stream_comes_in_batches() -> None:
    """The SDKs yield to the loop after every event: read one by one, each
    event would cost the runtime a change of its own."""
    pieces = [f"w{i} " for i in range(300)]

    async def fast(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in pieces:
            await asyncio.sleep(0)  # as an SDK's checkpoint after each event
            yield piece

    model = ProviderModel(FunctionModel(stream_function=fast))
    batches = [b async for b in model.stream_batches(request_for("hi"))]
    texts = [d.text for b in batches for d in b if isinstance(d, TextDelta)]
    assert "".join(texts) == "".join(pieces)
    assert len(batches) < len(pieces) / 4


def request_for(text: str) -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": text}])


async def test_a_reader_that_stops_early_ends_the_stream_now() -> None:
    closed: list[bool] = []

    async def endless(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            yield "Hi"
            await asyncio.Event().wait()  # never set
        finally:
            closed.append(True)

    stream = ProviderModel(FunctionModel(stream_function=endless)).stream(request_for("hi"))
    assert await anext(stream) == TextDelta("Hi")
    await stream.aclose()  # what the loop does when a run is stopped between deltas
    assert closed == [True]


async def test_settings_and_tool_choice_reach_the_request() -> None:
    seen: list[Any] = []

    async def text(messages: list[pm.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        seen.append(info.model_settings)
        yield "ok"

    model = ProviderModel(FunctionModel(stream_function=text), temperature=0.2, max_tokens=50)
    choice = {"type": "function", "function": {"name": "add"}}
    request = ModelRequest(
        messages=[{"role": "user", "content": "hi"}],
        tools=[add.openai_schema()],
        tool_choice=choice,
    )
    deltas = [d async for d in model.stream(request)]
    assert deltas[0] == TextDelta("ok")
    (settings,) = seen
    assert settings["temperature"] == 0.2 and settings["max_tokens"] == 50
    assert settings["tool_choice"] == ["add"]
    assert settings["max_retries"] == 0  # the SDK's retries are off: ours say what they wait for


def test_events_whole_arguments_are_one_delta_and_each_call_its_own_index() -> None:
    """Gemini and Ollama send a call's arguments as one dict (pydantic-ai's
    part args); it becomes one delta of JSON text, at the call's end."""
    events = _Events("pydantic-ai:google")
    stream = _StreamStub()
    call = pm.ToolCallPart("add", {"a": 1, "b": 2}, "g1", provider_name="google")
    signed = pm.ToolCallPart(
        "add",
        {"a": 5, "b": 6},
        "g2",
        provider_name="google",
        provider_details={"thought_signature": "c2ln"},
    )
    out = events.deltas(pm.PartStartEvent(index=0, part=call), stream)
    assert out == [ToolCallDelta(0, id="g1", name="add")]  # the name at once: a placeholder shows
    out += events.deltas(pm.PartEndEvent(index=0, part=call), stream)
    out += events.deltas(pm.PartStartEvent(index=1, part=signed), stream)
    out += events.deltas(pm.PartEndEvent(index=1, part=signed), stream)
    args = [(d.index, d.arguments) for d in out if isinstance(d, ToolCallDelta) and d.arguments]
    assert [(i, json.loads(a)) for i, a in args] == [(0, {"a": 1, "b": 2}), (1, {"a": 5, "b": 6})]
    data = [d.provider_data for d in out if isinstance(d, ToolCallDelta) and d.provider_data]
    assert data[1]["pydantic-ai:google"]["provider_details"] == {"thought_signature": "c2ln"}


def test_events_a_call_started_twice_is_one_call() -> None:
    events = _Events("k")
    call = pm.ToolCallPart("add", '{"a": 1}', "c1")
    out = events.deltas(pm.PartStartEvent(index=0, part=call), _StreamStub())
    out += events.deltas(pm.PartStartEvent(index=0, part=call), _StreamStub())
    assert out == [ToolCallDelta(0, id="c1", name="add", arguments='{"a": 1}')]


def test_events_reasoning_without_text_keeps_its_data() -> None:
    """An encrypted reasoning item (no summary) still goes back to its provider."""
    events = _Events("pydantic-ai:openai-responses")
    part = pm.ThinkingPart("", id="rs_1", signature="enc", provider_name="openai")
    stream = _StreamStub()
    out = events.deltas(pm.PartStartEvent(index=0, part=part), stream)
    out += events.deltas(pm.PartEndEvent(index=0, part=part), stream)
    text = pm.TextPart("Hi")
    out += events.deltas(pm.PartStartEvent(index=1, part=text), stream)
    (flushed,) = [d for d in out if isinstance(d, ReasoningDelta)]
    assert flushed.text == ""
    assert flushed.provider_data == {
        "pydantic-ai:openai-responses": {
            "parts": [{"id": "rs_1", "signature": "enc", "provider_name": "openai"}],
            "response": {"provider_name": "openai"},
        }
    }
    assert out[-1] == TextDelta("Hi")


class _StreamStub:
    provider_name = "openai"
    provider_url = None
    canonical_system = None
    provider_response_id = None
    finish_reason: str | None = "stop"
    usage = RequestUsage()


def test_events_end_with_usage_the_finish_reason_and_the_steps_text_data() -> None:
    events = _Events("pydantic-ai:openai-responses")
    stream = _StreamStub()
    stream.usage = RequestUsage(
        input_tokens=120,
        output_tokens=40,
        output_reasoning_tokens=25,
        cache_read_tokens=100,
        cache_write_tokens=7,
    )
    text = pm.TextPart("Adding.", id="msg_1", provider_name="openai")
    call = pm.ToolCallPart("add", '{"a": 1}', "call_1", id="fc_1", provider_name="openai")
    for event in (
        pm.PartStartEvent(index=0, part=text),
        pm.PartEndEvent(index=0, part=text),
        pm.PartStartEvent(index=1, part=call),
        pm.PartEndEvent(index=1, part=call),
    ):
        events.deltas(event, stream)
    *rest, usage, finish = events.end(stream, True, "here")
    assert rest == [
        ToolCallDelta(
            0,
            provider_data={
                "pydantic-ai:openai-responses": {
                    "text": [{"id": "msg_1", "provider_name": "openai"}]
                }
            },
        )
    ]
    assert usage == UsageDelta(120, 40, 25, 100, 7)
    assert finish == FinishDelta("tool_calls")  # "stop" after calls is a tool step


@pytest.mark.parametrize(
    ("reason", "ours"),
    [("stop", "stop"), ("length", "length"), ("content_filter", "content_filter")],
)
def test_finish_reasons_map_to_ours(reason: str, ours: str) -> None:
    stream = _StreamStub()
    stream.finish_reason = reason
    assert _Events("k").end(stream, True, "here")[-1] == FinishDelta(ours)  # type: ignore[arg-type]


def test_a_stream_without_a_finish_reason_is_incomplete() -> None:
    stream = _StreamStub()
    stream.finish_reason = None
    with pytest.raises(ModelError, match="ended without a finish reason"):
        _Events("k").end(stream, True, "claude at http://x")


# --- history conversion ------------------------------------------------------------


def history_with(key: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "sum?"},
        {
            "role": "assistant",
            "content": "Adding.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
                    "_provider_data": {
                        key: {
                            "id": "fc_1",
                            "provider_name": "anthropic",
                            "provider_details": {"k": "v"},
                            "text": [{"id": "msg_1", "provider_name": "anthropic"}],
                            "response": {"provider_name": "anthropic", "provider_url": "u"},
                        }
                    },
                }
            ],
            "_reasoning": [
                {
                    "text": "Think.",
                    "provider_data": {
                        key: {
                            "parts": [{"signature": "SIG", "provider_name": "anthropic"}],
                            "response": {"provider_name": "anthropic", "provider_url": "u"},
                        }
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "3"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
            ],
        },
    ]


def test_history_to_pydantic_ai_with_this_providers_data() -> None:
    first, response, last = to_model_messages(history_with(KEY), KEY)
    assert isinstance(first, pm.ModelRequest) and isinstance(last, pm.ModelRequest)
    system, user = first.parts
    assert isinstance(system, pm.SystemPromptPart) and system.content == "Be brief."
    assert isinstance(user, pm.UserPromptPart) and user.content == "sum?"
    assert isinstance(response, pm.ModelResponse)
    assert (response.provider_name, response.provider_url) == ("anthropic", "u")
    thinking, text, call = response.parts
    assert isinstance(thinking, pm.ThinkingPart)
    assert (thinking.content, thinking.signature) == ("Think.", "SIG")
    assert isinstance(text, pm.TextPart) and (text.content, text.id) == ("Adding.", "msg_1")
    assert isinstance(call, pm.ToolCallPart)
    assert (call.tool_call_id, call.id, call.provider_details) == ("toolu_1", "fc_1", {"k": "v"})
    tool, image_message = last.parts
    assert isinstance(tool, pm.ToolReturnPart)
    assert (tool.tool_name, tool.content, tool.tool_call_id) == ("add", "3", "toolu_1")
    assert isinstance(image_message, pm.UserPromptPart)
    words, image = image_message.content  # type: ignore[misc]
    assert words == "and this?"
    assert isinstance(image, pm.BinaryContent) and image.media_type == "image/png"


def test_another_providers_data_is_never_sent() -> None:
    _, response, _ = to_model_messages(history_with(KEY), OTHER)
    assert isinstance(response, pm.ModelResponse)
    assert response.provider_name is None
    text, call = response.parts  # the signed thought is left out
    assert isinstance(text, pm.TextPart) and text.id is None
    assert isinstance(call, pm.ToolCallPart)
    assert (call.id, call.provider_name, call.provider_details) == (None, None, None)
    assert "SIG" not in repr(response) and "fc_1" not in repr(response)


def test_several_thinking_parts_in_one_reasoning_part_keep_their_own_content() -> None:
    history = history_with(KEY)
    history[2]["_reasoning"][0]["provider_data"][KEY]["parts"] = [
        {"content": "Th", "signature": "S1", "provider_name": "anthropic"},
        {"content": "ink.", "signature": "S2", "provider_name": "anthropic"},
    ]
    _, response, _ = to_model_messages(history, KEY)
    thoughts = [p for p in response.parts if isinstance(p, pm.ThinkingPart)]
    assert [(t.content, t.signature) for t in thoughts] == [("Th", "S1"), ("ink.", "S2")]


def test_tools_and_tool_choice() -> None:
    (definition,) = tool_definitions([add.openai_schema()])
    assert definition.name == "add" and definition.description == "Adds two numbers."
    assert definition.parameters_json_schema["properties"].keys() == {"a", "b"}
    assert tool_choice_setting("auto") is None
    assert tool_choice_setting("none") == "none"
    assert tool_choice_setting("required") == "required"
    assert tool_choice_setting({"type": "function", "function": {"name": "add"}}) == ["add"]


# --- names, construction, selection ---------------------------------------------------


def test_names_say_the_model_and_its_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    claude = gu.model("anthropic:claude-sonnet-4-5", api_key="k")
    assert isinstance(claude, ProviderModel)
    assert (claude.name, claude.spec, claude.provider_key) == (
        "claude-sonnet-4-5 (anthropic)",
        "anthropic:claude-sonnet-4-5",
        "pydantic-ai:anthropic",
    )
    assert claude.offline is False
    gemini = gu.model("google-gla:gemini-2.5-flash", api_key="k")
    assert (gemini.name, gemini.spec) == (
        "gemini-2.5-flash (google)",
        "google-gla:gemini-2.5-flash",
    )
    assert isinstance(gu.model("openai:gpt-4o-mini", api_key="k"), OpenAIModel)


@pytest.mark.parametrize(
    "spec",
    [
        "anthropic:claude-sonnet-4-5",
        "google-gla:gemini-2.5-flash",
        "google-vertex:gemini-2.5-flash",
        "openai-responses:gpt-5-mini",
        "groq:openai/gpt-oss-120b",
        "mistral:mistral-large-latest",
        "deepseek:deepseek-chat",
        "openrouter:anthropic/claude-sonnet-4.5",
        "ollama:llama3.2",
    ],
)
def test_base_url_and_api_key_reach_the_providers_client(spec: str) -> None:
    model = gu.model(spec, api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, ProviderModel)
    assert model.base_url.startswith("http://127.0.0.1:9")
    client = model.pydantic_model._provider.client
    security = getattr(getattr(client, "sdk_configuration", None), "security", None)  # Mistral's
    key = (
        getattr(client, "api_key", None)
        or getattr(getattr(client, "_api_client", None), "api_key", None)  # google-genai's
        or getattr(security, "api_key", None)
    )
    assert key == "sk-test"
    model.close()


def test_a_missing_key_or_an_unknown_provider_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        gu.model("anthropic:claude-sonnet-4-5")
    with pytest.raises(ValueError, match="unknown provider 'nosuch'"):
        gu.model("nosuch:model")


ENV_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.mark.parametrize(
    ("env", "spec"),
    [
        ({"ANTHROPIC_API_KEY": "a"}, "anthropic:claude-sonnet-4-5"),
        ({"GEMINI_API_KEY": "g"}, "google-gla:gemini-2.5-flash"),
        ({"GOOGLE_API_KEY": "g"}, "google-gla:gemini-2.5-flash"),
        ({"GROQ_API_KEY": "g"}, "groq:openai/gpt-oss-120b"),
        ({"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}, "openai:gpt-4o-mini"),
        ({}, "demo"),
    ],
)
def test_with_no_model_the_key_in_the_environment_picks(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], spec: str
) -> None:
    for name in (*ENV_KEYS, "GROQ_API_KEY", "MISTRAL_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    model = resolve_model(None)
    assert getattr(model, "spec", None) == spec
    if spec == "demo":
        assert isinstance(model, DemoModel)
    rt = gu.Runtime()
    assert rt.model.name == model.name  # what the header shows


def test_importing_ipygenui_does_not_import_pydantic_ai() -> None:
    code = (
        "import sys, ipygenui as gu\n"
        "rt = gu.Runtime(model='demo')\n"
        "gu.model('openai:gpt-4o-mini', api_key='k')\n"
        "print('pydantic_ai' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False", out.stderr


def test_without_pydantic_ai_the_error_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['pydantic_ai'] = None\n"
        "import ipygenui as gu\n"
        "try:\n"
        "    gu.model('anthropic:claude-sonnet-4-5', api_key='k')\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert 'pip install ".[providers]"' in out.stdout, out.stderr


def test_a_missing_sdk_names_the_extra_that_brings_it() -> None:
    code = (
        "import sys\n"
        "sys.modules['anthropic'] = sys.modules['boto3'] = None\n"
        "import ipygenui as gu\n"
        "for name in ('anthropic:claude-sonnet-4-5', 'bedrock:anthropic.claude-sonnet-4-5'):\n"
        "    try:\n"
        "        gu.model(name, api_key='k')\n"
        "    except ImportError as error:\n"
        "        print(error)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    claude, bedrock = out.stdout.strip().splitlines()
    assert claude.startswith('anthropic:claude-sonnet-4-5 needs pip install ".[providers]"')
    assert 'pip install "pydantic-ai-slim[bedrock]"' in bedrock
