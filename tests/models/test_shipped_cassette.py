"""The cassette the repository ships (notebooks/cassettes/lesson.cassette,
recorded from llama.cpp's server by scripts/record_lesson.py) replays in a
chat made as the script made its runtime: both turns answered from the file,
with the recorded text, and no miss."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import ipygenui as gu

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "notebooks" / "cassettes" / "lesson.cassette"


def _script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "record_lesson", ROOT / "scripts" / "record_lesson.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recorded_texts() -> list[str]:
    entries = [json.loads(line) for line in LESSON.read_text("utf-8").splitlines()[1:]]
    return ["".join(d[2]["text"] for d in e["deltas"] if d[1] == "text") for e in entries]


async def test_the_shipped_lesson_replays_in_a_chat() -> None:
    script = _script()
    model = gu.replay(LESSON, pace="instant")
    assert model.name.startswith("Replay of smollm2-135m-instruct (recorded 20")
    chat = gu.Chat(model=model, **script.lesson_runtime())
    texts = []
    for prompt in script.PROMPTS:
        reply = await chat.runtime.send(prompt)
        texts.append(reply.text)
    assert texts == _recorded_texts() and all(texts)
    assert model.misses == 0
    assert "api_key" not in LESSON.read_text("utf-8")
    chat.close()
