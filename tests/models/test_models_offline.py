"""resolve_model, the offline DemoModel and ScriptedModel's script forms."""

from __future__ import annotations

import pytest

import ipygenui as gu
from ipygenui.models.base import ModelError, ModelRequest, TextDelta, ToolCallDelta
from ipygenui.models.select import resolve_model
from ipygenui.testing import ScriptedModel
from runtime_helpers import call


def test_default_model_is_the_offline_demo_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = resolve_model(None)
    assert isinstance(model, gu.DemoModel) and model.offline and model.name == "offline demo"
    assert gu.Runtime().model.offline


def test_default_model_is_openai_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_MODEL", "my-model")
    model = resolve_model(None)
    assert type(model).__name__ == "OpenAIModel" and not model.offline


def test_a_model_without_stream_is_refused() -> None:
    with pytest.raises(TypeError, match="stream"):
        resolve_model(object())  # type: ignore[arg-type]


async def test_demo_explains_itself_and_streams_markdown() -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0))
    message = await rt.send("hello")
    assert "offline demo model" in message.text and "\n- " in message.text  # a markdown list
    message = await rt.send("How do I use a real model?")
    assert "OPENAI_API_KEY" in message.text and "```python" in message.text


async def test_demo_calls_get_weather_when_registered() -> None:
    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city, "temperature_c": 20}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    message = await rt.send("What's the weather in Berlin?")
    part = message.tool_calls[0]
    assert (
        part.args == {"city": "Berlin"}
        and part.status_message == "looking up the weather in Berlin"
    )
    assert part.result == {"city": "Berlin", "temperature_c": 20}
    assert message.text == "It's 20 °C in Berlin."

    without = gu.Runtime(model=gu.DemoModel(delay=0))
    reply = await without.send("weather please")
    assert "get_weather" in reply.text and not reply.tool_calls


async def collect(model: ScriptedModel, user: str = "hi") -> list:
    request = ModelRequest(messages=[{"role": "user", "content": user}])
    return [d async for d in model.stream(request)]


async def test_scripted_mapping_picks_by_the_last_user_message() -> None:
    model = ScriptedModel({"weather": "sunny", "hello": "hi there"}, default="what?")
    assert (
        "".join(d.text for d in await collect(model, "Hello!") if isinstance(d, TextDelta))
        == "hi there"
    )
    assert (
        "".join(d.text for d in await collect(model, "WEATHER") if isinstance(d, TextDelta))
        == "sunny"
    )
    assert "".join(d.text for d in await collect(model, "?") if isinstance(d, TextDelta)) == "what?"
    assert len(model.requests) == 3


async def test_scripted_calls_stream_arguments_in_chunks_and_run_out_clearly() -> None:
    model = ScriptedModel(
        [[call("a", {"x": "long value"}, id="1"), call("b", {}, id="2")]], chunk_size=3
    )
    deltas = await collect(model)
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls[0].id == "1" and calls[0].name == "a"
    assert "".join(d.arguments for d in calls if d.index == 0) == '{"x": "long value"}'
    assert max(len(d.arguments) for d in calls) == 3
    assert {d.index for d in calls} == {0, 1}
    with pytest.raises(ModelError, match="no scripted reply"):
        await collect(model)


def test_a_scripted_call_may_stream_its_arguments_in_longer_pieces() -> None:
    from ipygenui.testing import ScriptedCall, ScriptedReply

    model = ScriptedModel(chunk_size=3)
    long = ScriptedCall("a", {"x": "long value"}, chunk_size=8)
    reply = ScriptedReply(tool_calls=[long])
    pieces = [d.arguments for d in model.deltas(reply) if isinstance(d, ToolCallDelta)][1:]
    assert pieces == ['{"x": "l', "ong valu", 'e"}']


async def test_demo_shows_registered_components_with_streamed_props() -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0), components=[gu.Chart, gu.Table])
    message = await rt.send("Show me a chart")
    part = message.tool_calls[0]
    assert part.tool_name == "show_component_Chart" and not part.is_error
    assert part.args["x"][0] == "Jan" and part.status_message == "drawing a chart"
    assert "highest is 2026 in Jun" in message.text  # a sentence from the props
    plain = await rt.send("metrics please")  # Metric is not registered: no call
    assert not plain.tool_calls
