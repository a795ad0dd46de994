"""The network fault matrix: OpenAIModel through the real ``openai`` client
against the local OpenAI-compatible server (tests/openai_server.py).

Faults tried:
- HTTP 500 (after the client's own retries), 429 retried by a given client,
  429 with no retries left; 400, 401 and 404 never retried;
- 429 with ``Retry-After: 1`` on our own client: retried by the model, the
  wait said aloud and counted down, then cleared; a 503 retried with backoff;
- a ``Retry-After`` of an hour or of "inf": refused at once with a clear error,
  no sleep; every form of the header (ms, seconds, a date, garbage);
- a connection dropped mid-stream, a stream without a finish reason, a
  finish reason without ``[DONE]``, a connection cut just before ``[DONE]``
  (after the finish reason: the reply is whole; before it: incomplete);
- a slow stream; a read timeout mid-stream;
- an error frame mid-stream, a frame that is not JSON;
- an unreachable server (with our own client: retried aloud, then named);
- a server that never answers (no first byte): the silence said aloud
  ("No answer from http://... for N s"), then a timeout error;
- a stall mid-stream: said aloud, the text so far kept, a timeout error;
- a pause that ends: the notice is cleared when bytes come again;
- stop during a retry wait and during a hung request, through the runtime
  and with the request's cancel event alone: the run ends at once and the
  connection is closed;
- the status reaching the widget's ``phase_detail``;
- our own client's defaults: bounded timeouts, retries done by the model;
- a stream trickling one byte inside each read timeout: the run ends at its
  wall-clock limit (``max_run_seconds``) with a status saying so.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest

import ipygenui as gu
from ipygenui.events import RunChanged, ThreadEvent
from ipygenui.messages import Incomplete
from ipygenui.models.base import FinishDelta, ModelRequest
from ipygenui.models.openai import DEFAULT_TIMEOUT, OpenAIModel
from ipygenui.models.waits import retry_after
from openai_helpers import HI, ModelFactory, collect, collect_until_error, text_of
from openai_server import OpenAIServer, Reply

GUARD = 10.0
"""Seconds before a test gives up waiting for something that should be prompt
(a guard against hanging forever, never a timing assertion)."""

# --- HTTP errors and retries -----------------------------------------------------


async def test_http_500_after_the_clients_retries(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply(status=500), Reply(status=500))
    seen, error = await collect_until_error(make_model(max_retries=1))
    assert seen == []
    assert "HTTP 500" in str(error)
    assert "scripted failure 500" in str(error)
    assert len(openai_server.requests) == 2  # the client retried once


async def test_http_429_is_retried_by_the_client(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply(status=429), Reply.text_reply("after the retry"))
    deltas = await collect(make_model(max_retries=2))
    assert text_of(deltas) == "after the retry"
    assert len(openai_server.requests) == 2


async def test_http_429_without_retries_left_is_an_error(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply(status=429))
    _, error = await collect_until_error(make_model(max_retries=0))
    assert "HTTP 429" in str(error)


@pytest.mark.parametrize("typed", [False, True])
async def test_connection_dropped_mid_stream_keeps_the_text(
    make_model: ModelFactory, openai_server: OpenAIServer, typed: bool
) -> None:
    openai_server.script(Reply.text_reply("one two three four five", drop_after=4))
    seen, error = await collect_until_error(make_model(typed_stream=typed))
    assert text_of(seen) == "one two thre"  # 3 text frames after the role frame
    assert not any(isinstance(d, FinishDelta) for d in seen)
    assert "incomplete" in str(error)


async def test_stream_without_finish_reason_is_an_error(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("partial", finish_reason=None))
    seen, error = await collect_until_error(make_model())
    assert text_of(seen) == "partial"
    assert "without a finish reason" in str(error)


async def test_finish_reason_without_done_still_completes(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("whole", send_done=False))
    deltas = await collect(make_model())
    assert deltas[-1] == FinishDelta("stop")


async def test_slow_stream_completes(make_model: ModelFactory, openai_server: OpenAIServer) -> None:
    openai_server.script(Reply.text_reply("slow but fine", delay=0.01))
    assert text_of(await collect(make_model())) == "slow but fine"


async def test_read_timeout_mid_stream_is_an_error(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("abcdefgh", delay=1.0))
    _, error = await collect_until_error(make_model(timeout=0.2, max_retries=0))
    assert "timed out" in str(error)


async def test_error_frame_mid_stream(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("abcdefgh", error_after=2))
    seen, error = await collect_until_error(make_model())
    assert text_of(seen) == "abcd"
    assert "scripted stream error" in str(error)


async def test_frame_that_is_not_json(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("abcdefgh", garbage_after=2))
    _, error = await collect_until_error(make_model())
    assert "not JSON" in str(error)


async def test_unreachable_server() -> None:
    client = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    _, error = await collect_until_error(OpenAIModel("m", client=client))
    assert "connection refused (is the server running? check the model's base_url)" in str(error)


# --- retries said aloud (our own client) ---------------------------------------------


_OWN_MODELS: list[OpenAIModel] = []


@pytest.fixture(autouse=True)
async def _close_own_clients() -> AsyncIterator[None]:
    """The clients our models made are closed before the test's event loop ends."""
    yield
    while _OWN_MODELS:
        await _OWN_MODELS.pop().client.close()


def own_model(server: OpenAIServer | str, **options: Any) -> OpenAIModel:
    """An OpenAIModel with the client it makes itself (no client given)."""
    url = server if isinstance(server, str) else server.base_url
    model = OpenAIModel("test-model", base_url=url, api_key="k", **options)
    _OWN_MODELS.append(model)
    return model


def recording(statuses: list[str]) -> ModelRequest:
    return ModelRequest(messages=HI, status=statuses.append)


async def test_429_with_retry_after_is_retried_and_said_aloud(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(Reply(status=429, retry_after="1"), Reply.text_reply("after the wait"))
    statuses: list[str] = []
    deltas = await collect(own_model(openai_server), recording(statuses))
    assert text_of(deltas) == "after the wait"
    assert len(openai_server.requests) == 2
    where = openai_server.base_url
    assert f"Rate limited by {where}: retrying in 1 s (retry 1 of 2)" in statuses
    assert statuses[-1] == ""  # cleared once the answer came


async def test_5xx_is_retried_with_backoff_and_said_aloud(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(status=503), Reply.text_reply("recovered"))
    statuses: list[str] = []
    deltas = await collect(own_model(openai_server), recording(statuses))
    assert text_of(deltas) == "recovered"
    assert any(
        s.startswith(f"HTTP 503 from {openai_server.base_url}: retrying in") for s in statuses
    )


async def test_retries_run_out_with_the_servers_error(openai_server: OpenAIServer) -> None:
    openai_server.script(*[Reply(status=429, retry_after="0")] * 3)
    _, error = await collect_until_error(own_model(openai_server, max_retries=1))
    assert "HTTP 429" in str(error) and "scripted failure 429" in str(error)
    assert len(openai_server.requests) == 2


async def test_an_unreachable_server_is_retried_aloud_then_named() -> None:
    model = own_model("http://127.0.0.1:9/v1", max_retries=1)
    statuses: list[str] = []
    _, error = await collect_until_error(model, recording(statuses))
    assert "Could not reach http://127.0.0.1:9/v1: retrying in 0.5 s (retry 1 of 1)" in statuses
    assert "could not connect to http://127.0.0.1:9/v1: connection refused" in str(error)


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_a_client_error_is_not_retried(openai_server: OpenAIServer, status: int) -> None:
    openai_server.script(Reply(status=status), Reply.text_reply("never sent"))
    _, error = await collect_until_error(own_model(openai_server))
    assert f"HTTP {status}" in str(error) and f"scripted failure {status}" in str(error)
    assert len(openai_server.requests) == 1


async def test_an_hour_of_retry_after_is_refused_at_once(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(status=429, retry_after="3600"))
    statuses: list[str] = []
    _, error = await collect_until_error(own_model(openai_server), recording(statuses))
    assert "3600 s" in str(error) and "max_retry_wait" in str(error)
    assert len(openai_server.requests) == 1
    assert not any("retrying" in s for s in statuses)


# --- silence: no first byte, a stall mid-stream, a pause ---------------------------

NO_ANSWER = re.compile(r"^No answer from http://127\.0\.0\.1:\d+/v1 for [\d.]+ s$")


async def test_a_server_that_never_answers_is_said_aloud_then_times_out(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(Reply(hang=True))
    model = own_model(openai_server, silence_notice=0.1, timeout=openai.Timeout(1.0, connect=1.0))
    statuses: list[str] = []
    seen, error = await collect_until_error(model, recording(statuses))
    assert seen == []
    assert any(NO_ANSWER.match(s) for s in statuses), statuses
    assert "no answer" in str(error) and "timeout=" in str(error)
    assert len(openai_server.requests) == 1  # a timeout is not retried: the wait was long already


async def test_a_stall_mid_stream_is_said_aloud_and_keeps_the_text(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(Reply.text_reply("abcdefghijkl", stall_after=3))
    model = own_model(openai_server, silence_notice=0.1, timeout=openai.Timeout(1.0, connect=1.0))
    statuses: list[str] = []
    seen, error = await collect_until_error(model, recording(statuses))
    assert text_of(seen) == "abcdefgh"  # 2 text frames after the role frame
    assert any(NO_ANSWER.match(s) for s in statuses), statuses
    assert "timed out mid-stream" in str(error) and "incomplete" in str(error)


async def test_the_silence_notice_clears_when_bytes_come_again(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(Reply.text_reply("slow", delay=0.4, chunk_size=2))
    statuses: list[str] = []
    deltas = await collect(own_model(openai_server, silence_notice=0.1), recording(statuses))
    assert text_of(deltas) == "slow"
    assert any(NO_ANSWER.match(s) for s in statuses)
    assert statuses[-1] == ""


# --- a cut just before [DONE] ----------------------------------------------------------


async def test_a_cut_before_done_after_the_finish_reason_keeps_a_whole_reply(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("whole", cut_before_done=True))
    deltas = await collect(make_model())
    assert text_of(deltas) == "whole"
    assert deltas[-1] == FinishDelta("stop")


async def test_a_cut_before_done_and_before_the_finish_reason_is_incomplete(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("part", finish_reason=None, cut_before_done=True))
    seen, error = await collect_until_error(make_model())
    assert text_of(seen) == "part"
    assert "incomplete" in str(error)


# --- stop always works ---------------------------------------------------------------


async def _first_status(rt: gu.Runtime, pattern: str) -> str:
    """The first phase detail matching ``pattern`` the runtime's views hear."""
    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def listen(event: ThreadEvent) -> None:
        detail = event.detail if isinstance(event, RunChanged) else None
        if detail and re.search(pattern, detail) and not found.done():
            found.set_result(detail)

    unsubscribe = rt.subscribe(listen)
    try:
        return await asyncio.wait_for(found, GUARD)
    finally:
        unsubscribe()


@pytest.mark.parametrize(
    ("reply", "pattern"),
    [
        (Reply(status=429, retry_after="60"), r"^Rate limited by .*: retrying in 60 s"),
        (Reply(hang=True), NO_ANSWER.pattern),
    ],
    ids=["retry-wait", "no-first-byte"],
)
async def test_stop_ends_a_waiting_run_at_once(
    openai_server: OpenAIServer, reply: Reply, pattern: str
) -> None:
    openai_server.script(reply)
    rt = gu.Runtime(model=own_model(openai_server, silence_notice=0.1))
    run = rt.send("hello")
    task = rt._runs.task
    assert task is not None
    await _first_status(rt, pattern)
    rt.cancel()
    message = await run
    assert message.status.type == "incomplete" and message.status.reason == "cancelled"
    await asyncio.wait([task], timeout=GUARD)
    assert task.done()  # the wait itself was interrupted, not left to run out
    assert rt.phase == "idle"
    if reply.hang:
        assert await asyncio.to_thread(openai_server.client_closed.wait, GUARD)
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize(
    "reply", [Reply(status=429, retry_after="60"), Reply(hang=True)], ids=["retry-wait", "hang"]
)
async def test_the_cancel_event_alone_ends_a_waiting_stream(
    openai_server: OpenAIServer, reply: Reply
) -> None:
    openai_server.script(reply)
    statuses: list[str] = []
    request = recording(statuses)
    model = own_model(openai_server, silence_notice=0.1)

    async def cancel_once_waiting() -> None:
        while not statuses:
            await asyncio.sleep(0.01)
        request.cancel.set()

    canceller = asyncio.ensure_future(cancel_once_waiting())
    deltas = await asyncio.wait_for(collect(model, request), GUARD)
    await canceller
    assert deltas == []  # ended quietly: the caller asked for it
    if reply.hang:
        assert await asyncio.to_thread(openai_server.client_closed.wait, GUARD)


async def test_the_widget_header_shows_what_the_run_waits_for(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(Reply(hang=True))
    chat = gu.Chat(model=own_model(openai_server, silence_notice=0.1))
    run = chat.send("hello")
    await _first_status(chat.runtime, NO_ANSWER.pattern)
    assert chat.phase == "thinking"
    assert NO_ANSWER.match(chat.phase_detail)
    chat.cancel()
    await run
    assert chat.phase == "idle" and chat.phase_detail == ""


# --- our own client's defaults -------------------------------------------------------------


def test_our_client_has_bounded_timeouts_and_leaves_retries_to_the_model() -> None:
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    client = model.client
    assert client.timeout == DEFAULT_TIMEOUT
    assert DEFAULT_TIMEOUT.read is not None and DEFAULT_TIMEOUT.read <= 120
    assert DEFAULT_TIMEOUT.connect is not None and DEFAULT_TIMEOUT.connect <= 10
    assert client.max_retries == 0
    given = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=5)
    assert OpenAIModel("m", client=given).client is given  # a given client is kept as it is


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "120"}, 120.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"retry-after": "-5"}, 0.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # a date in the past
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_forms(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers) == seconds


async def test_an_infinite_retry_after_is_refused_with_words(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(status=429, retry_after="inf"))
    _, error = await collect_until_error(own_model(openai_server))
    assert "forever" in str(error) and "max_retry_wait" in str(error)


# --- a stream that trickles: the run's wall-clock limit -----------------------------


async def test_a_trickling_stream_ends_at_the_runs_wall_clock_limit(
    openai_server: OpenAIServer,
) -> None:
    """One byte just inside each read timeout: only ``max_run_seconds`` ends it."""
    openai_server.script(Reply.text_reply("x" * 10_000, delay=0.05, chunk_size=1))
    runtime = gu.Runtime(model=own_model(openai_server, timeout=0.5), max_run_seconds=1.0)
    started = time.monotonic()
    message = await asyncio.wait_for(runtime.send("go"), 30)
    assert time.monotonic() - started < 10  # ended by the limit, not by the 500 s stream
    assert message.status == Incomplete(
        reason="other",
        error="Stopped after 1 s (max_run_seconds): the run took longer than its limit.",
    )
    assert message.text.startswith("x")  # what streamed is kept
    # the next run has its own limit, and works
    openai_server.script(Reply.text_reply("fine"))
    assert (await asyncio.wait_for(runtime.send("again"), 30)).text == "fine"
    runtime.close()


@pytest.mark.parametrize("bad", [0, -1, "5", float("nan"), float("inf"), True])
def test_max_run_seconds_must_be_a_positive_finite_number(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError), match=r"max_run_seconds=\.\.\.\) must be"):
        gu.Runtime(model=gu.testing.ScriptedModel([]), max_run_seconds=bad)
