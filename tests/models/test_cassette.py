"""gu.record and gu.replay: a conversation recorded through OpenAIModel against
the local OpenAI-compatible SSE server (tests/openai_server.py), replayed with
no server: the same text, calls and component props, at the recorded pace or
instantly; today's tool results reported where they differ; misses said,
handed to the demo model or raised; no secret in the file."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.components.builtins import Table
from ipygenui.errors import CassetteMissError
from ipygenui.messages import ReasoningPart
from ipygenui.models.base import ModelRequest
from ipygenui.models.cassette._normalize import normalize, shape_key
from openai_server import OpenAIServer, Reply, ToolCall

FAKE_KEY = "sk-cassette-test-0123456789abcdef"
WEATHER = {"city": "Paris", "_status_message": "looking up Paris"}
TABLE = {"title": "Forecast", "rows": [{"day": "Mon", "temp": 21}, {"day": "Tue", "temp": 19}]}


class Weather:
    """A tool whose answer the test changes between recording and replaying."""

    def __init__(self, temp: int = 21) -> None:
        self.temp = temp
        self.calls: list[str] = []

    def tool(self) -> gu.Tool:
        def get_weather(city: str) -> dict[str, Any]:
            """The weather in a city."""
            self.calls.append(city)
            return {"city": city, "temp": self.temp}

        return gu.tool(get_weather)


def script_lesson(server: OpenAIServer) -> None:
    """Two turns: a tool call then a text answer; then a component, then text."""
    server.script(
        Reply.calls(ToolCall("get_weather", WEATHER, id="call_w1"), chunk_size=5),
        Reply.text_reply("It is 21 °C in Paris.", reasoning="Read the result.", chunk_size=3),
        Reply.calls(ToolCall("show_component_Table", TABLE, id="call_t1"), chunk_size=7),
        Reply.text_reply("The table shows two days.", chunk_size=4),
    )


async def converse(model: gu.models.Model, weather: Weather) -> list[gu.Message]:
    rt = gu.Runtime(model=model, tools=[weather.tool()], components=[Table], suggestions=False)
    first = await rt.send("What is the weather in Paris?")
    second = await rt.send("Show it as a table")
    return [first, second]


async def record_lesson(server: OpenAIServer, path: Path) -> list[gu.Message]:
    script_lesson(server)
    model = gu.OpenAIModel("test-model", base_url=server.base_url, api_key=FAKE_KEY)
    return await converse(gu.record(model, path), Weather())


def summary(message: gu.Message) -> dict[str, Any]:
    return {
        "text": message.text,
        "calls": [(p.tool_name, p.parsed_args.value) for p in message.tool_calls],
        "status": type(message.status).__name__,
    }


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_a_recording_holds_a_versioned_header_and_each_step_as_it_streamed(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "lesson.jsonl"
    await record_lesson(openai_server, path)
    header, *entries = lines(path)
    assert header["cassette"] == "ipygenui" and header["version"] == 1
    assert header["model"] == "test-model" and header["recorded"][:2] == "20"
    assert len(entries) == 4  # two steps per turn
    first = entries[0]
    assert set(first) == {"recorded", "model", "request", "deltas", "error"}
    assert first["request"]["messages"][-1] == {
        "role": "user",
        "content": "What is the weather in Paris?",
    }
    assert [t["function"]["name"] for t in first["request"]["tools"]] == [
        "get_weather",
        "show_component_Table",
    ]
    kinds = [d[1] for d in first["deltas"]]
    assert kinds.count("tool_call") > 3  # the arguments in their original chunks
    assert kinds[-2:] == ["usage", "finish"] or kinds[-2:] == ["finish", "usage"]
    pieces = "".join(d[2]["arguments"] for d in first["deltas"] if d[1] == "tool_call")
    assert json.loads(pieces) == WEATHER
    offsets = [d[0] for d in first["deltas"]]
    assert offsets == sorted(offsets) and offsets[0] >= 0
    # ids left out of the request: the next step names the call call_1
    second = entries[1]["request"]["messages"]
    assert second[-2]["tool_calls"][0]["id"] == "call_1"
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": second[-1]["content"],
    }
    assert "reasoning" in [d[1] for d in entries[1]["deltas"]]


async def test_no_key_reaches_the_file(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-from-the-environment-42")
    path = tmp_path / "lesson.jsonl"
    script_lesson(openai_server)
    model = gu.OpenAIModel("test-model", base_url=openai_server.base_url, api_key=FAKE_KEY)
    rt = gu.Runtime(
        model=gu.record(model, path, secrets=["my-marked-secret"]),
        tools=[Weather().tool()],
        components=[Table],
        suggestions=False,
    )
    await rt.send(
        "my key is sk-cassette-test-0123456789abcdef, my token "
        "tok-from-the-environment-42 and my-marked-secret; see "
        "https://user:hunter22@example.com/x?sig=abc"
    )
    text = path.read_text(encoding="utf-8")
    assert "[redacted]" in text
    for secret in (
        FAKE_KEY,
        "tok-from-the-environment-42",
        "my-marked-secret",
        "hunter22",
        "sig=abc",
    ):
        assert secret not in text
    assert "Authorization" not in text and "Bearer" not in text


async def test_a_replay_gives_the_same_text_calls_and_props_without_the_server(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "lesson.jsonl"
    live = await record_lesson(openai_server, path)
    served = len(openai_server.requests)
    weather = Weather()
    replayed = await converse(gu.replay(path, pace="instant"), weather)
    assert [summary(m) for m in replayed] == [summary(m) for m in live]
    assert replayed[1].tool_calls[0].parsed_args.value["rows"] == TABLE["rows"]
    assert weather.calls == ["Paris"]  # the tool ran for real
    assert len(openai_server.requests) == served  # nothing asked of the server


async def test_the_header_names_the_recorded_model_and_date(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "lesson.jsonl"
    await record_lesson(openai_server, path)
    model = gu.replay(path)
    date = lines(path)[0]["recorded"][:10]
    assert model.name == f"Replay of test-model (recorded {date})"
    assert model.offline is True
    chat = gu.Chat(model=model)
    assert chat.runtime.model.name == model.name


async def test_the_recorded_pace_waits_and_a_factor_speeds_it_up(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "slow.jsonl"
    openai_server.script(Reply.text_reply("slowly but surely", chunk_size=2, delay=0.05))
    model = gu.OpenAIModel("test-model", base_url=openai_server.base_url, api_key=FAKE_KEY)
    rt = gu.Runtime(model=gu.record(model, path), suggestions=False)
    live = await rt.send("go")
    last = lines(path)[1]["deltas"][-1][0]
    assert last >= 0.4

    async def replay_seconds(pace: Any) -> float:
        rt = gu.Runtime(model=gu.replay(path, pace=pace), suggestions=False)
        started = time.perf_counter()
        message = await rt.send("go")
        assert message.text == live.text == "slowly but surely"
        return time.perf_counter() - started

    assert await replay_seconds("recorded") >= last * 0.95
    assert await replay_seconds(4.0) >= last / 4 * 0.95
    # each recorded delta arrives on its own, as it did
    request = ModelRequest(messages=lines(path)[1]["request"]["messages"])
    batches = [b async for b in gu.replay(path, pace=50.0).stream_batches(request)]
    assert len(batches) > 5


async def test_a_tool_result_that_differs_today_is_reported(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "lesson.jsonl"
    live = await record_lesson(openai_server, path)
    model = gu.replay(path, pace="instant")
    replayed = await converse(model, Weather(temp=30))
    assert replayed[0].text == live[0].text  # the recorded answer, as recorded
    notes = [p.text for p in replayed[0].parts if isinstance(p, ReasoningPart)]
    assert any("get_weather returned" in n and '"temp": 30' in n for n in notes)
    assert len(model.differences) == 1 and '"temp": 21' in model.differences[0]
    assert model.misses == 0


async def test_one_cassette_holds_many_conversations(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "lessons.jsonl"
    openai_server.script(Reply.text_reply("Bonjour."), Reply.text_reply("Hallo."))
    model = gu.OpenAIModel("test-model", base_url=openai_server.base_url, api_key=FAKE_KEY)
    for prompt in ("Say hello in French", "Say hello in German"):
        await gu.Runtime(model=gu.record(model, path), suggestions=False).send(prompt)
    assert len(lines(path)) == 3  # one header
    replay = gu.replay(path, pace="instant")
    for prompt, answer in (("Say hello in German", "Hallo."), ("Say hello in French", "Bonjour.")):
        message = await gu.Runtime(model=replay, suggestions=False).send(prompt)
        assert message.text == answer


async def test_a_miss_is_said_with_the_nearest_requests_or_falls_back_or_raises(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "lesson.jsonl"
    await record_lesson(openai_server, path)
    tools = [Weather().tool()]

    said = await gu.Runtime(
        model=gu.replay(path), tools=tools, components=[Table], suggestions=False
    ).send("What is the weather in Pariss?")
    assert "no recorded answer" in said.text
    assert "“What is the weather in Paris?” (line 2)" in said.text
    assert "Asked: “What is the weather in Pariss?”" in said.text

    demo = await gu.Runtime(
        model=gu.replay(path, on_miss="demo"), components=[Table], suggestions=False
    ).send("Show a table of sample data")
    assert "no recorded answer" not in demo.text
    assert [p.tool_name for p in demo.tool_calls] == ["show_component_Table"]  # the demo's

    raised = await gu.Runtime(model=gu.replay(path, on_miss="error"), suggestions=False).send(
        "What is the weather in Paris?"
    )  # no tools offered: another request
    assert raised.status.reason == "error"  # type: ignore[union-attr]
    assert "no recorded answer" in raised.status.error  # type: ignore[union-attr]
    with pytest.raises(CassetteMissError, match=r"lesson\.jsonl"):
        async for _ in gu.replay(path, on_miss="error").stream(ModelRequest(messages=[])):
            pass


async def test_a_recorded_error_is_replayed_as_the_error(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    path = tmp_path / "error.jsonl"
    openai_server.script(Reply(text="half an ans", error_after=2))
    model = gu.OpenAIModel("test-model", base_url=openai_server.base_url, api_key=FAKE_KEY)
    live = await gu.Runtime(model=gu.record(model, path), suggestions=False).send("go")
    assert lines(path)[1]["error"]
    again = await gu.Runtime(model=gu.replay(path, pace="instant"), suggestions=False).send("go")
    assert again.text == live.text
    assert "(as recorded)" in again.status.error  # type: ignore[union-attr]


def test_normalizing_leaves_ids_out() -> None:
    def request(call_id: str) -> ModelRequest:
        return ModelRequest(
            messages=[
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                            "_provider_data": {"x": {"sig": call_id}},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": call_id, "content": "1"},
                {"role": "user", "content": f'<component_state id="{call_id}">{{}}'},
            ],
            tools=[{"type": "function", "function": {"name": f"update_component_{call_id}"}}],
        )

    one, two = normalize(request("call_aaaaaaaaaaaa")), normalize(request("call_bbbbbbbbbbbb"))
    assert one == two and shape_key(one) == shape_key(two)
    assert one["tools"][0]["function"]["name"] == "update_component_call_1"
    assert "_provider_data" not in one["messages"][1]["tool_calls"][0]


def test_pace_and_on_miss_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="pace must be"):
        gu.replay(tmp_path / "x.jsonl", pace=0)
    with pytest.raises(ValueError, match="on_miss must be"):
        gu.replay(tmp_path / "x.jsonl", on_miss="shrug")  # type: ignore[arg-type]


def test_what_is_no_model_is_refused_by_record(tmp_path: Path) -> None:
    class Agent:
        name = "an agent"

        def run(self, request: Any) -> Any:
            return iter(())

    with pytest.raises(TypeError, match="is an agent"):
        gu.record(Agent(), tmp_path / "a.jsonl")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="needs a model"):
        gu.record(5, tmp_path / "a.jsonl")  # type: ignore[arg-type]
    assert not (tmp_path / "a.jsonl").exists()
    named = gu.record("demo", tmp_path / "demo.jsonl")  # a name, as model= takes
    assert named.name == gu.DemoModel().name and named.offline
