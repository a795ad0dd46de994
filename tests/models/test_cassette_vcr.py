"""ipygenui.testing.cassette: records through a real model (the local
OpenAI-compatible server) when the file is missing, replays it afterwards
with no server, records again with IPYGENUI_RECORD=1 or record=True; and
gu.evaluate replays a registry's recorded run from a cassette."""

from __future__ import annotations

from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.errors import CassetteError
from ipygenui.models.cassette.recording import Recording
from ipygenui.models.cassette.replaying import Replay
from ipygenui.testing import RECORD_ENV, cassette
from openai_server import OpenAIServer, Reply, ToolCall


def server_model(server: OpenAIServer) -> gu.OpenAIModel:
    return gu.OpenAIModel("test-model", base_url=server.base_url, api_key="sk-vcr-test-key-000")


def test_records_first_then_replays_then_records_again(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cassettes" / "hello.jsonl"
    monkeypatch.delenv(RECORD_ENV, raising=False)
    openai_server.script(Reply.text_reply("Hello, recorded."))
    first = cassette(path, lambda: server_model(openai_server))
    assert isinstance(first, Recording)
    assert gu.Runtime(model=first, suggestions=False).run_sync("hi").text == "Hello, recorded."

    second = cassette(path, lambda: pytest.fail("no model is made to replay"))
    assert isinstance(second, Replay) and second.pace == "instant"
    assert gu.Runtime(model=second, suggestions=False).run_sync("hi").text == "Hello, recorded."
    assert len(openai_server.requests) == 1
    missed = gu.Runtime(model=second, suggestions=False).run_sync("something else")
    assert missed.status.reason == "error"  # type: ignore[union-attr]
    assert "no recorded answer" in missed.status.error  # type: ignore[union-attr]

    monkeypatch.setenv(RECORD_ENV, "1")
    openai_server.script(Reply.text_reply("Hello again."))
    third = cassette(path, server_model(openai_server))
    assert isinstance(third, Recording)
    gu.Runtime(model=third, suggestions=False).run_sync("hi")
    assert len(path.read_text().splitlines()) == 2  # started afresh: header and one step
    monkeypatch.delenv(RECORD_ENV)
    again = gu.Runtime(model=cassette(path), suggestions=False).run_sync("hi")
    assert again.text == "Hello again."


def test_a_missing_cassette_without_a_model_skips_or_says_so(tmp_path: Path) -> None:
    with pytest.raises(pytest.skip.Exception, match="no model to record it with"):
        cassette(tmp_path / "none.jsonl", lambda: None)
    with pytest.raises(CassetteError, match="record=False"):
        cassette(tmp_path / "none.jsonl", record=False)


async def test_evaluate_replays_a_recorded_run(openai_server: OpenAIServer, tmp_path: Path) -> None:
    @gu.tool
    def get_weather(city: str) -> dict[str, str]:
        """Current weather for a city."""
        return {"city": city}

    prompts = [("What's the weather in Paris?", "get_weather"), ("Chart my sales", "Chart")]
    openai_server.script(
        Reply.calls(ToolCall("get_weather", {"city": "Paris"})),
        Reply.calls(ToolCall("show_component_Chart", {"title": "Sales", "series": []})),
    )
    path = tmp_path / "eval.jsonl"
    recorder = gu.record(server_model(openai_server), path)
    options = {"components": [gu.Chart], "tools": [get_weather], "concurrency": 1}
    live = await gu.evaluate(prompts, model=recorder, **options)
    served = len(openai_server.requests)

    replayed = await gu.evaluate(prompts, model=gu.replay(path, pace="instant"), **options)
    assert len(openai_server.requests) == served
    columns = ("prompt", "called", "kind", "valid", "input_tokens", "output_tokens")
    rows = [tuple(row[c] for c in columns) for row in replayed.to_dict("records")]
    assert rows == [tuple(row[c] for c in columns) for row in live.to_dict("records")]
    assert [r[1] for r in rows] == ["get_weather", "Chart"]
    assert replayed.accuracy == 1.0

    strict = gu.replay(path, pace="instant", on_miss="error")
    missed = await gu.evaluate(["Something never recorded"], model=strict, **options)
    assert missed.to_dict("records")[0]["kind"] == "error"
    assert strict.misses == 1
