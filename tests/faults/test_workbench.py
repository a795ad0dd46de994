"""Faults tried with the workbench's browser requests (``gu.Workbench.answer``).

Tried here:
- a replay of 200,000 characters of props in 1-character chunks: the answer
  is bounded (at most ``MAX_STATES`` states, ``MAX_REPLAY_CHARS`` characters
  of text in all), its last state the whole text;
- props 100,000 levels deep, checked and replayed: a clear error naming the
  depth limit, never a RecursionError; the workbench answers the next request.
"""

from __future__ import annotations

from pydantic import BaseModel

import ipygenui as gu
from ipygenui.workbench import Workbench
from ipygenui.workbench._protocol import read_request
from ipygenui.workbench._replay import MAX_REPLAY_CHARS, MAX_STATES


class Note(BaseModel):
    text: str


NOTE = gu.Component("Note", Note, description="A note", esm="export function render() {}")


def request(kind: str, text: str, chunk_chars: int = 0) -> dict:
    message = {"type": kind, "ref": 1, "name": "Note", "text": text}
    if kind == "replay":
        message["chunk_chars"] = chunk_chars
    parsed = read_request(message)
    assert parsed is not None
    return Workbench(components=[NOTE]).answer(parsed)


def test_a_long_replay_in_one_character_chunks_is_bounded() -> None:
    text = '{"text": "' + "x" * 199_980 + '"}'
    answer = request("replay", text, chunk_chars=1)
    states = answer["states"]
    assert 1 < len(states) <= MAX_STATES
    assert sum(len(s["text"]) for s in states) <= MAX_REPLAY_CHARS
    assert states[-1]["text"] == text and states[-1]["complete"]
    assert answer["error"] is None


def test_props_100_000_levels_deep_get_a_clear_error_at_the_depth_limit() -> None:
    from ipygenui.workbench.widget import MAX_PROPS_DEPTH

    deep = "[" * 99_999 + "]" * 99_999
    for kind in ("check_props", "replay"):
        answer = request(kind, deep, chunk_chars=5)
        assert answer["error"] == (
            f"the props are refused: nested more than {MAX_PROPS_DEPTH} levels deep "
            f"(limit {MAX_PROPS_DEPTH})"
        )
        assert answer.get("states", []) == []
    assert request("check_props", '{"text": "ok"}')["error"] is None
