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
  ``JSONDecodeError`` out of the model;
- the connection cut mid-reply, cut after the finish reason, and a read
  timeout mid-reply: on the typed path too a cut (not "could not reach"), a
  whole reply, a timeout mid-stream, and never a retry that would stream the
  text twice;
- frames of the wrong shape (a list, a string, null, ``choices`` a string, a
  delta a list, an index a list): a ModelError on both paths, never an
  AttributeError; arguments sent as an object are read as its JSON text.
"""

from __future__ import annotations

import json

import pytest

from ipygenui.models.base import FinishDelta, ModelError, ToolCallDelta, UsageDelta
from ipygenui.models.openai import OpenAIModel
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


TEXT_THEN_CUT = frames(
    chunk({"role": "assistant", "content": "All"}), chunk({"content": " do"}), done=False
)


@pytest.mark.parametrize("typed", PATHS)
async def test_a_cut_mid_stream_reads_as_a_cut_on_both_paths(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    openai_server.script(Reply(sse_body=TEXT_THEN_CUT, cut_before_done=True))
    seen, failure = await collect_until_error(make_model(typed_stream=typed, max_retries=0))
    assert text_of(seen) == "All do"
    assert str(failure).startswith("the connection to test-model at http://127.0.0.1:")
    assert " lost mid-stream (" in str(failure)
    assert str(failure).endswith("; the reply is incomplete")


@pytest.mark.parametrize("typed", PATHS)
async def test_a_cut_after_the_finish_reason_is_a_whole_reply(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    body = frames(
        chunk({"role": "assistant", "content": "All done"}), chunk({}, "stop"), done=False
    )
    openai_server.script(Reply(sse_body=body, cut_before_done=True))
    deltas = await collect(make_model(typed_stream=typed, max_retries=0))
    assert text_of(deltas) == "All done"
    assert deltas[-1] == FinishDelta("stop")


@pytest.mark.parametrize("typed", PATHS)
async def test_a_cut_mid_stream_is_never_retried(openai_server: OpenAIServer, typed: bool) -> None:
    """Our own client retries a refused request; a reply cut after it began
    must not be asked again (its text would stream twice)."""
    openai_server.script(
        Reply(sse_body=TEXT_THEN_CUT, cut_before_done=True), Reply.text_reply("again")
    )
    model = OpenAIModel(
        "test-model", base_url=openai_server.base_url, api_key="k", typed_stream=typed
    )
    try:
        seen, failure = await collect_until_error(model)
    finally:
        await model.aclose()
    # (the aiohttp transport drops bytes it holds unread when the connection
    # dies, so the text kept is not asserted here: see the test above)
    assert " lost mid-stream (" in str(failure)
    assert "again" not in text_of(seen)
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize("typed", PATHS)
async def test_a_read_timeout_mid_stream_reads_the_same_on_both_paths(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    openai_server.script(Reply.text_reply("abcdefgh", stall_after=2))
    model = make_model(typed_stream=typed, timeout=0.3, max_retries=0)
    seen, failure = await collect_until_error(model)
    assert text_of(seen) == "abcd"
    assert " timed out mid-stream (" in str(failure)
    assert str(failure).endswith("; the reply is incomplete")


ODD_FRAMES = [
    pytest.param(b"data: [1, 2]\n\n", "not a JSON object: [1, 2]", id="a-list"),
    pytest.param(b'data: "hello"\n\n', "not a JSON object: 'hello'", id="a-string"),
    pytest.param(b"data: null\n\n", "not a JSON object: None", id="null"),
    pytest.param(
        b'data: {"choices": "x"}\n\n', "a chunk of an unexpected shape", id="choices-a-string"
    ),
    pytest.param(
        b'data: {"choices": [{"index": 0, "delta": ["a"]}]}\n\n',
        "a chunk of an unexpected shape",
        id="delta-a-list",
    ),
    pytest.param(
        b'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": [0]}]}}]}\n\n',
        "a chunk of an unexpected shape",
        id="index-a-list",
    ),
]


@pytest.mark.parametrize("typed", PATHS)
@pytest.mark.parametrize(("frame", "said"), ODD_FRAMES)
async def test_a_frame_of_the_wrong_shape_is_a_model_error(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool, frame: bytes, said: str
) -> None:
    """Not an AttributeError out of the model: the loop shows a ModelError's text."""
    openai_server.script(Reply(sse_body=frames(chunk({"content": "kept"}), frame)))
    seen, failure = await collect_until_error(make_model(typed_stream=typed))
    assert text_of(seen) == "kept"
    assert str(failure).startswith("the server sent ")
    assert said in str(failure)


@pytest.mark.parametrize("typed", PATHS)
async def test_arguments_sent_as_an_object_are_the_calls_arguments(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    call = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": {"x": 1}}}
    body = frames(chunk({"tool_calls": [call]}, "tool_calls"))
    openai_server.script(Reply(sse_body=body))
    deltas = await collect(make_model(typed_stream=typed))
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in calls] == [("c1", "f", {"x": 1})]
