"""The shipped cassette with a tool call and a component
(notebooks/cassettes/tools_lesson.cassette, recorded by scripts/record_tools_lesson.py
from the local OpenAI-compatible server) replays in a chat with no server:
the recorded text, the same calls with the same arguments and component
props, no miss, instantly and at the recorded pace; recording it again gives
the same file but for its times, the frames paced apart; no key in it."""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path
from typing import Any

import ipygenui as gu

ROOT = Path(__file__).resolve().parents[2]
CASSETTE = ROOT / "notebooks" / "cassettes" / "tools_lesson.cassette"


def _script() -> Any:
    path = ROOT / "scripts" / "record_tools_lesson.py"
    spec = importlib.util.spec_from_file_location("record_tools_lesson", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]


def _recorded_turns() -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """Each turn's text and calls (name, arguments without the ``_`` ones), as
    the file holds them: a turn is a call step then a text step."""
    turns = []
    entries = _entries(CASSETTE)
    for call_step, text_step in zip(entries[::2], entries[1::2], strict=True):
        pieces = [d[2] for d in call_step["deltas"] if d[1] == "tool_call"]
        args = json.loads("".join(p["arguments"] for p in pieces))
        call = (pieces[0]["name"], {k: v for k, v in args.items() if not k.startswith("_")})
        text = "".join(d[2]["text"] for d in text_step["deltas"] if d[1] == "text")
        turns.append((text, [call]))
    return turns


async def _replay(pace: Any) -> tuple[gu.models.Model, list[gu.Message], float]:
    script = _script()
    model = gu.replay(CASSETTE, pace=pace, on_miss="error")
    chat = gu.Chat(model=model, **script.lesson_runtime())
    started = time.perf_counter()
    replies = [await chat.runtime.send(prompt) for prompt in script.PROMPTS]
    seconds = time.perf_counter() - started
    chat.close()
    return model, replies, seconds


def _turns(replies: list[gu.Message]) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    return [(m.text, [(c.tool_name, c.args) for c in m.tool_calls]) for m in replies]


async def test_the_shipped_tools_lesson_replays_instantly_with_its_calls_and_props() -> None:
    model, replies, _ = await _replay("instant")
    assert model.name.startswith("Replay of scripted-lesson (recorded 20")
    recorded = _recorded_turns()
    assert _turns(replies) == recorded
    assert [name for _, calls in recorded for name, _ in calls] == [
        "get_weather",
        "show_component_Table",
    ]
    weather, table = replies[0].tool_calls[0], replies[1].tool_calls[0]
    assert weather.result == {"city": "Paris", "temperature_c": 21, "sky": "clear"}  # ran here
    assert table.component == "Table"
    assert table.args["rows"] == [{"city": "Paris", "temperature_c": 21, "sky": "clear"}]
    assert all(text for text, _ in recorded)
    assert model.misses == 0 and model.differences == []


async def test_the_shipped_tools_lesson_replays_at_its_recorded_pace() -> None:
    recorded = sum(e["deltas"][-1][0] for e in _entries(CASSETTE))
    assert recorded > 1.0  # long enough that a replay ignoring the pace is caught
    model, replies, seconds = await _replay("recorded")
    assert seconds >= recorded * 0.95
    assert _turns(replies) == _recorded_turns() and model.misses == 0


def _without_times(path: Path) -> list[dict[str, Any]]:
    return [
        {"request": e["request"], "deltas": [d[1:] for d in e["deltas"]], "error": e["error"]}
        for e in _entries(path)
    ]


def test_recording_again_gives_the_shipped_cassette_but_its_times(tmp_path: Path) -> None:
    script = _script()
    again = tmp_path / "tools_lesson.cassette"
    delay = 0.004  # the server's pause before each frame, small to keep the test short
    script.record(again, delay=delay)
    assert _without_times(again) == _without_times(CASSETTE)
    for entry in _entries(again):  # the frames came apart, as the shipped ones did
        times = [d[0] for d in entry["deltas"]]
        assert times[-1] - times[0] >= (len(times) - 2) * delay * 0.9
    header = json.loads(CASSETTE.read_text("utf-8").splitlines()[0])
    assert header["note"] == script.NOTE and "scripted" in header["note"].lower()


def test_no_key_reached_the_shipped_tools_lesson() -> None:
    text = CASSETTE.read_text("utf-8")
    assert _script().KEY not in text
    for secret_like in ("api_key", "Bearer", "Authorization", "sk-"):
        assert secret_like not in text
