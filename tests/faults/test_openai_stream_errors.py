"""In-stream errors read the same on the raw path and with ``typed_stream=True``.

A provider that fails after HTTP 200 says so inside the stream; the user must
read the provider's words whichever path the model reads it by. Tried, each
through the real ``openai`` client against tests/openai_server.py serving the
bytes verbatim:
- Groq's ``event: error`` frame (``tool_use_failed``) after some text;
- OpenRouter's error chunk that still carries ``choices`` (``finish_reason:
  "error"``): not a silent finish;
- vLLM's error object alone in a data frame;
- ``"error": null`` beside a usage chunk: no error at all;
- a frame that is not JSON: the same error on both paths, never a bare
  ``JSONDecodeError`` out of the model.
"""

from __future__ import annotations

import json

import pytest

from ipygenui.models.base import FinishDelta, ModelError, UsageDelta
from openai_helpers import ModelFactory, collect, collect_until_error, text_of
from openai_server import OpenAIServer, Reply

PATHS = [pytest.param(False, id="raw"), pytest.param(True, id="typed")]


def frames(*payloads: object, done: bool = True) -> bytes:
    body = b""
    for payload in payloads:
        if isinstance(payload, bytes):
            body += payload
        else:
            body += b"data: " + json.dumps(payload).encode() + b"\n\n"
    return body + (b"data: [DONE]\n\n" if done else b"")


def chunk(
    delta: dict[str, object], finish: str | None = None, **extra: object
) -> dict[str, object]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


GROQ_MESSAGE = (
    "tool call validation failed: parameters for tool HassTurnOff did not match schema: "
    "errors: [`/domain`: expected array, but got string]"
)


@pytest.mark.parametrize("typed", PATHS)
async def test_groq_event_error_names_the_providers_words(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    error = {
        "error": {
            "message": GROQ_MESSAGE,
            "type": "invalid_request_error",
            "code": "tool_use_failed",
        }
    }
    body = frames(
        chunk({"role": "assistant", "content": "Turning it off"}),
        b"event: error\ndata: " + json.dumps(error).encode() + b"\n\n",
        done=False,
    )
    openai_server.script(Reply(sse_body=body))
    seen, failure = await collect_until_error(make_model(typed_stream=typed))
    assert text_of(seen) == "Turning it off"  # what came before is kept
    assert str(failure) == (
        f"the server reported an error mid-stream: {GROQ_MESSAGE} (tool_use_failed)"
    )


@pytest.mark.parametrize("typed", PATHS)
async def test_an_error_chunk_with_choices_is_an_error_not_a_finish(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    """OpenRouter's mid-stream error: the error beside a choice ending in "error"."""
    body = frames(
        chunk({"role": "assistant", "content": "Hello"}),
        chunk(
            {"content": ""},
            "error",
            provider="openai",
            error={"code": "server_error", "message": "Provider disconnected unexpectedly"},
        ),
    )
    openai_server.script(Reply(sse_body=body))
    seen, failure = await collect_until_error(make_model(typed_stream=typed))
    assert text_of(seen) == "Hello"
    assert not any(isinstance(d, FinishDelta) for d in seen)
    assert str(failure) == (
        "the server reported an error mid-stream: Provider disconnected unexpectedly (server_error)"
    )


@pytest.mark.parametrize("typed", PATHS)
async def test_vllm_error_frame(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    error = {
        "object": "error",
        "message": "max_tokens must be at least 1, got -3.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
    openai_server.script(Reply(sse_body=frames(chunk({"content": "a"}), {"error": error})))
    _, failure = await collect_until_error(make_model(typed_stream=typed))
    assert str(failure) == (
        "the server reported an error mid-stream: max_tokens must be at least 1, got -3."
    )


@pytest.mark.parametrize("typed", PATHS)
async def test_a_null_error_beside_usage_is_no_error(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    body = frames(
        chunk({"role": "assistant", "content": "ok"}, "stop"),
        {**chunk({}), "choices": [], "usage": usage, "error": None},
    )
    openai_server.script(Reply(sse_body=body))
    deltas = await collect(make_model(typed_stream=typed))
    assert text_of(deltas) == "ok"
    assert next(d for d in deltas if isinstance(d, UsageDelta)).input_tokens == 5
    assert deltas[-1] == FinishDelta("stop")


@pytest.mark.parametrize("typed", PATHS)
async def test_a_frame_that_is_not_json_reads_the_same(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    body = frames(chunk({"content": "abc"}), b"data: {not json\n\n")
    openai_server.script(Reply(sse_body=body))
    seen, failure = await collect_until_error(make_model(typed_stream=typed))
    assert isinstance(failure, ModelError)
    assert text_of(seen) == "abc"
    assert str(failure) == "the server sent a frame that is not JSON: '{not json'"
