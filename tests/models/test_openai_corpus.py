"""The conformance corpus: real OpenAI-compatible streams through OpenAIModel.

Each body in tests/openai_corpus/ (what it shows, where it came from and the
outcome it must give are in its ``.json``) is served verbatim by
tests/openai_server.py to OpenAIModel over the official ``openai`` client, on
the raw path and with ``typed_stream=True``, whole and cut into 1-, 7- and
64-byte pieces (each written and flushed on its own). Every run must give the
same deltas, the same parts once accumulated, the same error, and the
outcome the corpus file states.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ipygenui.messages import Message, ReasoningPart, TextPart, ToolCallPart
from ipygenui.models.base import (
    FinishDelta,
    ModelDelta,
    ModelError,
    ModelRequest,
    UsageDelta,
    delta_batches,
)
from ipygenui.models.openai import OpenAIModel
from ipygenui.runtime._loop.accumulator import Accumulator
from openai_helpers import HI, ModelFactory
from openai_server import OpenAIServer, Reply

CORPUS = Path(__file__).parents[1] / "openai_corpus"
STREAMS = sorted(CORPUS.glob("*.sse"))
PIECES = (None, 1, 7, 64)
"""Bytes per write: the whole body at once, then ever smaller pieces."""


def spec_of(stream: Path) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(stream.with_suffix(".json").read_text(encoding="utf-8"))
    return spec


async def run(model: OpenAIModel) -> tuple[list[ModelDelta], list[dict[str, Any]], str | None]:
    """The deltas one request streams, the parts they accumulate into, and the
    error it ends with (None when it ends well)."""
    batches = delta_batches(model, ModelRequest(messages=HI))
    assert batches is not None
    message = Message(role="assistant")
    accumulator = Accumulator(message, {})
    deltas: list[ModelDelta] = []
    error = None
    try:
        async for batch in batches:
            deltas += batch
            accumulator.apply_batch(batch)
    except ModelError as failure:
        error = str(failure)
    accumulator.finish()
    return deltas, [summary(part, model.provider_key) for part in message.parts], error


def summary(part: Any, key: str) -> dict[str, Any]:
    """A part as the corpus states it (provider data under this model's key)."""
    data = (getattr(part, "provider_data", None) or {}).get(key)
    if isinstance(part, TextPart):
        out: dict[str, Any] = {"type": "text", "text": part.text}
    elif isinstance(part, ReasoningPart):
        out = {"type": "reasoning", "text": part.text}
    else:
        assert isinstance(part, ToolCallPart)
        out = {"type": "tool-call", "id": part.tool_call_id, "name": part.tool_name}
        out["args"] = part.args
    if data:
        out["provider_data"] = data
    return out


def test_every_stream_says_what_it_shows() -> None:
    assert len(STREAMS) >= 20
    for stream in STREAMS:
        spec = spec_of(stream)
        assert spec["shows"] and spec["expect"]["parts"] is not None, stream.name
        source = spec["source"]
        assert (isinstance(source, str) and source.startswith("hand-written")) or (
            source["repo"] and source["path"] and source["licence"]
        ), stream.name
        assert spec["end"] in ("close", "abort"), stream.name


@pytest.mark.parametrize("stream", STREAMS, ids=[s.stem for s in STREAMS])
async def test_stream(stream: Path, make_model: ModelFactory, openai_server: OpenAIServer) -> None:
    spec = spec_of(stream)
    expect = spec["expect"]
    body = stream.read_bytes()
    runs: dict[str, tuple[list[ModelDelta], list[dict[str, Any]], str | None]] = {}
    for typed in (False, True):
        model = make_model(typed_stream=typed, max_retries=0)
        for size in PIECES:
            openai_server.script(
                Reply(sse_body=body, piece_size=size, cut_before_done=spec["end"] == "abort")
            )
            runs[f"{'typed' if typed else 'raw'}/{size or 'whole'}"] = await run(model)

    first_name, (deltas, parts, error) = next(iter(runs.items()))
    for name, outcome in runs.items():  # the same deltas however the bytes arrive, on both paths
        assert outcome[0] == deltas, f"{name} streamed other deltas than {first_name}"
        assert outcome[1] == parts, f"{name} built other parts than {first_name}"
        assert outcome[2] == error, f"{name} ended otherwise than {first_name}"

    assert parts == expect["parts"]
    finishes = [d.reason for d in deltas if isinstance(d, FinishDelta)]
    assert finishes == ([expect["finish"]] if expect["finish"] else [])
    usages = [d for d in deltas if isinstance(d, UsageDelta)]
    if expect["usage"] is None:
        assert usages == []
    else:
        assert len(usages) == 1
        assert {k: getattr(usages[0], k) for k in expect["usage"]} == expect["usage"]
    if expect.get("error"):
        assert error is not None and expect["error"] in error
        assert error[0].islower() and error.strip() == error  # one phrase the chat can show
    else:
        assert error is None
