"""``gu.AGUIAgent`` facing a hostile or broken agent: what it sends is bounded,
its state patches apply where they should, and what we open gets closed.

A scripted agent server (Starlette on uvicorn, 127.0.0.1) sends each run what
its path names; a real pydantic-ai agent behind its own AG-UI adapter and the
local OpenAI-compatible server stand in for well-behaved peers.

Faults tried:
- JSON Patch bombs: 20 and 35 ``copy`` operations that each double the state
  (a million lists from under a kilobyte; 35 used to take all the kernel's
  memory), refused while applying, memory bounded, the state as it was;
- a state nested 300 levels deep (a snapshot, then a delta deepening it),
  which made every later run fail to serialize: refused, and the next run
  sends a state it can serialize;
- a 64 MB event, refused after reading about the limit, not all of it;
- an endless stream, ended by the run's byte limit with the connection closed;
- a STATE_SNAPSHOT then a STATE_DELTA in one run (the delta used to patch
  the state from before the snapshot);
- Stop, then the loop closing at once (a script's ``asyncio.run``): the agent's
  connection used to stay open (its server waited 10 s to shut down);
- a script that runs an agent and an OpenAI model and exits: "Unclosed client
  session" / "unclosed transport" on stderr; ``Runtime.close()`` leaving the
  clients open; an agent replaced mid-notebook leaving its pooled connection
  to be reported unclosed; a run on another loop (a thread's ``run_sync``)
  closing the client this loop's run streams on.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import textwrap
import threading
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

import ipygenui as gu
from agui_agents import serve
from ipygenui.events import MessagePatched
from ipygenui.messages import Complete, Incomplete

ENCODER = EventEncoder()
TESTS = Path(__file__).resolve().parents[1]


def nested(levels: int) -> dict[str, Any]:
    """``{"a": {"a": ... {}}}``, ``levels`` objects deep."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def doubling_ops(count: int) -> list[dict[str, Any]]:
    """JSON Patch operations that each copy the list ``/a`` into itself."""
    return [{"op": "copy", "from": "/a", "path": "/a/-"} for _ in range(count)]


class Agents:
    """The scripted agent server: ``url(kind)`` answers each run as ``kind`` says."""

    def __init__(self) -> None:
        self.base = ""
        self.states: list[Any] = []
        """The state each run was sent (RunAgentInput.state)."""
        self.sent_bytes = 0
        """What the last streaming run wrote before it stopped."""
        self.hung_up = threading.Event()
        """Set when a streaming run's client went away (its body generator closed)."""

    def url(self, kind: str) -> str:
        return f"{self.base}{kind}"

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{kind}", self._run, methods=["POST"])])

    async def _run(self, request: Request) -> Response:
        data = await request.json()
        self.states.append(data.get("state"))
        start = RunStartedEvent(thread_id=data["threadId"], run_id=data["runId"])
        finish = RunFinishedEvent(thread_id=data["threadId"], run_id=data["runId"])
        kind = request.path_params["kind"]
        if kind == "huge-event":
            return self._stream(self._huge_event(start))
        if kind == "endless":
            return self._stream(self._endless(start))
        if kind == "slow":
            return self._stream(self._slow(start))
        if kind == "paced":
            return self._stream(self._paced(start, finish))
        events: list[Any] = [start]
        if kind.startswith("copy-"):
            events += [
                StateSnapshotEvent(snapshot={"a": [], "kept": True}),
                StateDeltaEvent(delta=doubling_ops(int(kind.removeprefix("copy-")))),
            ]
        elif kind == "deep-snapshot":
            events.append(StateSnapshotEvent(snapshot=nested(150)))
        elif kind == "deepening-delta":  # 150 levels, then 150 more below them
            path = "/" + "/".join(["a"] * 149) + "/b"
            events += [
                StateSnapshotEvent(snapshot={"ok": 1}),
                StateDeltaEvent(delta=[{"op": "add", "path": "/deep", "value": nested(150)}]),
                StateDeltaEvent(
                    delta=[{"op": "add", "path": "/deep" + path, "value": nested(150)}]
                ),
            ]
        elif kind == "snapshot-then-delta":
            events += [
                StateSnapshotEvent(snapshot={"items": ["a"]}),
                StateDeltaEvent(delta=[{"op": "add", "path": "/items/-", "value": "b"}]),
            ]
        else:
            assert kind == "good", kind
        events += [
            TextMessageStartEvent(message_id="m"),
            TextMessageContentEvent(message_id="m", delta="All good."),
            TextMessageEndEvent(message_id="m"),
            finish,
        ]
        return self._stream(_each(events))

    def _stream(self, chunks: AsyncIterator[str | bytes]) -> Response:
        async def body() -> AsyncIterator[str | bytes]:
            self.sent_bytes = 0
            try:
                async for chunk in chunks:
                    self.sent_bytes += len(chunk)
                    yield chunk
            finally:
                self.hung_up.set()

        return StreamingResponse(body(), media_type="text/event-stream")

    async def _huge_event(self, start: Any) -> AsyncIterator[str | bytes]:
        """One TEXT_MESSAGE_CONTENT event of 64 MB, written 64 KB at a time."""
        yield ENCODER.encode(start)
        yield ENCODER.encode(TextMessageStartEvent(message_id="m"))
        yield b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"'
        piece = b"x" * 65_536
        for _ in range(1024):
            yield piece
        yield b'"}\n\n'

    async def _endless(self, start: Any) -> AsyncIterator[str]:
        """Text for ever (well: 100,000 events, about 7 MB)."""
        yield ENCODER.encode(start)
        yield ENCODER.encode(TextMessageStartEvent(message_id="m"))
        event = ENCODER.encode(TextMessageContentEvent(message_id="m", delta="more "))
        for sent in range(100_000):
            yield event
            if sent % 100 == 0:
                # A send to a gone client returns without waiting: without this
                # the loop would write all 7 MB before the server's disconnect
                # watcher could run (tens of seconds on a loaded machine).
                await asyncio.sleep(0)

    async def _slow(self, start: Any) -> AsyncIterator[str]:
        yield ENCODER.encode(start)
        yield ENCODER.encode(TextMessageStartEvent(message_id="m"))
        yield ENCODER.encode(TextMessageContentEvent(message_id="m", delta="Thinking"))
        for _ in range(600):  # a minute, unless the client hangs up
            await asyncio.sleep(0.1)
            yield ": still thinking\n\n"

    async def _paced(self, start: Any, finish: Any) -> AsyncIterator[str]:
        yield ENCODER.encode(start)
        yield ENCODER.encode(TextMessageStartEvent(message_id="m"))
        for _ in range(10):
            yield ENCODER.encode(TextMessageContentEvent(message_id="m", delta="tick "))
            await asyncio.sleep(0.05)
        yield ENCODER.encode(TextMessageEndEvent(message_id="m"))
        yield ENCODER.encode(finish)


async def _each(events: list[Any]) -> AsyncIterator[str]:
    for event in events:
        yield ENCODER.encode(event)


@pytest.fixture(scope="module")
def agents() -> Iterator[Agents]:
    server = Agents()
    with serve(server.app()) as url:
        server.base = url
        yield server


@pytest.fixture(autouse=True)
def _fresh(agents: Agents) -> None:
    agents.states.clear()
    agents.hung_up.clear()


def error_of(message: Any) -> str:
    assert isinstance(message.status, Incomplete) and message.status.reason == "error"
    return message.status.error or ""


async def the_next_run_works(rt: gu.Runtime, agents: Agents, **limits: int) -> None:
    """The thread and the state stay valid: a good agent answers the next run."""
    rt.agent = gu.AGUIAgent(agents.url("good"), **limits)
    again = await rt.send("again")
    assert isinstance(again.status, Complete) and again.text == "All good."


# --- the shared state --------------------------------------------------------------


async def test_twenty_doubling_copies_are_refused_and_the_state_kept(agents: Agents) -> None:
    url = agents.url("copy-20")
    rt = gu.Runtime(agent=gu.AGUIAgent(url))
    error = error_of(await rt.send("hello"))
    assert url in error and "over the 1 MB limit (max_state_bytes)" in error, error
    assert "operation" in error and "(copy)" in error
    assert rt.agent_state == {"a": [], "kept": True}  # the snapshot before the refused patch
    await the_next_run_works(rt, agents)
    assert agents.states[-1] == {"a": [], "kept": True}


async def test_thirty_five_copies_never_take_the_memory(agents: Agents) -> None:
    """35 doublings are 34 billion lists: the patch is stopped while it applies,
    at the operation that would cross the limit, so memory stays near it."""
    rt = gu.Runtime(agent=gu.AGUIAgent(agents.url("copy-35"), max_state_bytes=100_000))
    tracemalloc.start()
    try:
        message = await rt.send("hello")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "over the 0.1 MB limit (max_state_bytes)" in error_of(message)
    assert peak < 30_000_000, peak  # a state of 0.1 MB of empty lists is ~5 MB in memory
    assert rt.agent_state == {"a": [], "kept": True}


async def test_a_state_nested_too_deep_is_refused(agents: Agents) -> None:
    url = agents.url("deep-snapshot")
    rt = gu.Runtime(agent=gu.AGUIAgent(url))
    rt.set_agent_state({"before": 1})
    error = error_of(await rt.send("hello"))
    assert url in error and "STATE_SNAPSHOT nested more than 64 levels deep" in error, error
    assert rt.agent_state == {"before": 1}
    await the_next_run_works(rt, agents)


async def test_a_delta_deepening_the_state_to_300_levels_is_refused(agents: Agents) -> None:
    """300 levels built from two 150-level values: the AG-UI input cannot be
    serialized any more, so every later run failed."""
    rt = gu.Runtime(agent=gu.AGUIAgent(agents.url("deepening-delta"), max_state_depth=200))
    error = error_of(await rt.send("hello"))
    assert "nested more than 200 levels deep, over the limit (max_state_depth)" in error, error
    assert rt.agent_state["ok"] == 1 and "b" not in json.dumps(
        rt.agent_state
    )  # the first delta only
    await the_next_run_works(rt, agents, max_state_depth=200)
    sent = agents.states[-1]
    assert sent["ok"] == 1 and sent["deep"] == nested(150)


async def test_a_state_too_big_to_send_is_a_clear_error(agents: Agents) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(agents.url("good"), max_state_bytes=1_000))
    rt.set_agent_state({"notes": "x" * 5_000})
    error = error_of(await rt.send("hello"))
    assert "cannot be sent to the agent" in error and "max_state_bytes" in error, error
    assert agents.states == []  # nothing was posted


async def test_a_delta_after_a_snapshot_applies_to_the_snapshot(agents: Agents) -> None:
    rt = gu.Runtime(agent=gu.AGUIAgent(agents.url("snapshot-then-delta")))
    rt.set_agent_state({"older": True})
    message = await rt.send("hello")
    assert isinstance(message.status, Complete), message.status
    assert rt.agent_state == {"items": ["a", "b"]}


# --- the stream --------------------------------------------------------------------


async def test_a_64_mb_event_is_refused_without_reading_it_all(agents: Agents) -> None:
    url = agents.url("huge-event")
    rt = gu.Runtime(agent=gu.AGUIAgent(url, max_event_bytes=1_000_000))
    tracemalloc.start()
    try:
        message = await rt.send("hello")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    error = error_of(message)
    assert url in error and "an event of more than 1 MB" in error, error
    assert "max_event_bytes" in error
    assert peak < 24_000_000, peak  # the event's line alone was 64 MB
    assert await asyncio.to_thread(agents.hung_up.wait, 30)  # the connection was closed
    await the_next_run_works(rt, agents)


async def test_an_endless_stream_ends_at_the_run_limit(agents: Agents) -> None:
    url = agents.url("endless")
    rt = gu.Runtime(agent=gu.AGUIAgent(url, max_run_bytes=200_000))
    message = await rt.send("hello")
    error = error_of(message)
    assert url in error and "more than 0.2 MB in one run" in error, error
    assert "max_run_bytes" in error
    assert message.text.startswith("more more")  # what streamed is kept
    assert await asyncio.to_thread(agents.hung_up.wait, 30)
    # The server stopped when the client hung up, long before its 7 MB end
    # (how far past the 0.2 MB limit it got depends on the machine's load).
    assert agents.sent_bytes < 3_500_000
    await the_next_run_works(rt, agents)


def test_limits_must_be_positive_whole_numbers() -> None:
    for bad in (0, -1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="max_run_bytes"):
            gu.AGUIAgent("http://127.0.0.1:9/", max_run_bytes=bad)  # type: ignore[arg-type]


# --- what we open is closed --------------------------------------------------------


def test_stop_then_the_loop_ending_hangs_up_the_agent(agents: Agents) -> None:
    """``rt.cancel()`` ends the run at once; a script's ``asyncio.run`` then
    cancels the run's task again while the HTTP client cleans up, which used
    to leave the socket open (the agent saw no disconnect)."""

    async def main() -> gu.Runtime:
        rt = gu.Runtime(agent=gu.AGUIAgent(agents.url("slow")))
        streamed = asyncio.Event()
        rt.subscribe(lambda e: streamed.set() if isinstance(e, MessagePatched) else None)
        run = rt.send("hello")
        await asyncio.wait_for(streamed.wait(), 30)
        rt.cancel()
        message = await run
        assert isinstance(message.status, Incomplete) and message.status.reason == "cancelled"
        return rt  # still referenced: its client's sockets are not collected

    rt = asyncio.run(main())
    assert agents.hung_up.wait(10)  # the generator of the slow run was closed: a disconnect
    assert rt.thread.messages[-1].text == "Thinking"


async def test_stop_hangs_up_even_when_the_cleanup_is_cancelled(agents: Agents) -> None:
    """A second cancel while the HTTP client cleans up (what ``asyncio.run``
    does to every task when a script's main returns) cut that cleanup short:
    the socket stayed open for as long as the loop and its client lived."""
    agent = gu.AGUIAgent(agents.url("slow"))
    rt = gu.Runtime(agent=agent)
    streamed = asyncio.Event()
    rt.subscribe(lambda e: streamed.set() if isinstance(e, MessagePatched) else None)
    run = rt.send("hello")
    await asyncio.wait_for(streamed.wait(), 30)
    task = rt._runs.task
    assert task is not None
    rt.cancel()
    await asyncio.sleep(0)  # the run's task starts cleaning up ...
    task.cancel()  # ... and is cancelled again
    assert (await run).text == "Thinking"
    assert await asyncio.to_thread(agents.hung_up.wait, 10)
    await agent.aclose()


async def test_a_run_on_another_loop_leaves_this_loops_client_open(agents: Agents) -> None:
    """Clients close with their own loop: a script's loop ending (a run in a
    thread) must not close the notebook's client while its run streams."""
    agent = gu.AGUIAgent(agents.url("paced"))
    rt = gu.Runtime(agent=agent)
    streamed = asyncio.Event()
    rt.subscribe(lambda e: streamed.set() if isinstance(e, MessagePatched) else None)
    run = rt.send("hello")
    await asyncio.wait_for(streamed.wait(), 30)
    elsewhere = await asyncio.to_thread(gu.Runtime(agent=agent).run_sync, "hi")
    assert isinstance(elsewhere.status, Complete)
    message = await run
    assert isinstance(message.status, Complete), message.status
    assert message.text == "tick " * 10
    await agent.aclose()


async def test_runtime_close_closes_the_clients_of_its_agent_and_model(
    agents: Agents, openai_server: Any
) -> None:
    from openai_server import Reply

    agent = gu.AGUIAgent(agents.url("good"))
    rt = gu.Runtime(agent=agent)
    assert isinstance((await rt.send("hi")).status, Complete)
    agent_client = agent._clients.peek()
    openai_server.script(Reply.text_reply("Hello"))
    model = gu.OpenAIModel("m", base_url=openai_server.base_url, api_key="k")
    chat = gu.Runtime(model=model)
    assert (await chat.send("hi")).text == "Hello"
    model_client = model.client
    rt.close()
    chat.close()
    for _ in range(100):  # closing is scheduled on this loop
        if agent_client.is_closed and model_client.is_closed():
            break
        await asyncio.sleep(0.01)
    assert agent_client.is_closed and model_client.is_closed()
    assert agent._clients.peek() is None
    assert isinstance((await rt.send("again")).status, Complete)  # a new client
    rt.close()


async def test_a_dropped_agent_closes_its_client_on_its_loop(agents: Agents) -> None:
    """An agent replaced mid-notebook (``rt.agent = ...``) is collected with its
    pooled connection: the connection is closed, never reported unclosed."""
    rt = gu.Runtime(agent=gu.AGUIAgent(agents.url("good")))
    assert isinstance((await rt.send("hi")).status, Complete)
    assert rt.agent is not None
    client = rt.agent._clients.peek()  # type: ignore[attr-defined]
    rt.agent = gu.AGUIAgent(agents.url("good"))
    gc.collect()
    for _ in range(100):  # closed on this loop, soon
        if client.is_closed:
            break
        await asyncio.sleep(0.01)
    assert client.is_closed


SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, sys
    sys.path.insert(0, {tests!r})
    from agui_agents import agui_app, ops_agent, serve
    from openai_server import OpenAIServer, Reply
    import ipygenui as gu

    with serve(agui_app(ops_agent())) as url, OpenAIServer() as server:
        server.script(Reply.text_reply("one"), Reply.text_reply("two"))
        agent = gu.Runtime(agent=gu.AGUIAgent(url))
        model = gu.Runtime(model=gu.OpenAIModel("m", base_url=server.base_url, api_key="k"))
        for rt in (agent, model, agent, model):  # a private loop per run_sync
            print(rt.run_sync("hi").status.type)
        del agent, model, rt
        gc.collect()
    gc.collect()
    """
)


def test_a_script_ends_with_no_unclosed_session() -> None:
    script = SCRIPT.format(tests=str(TESTS))
    env = {**os.environ, "PYTHONDEVMODE": "", "PYTHONWARNINGS": ""}
    done = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=TESTS.parent,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["complete"] * 4, done.stdout + done.stderr
    for noise in ("Unclosed", "unclosed", "ResourceWarning"):
        assert noise not in done.stderr, done.stderr
    gc.collect()
