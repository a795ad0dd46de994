"""Record notebooks/cassettes/tools_lesson.cassette: two turns with a tool call and a component.

Where it comes from: the repository's own OpenAI-compatible server
(``tests/openai_server.py``, real HTTP and SSE on 127.0.0.1), read by
``gu.OpenAIModel`` over the official ``openai`` client through ``gu.record``.
The words, calls and props are SCRIPTED here for the lesson, not a model's:
the small real model of ``record_lesson.py`` (SmolLM2-135M on llama.cpp's
server) calls no tool, whatever it is asked. The chunks' shape is a real
server's: DeepSeek's stream as recorded in ``tests/openai_corpus/
deepseek_reasoning_content_tool_call.sse`` (from vercel/ai, Apache-2.0): its
envelope, a call opened by id and name with empty arguments then its
arguments in token-sized pieces, usage in the finish chunk. Each frame is
sent 15 ms after the last, so the recorded pace is a model's.

Turn 1, "What's the weather in Paris?": a ``get_weather`` call, its result
(the tool runs), then text. Turn 2, a table: a ``show_component_Table`` call
with its props, then text.

    .venv/bin/python scripts/record_tools_lesson.py   # writes the cassette, prints both turns

and in a notebook (``get_weather`` as in 01_quickstart.ipynb)::

    gu.Chat(
        model=gu.replay("cassettes/tools_lesson.cassette"),
        tools=[get_weather],
        components=[gu.Table],
    )
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the test server and the recorded stream it serves

import ipygenui as gu  # noqa: E402
from openai_server import OpenAIServer, Reply  # noqa: E402

CASSETTE = ROOT / "notebooks" / "cassettes" / "tools_lesson.cassette"
SHAPE = ROOT / "tests" / "openai_corpus" / "deepseek_reasoning_content_tool_call.sse"
MODEL = "scripted-lesson"
KEY = "sk-lesson-never-in-the-file-5e1f0c"
"""The key the client sends; the script checks the cassette does not hold it."""
PROMPTS = ("What's the weather in Paris?", "Show it as a table, please.")
WEATHER_ARGS = {
    "_status_message": "looking up the weather in Paris",
    "_completion_status_message": "looked up the weather in Paris",
    "city": "Paris",
}
TABLE_ARGS = {
    "_status_message": "showing the weather in Paris as a table",
    "_completion_status_message": "showed the weather in Paris as a table",
    "title": "Weather in Paris",
    "columns": ["city", "temperature_c", "sky"],
    "rows": [{"city": "Paris", "temperature_c": 21, "sky": "clear"}],
}
TEXTS = ("It is 21 °C in Paris, with a clear sky.", "Here is the weather in Paris as a table.")
NOTE = (
    "Scripted for the lesson: served by the repository's tests/openai_server.py in the chunk "
    "shape of a recorded DeepSeek stream (tests/openai_corpus/"
    "deepseek_reasoning_content_tool_call.sse, from vercel/ai, Apache-2.0) and recorded "
    "through gu.OpenAIModel; the small real model of lesson.cassette calls no tool. "
    "Made by scripts/record_tools_lesson.py."
)
DELAY = 0.015
"""Seconds before each frame."""


@gu.tool
def get_weather(city: str) -> dict:  # as in 01_quickstart.ipynb
    """Look up the current weather in a city."""
    return {"city": city, "temperature_c": 21, "sky": "clear"}


def lesson_runtime() -> dict[str, object]:
    """What the lesson's chat is made with, but its model: a replay matches it."""
    return {"tools": [get_weather], "components": [gu.Table]}


def _tokens(text: str) -> list[str]:
    """Token-sized pieces, as a model streams them (a word with its leading space)."""
    return re.findall(r"\s*(?:\w+|[^\w\s]+)", text) or [text]


def _shape() -> dict[str, Any]:
    """The recorded stream's first chunk: its envelope, to wrap every delta in."""
    first = SHAPE.read_bytes().split(b"\n\n", 1)[0]
    chunk: dict[str, Any] = json.loads(first.removeprefix(b"data: "))
    return chunk


def _body(step: int, text: str = "", call: tuple[str, dict[str, Any]] | None = None) -> bytes:
    """One step's SSE body, frame for frame in the recorded stream's shape."""
    shape = _shape()
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": None}]
    deltas += [{"content": piece} for piece in _tokens(text)] if text else []
    if call is not None:
        name, args = call
        head = {"index": 0, "id": f"call_0{step}_lesson", "type": "function"}
        deltas.append({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
        deltas += [
            {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
            for piece in _tokens(json.dumps(args, ensure_ascii=False))
        ]
    frames = []
    for number, delta in enumerate([*deltas, {"content": ""}]):
        last = number == len(deltas)
        choice = {**shape["choices"][0], "delta": delta}
        choice["finish_reason"] = ("tool_calls" if call else "stop") if last else None
        usage = None
        if last:  # scripted counts: a token a frame
            prompt, completion = 300 + 40 * step, len(deltas)
            usage = {"prompt_tokens": prompt, "completion_tokens": completion}
            usage["total_tokens"] = prompt + completion
        chunk = {**shape, "id": f"lesson-{step}", "model": MODEL, "choices": [choice]}
        chunk["usage"] = usage
        frames.append(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n")
    return b"".join(frames) + b"data: [DONE]\n\n"


def replies(delay: float = DELAY) -> list[Reply]:
    """The four steps: a call, text after its result, a component, text after it."""
    bodies = [
        _body(1, call=("get_weather", WEATHER_ARGS)),
        _body(2, text=TEXTS[0]),
        _body(3, call=("show_component_Table", TABLE_ARGS)),
        _body(4, text=TEXTS[1]),
    ]
    return [Reply(sse_body=body, delay=delay) for body in bodies]


def record(path: Path = CASSETTE, delay: float = DELAY) -> list[gu.Message]:
    """Serve the scripted steps, record the two turns to ``path``, return the replies."""
    with OpenAIServer() as server:
        server.script(*replies(delay))
        model = gu.OpenAIModel(MODEL, base_url=server.base_url, api_key=KEY)
        rt = gu.Runtime(**lesson_runtime(), model=gu.record(model, path, new=True))
        messages = [rt.run_sync(prompt) for prompt in PROMPTS]
        model.close()
        if len(server.requests) != 4:
            raise SystemExit(f"expected 4 model steps, the server was asked {len(server.requests)}")
    lines = path.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["note"] = NOTE  # where the conversation came from, for whoever opens the file
    lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n", "utf-8")
    if KEY in path.read_text("utf-8"):
        raise SystemExit(f"{path}: the key reached the file")
    return messages


def main() -> None:
    for prompt, reply in zip(PROMPTS, record(), strict=True):
        print(prompt, "->", [(c.tool_name, c.args) for c in reply.tool_calls], reply.text)
    print(f"wrote {CASSETTE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
