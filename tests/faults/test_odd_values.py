"""Odd values must not brick a chat: persistence, widget sync and the run survive.

Tried here:
- a lone surrogate ("\\ud83d", and "\\udcff", which jupyter's serializer would
  send as an invalid UTF-8 byte) streamed by the model as text and reasoning,
  written as an escape inside tool arguments, typed by the user (``send``, the
  widget's composer), given as a reject reason, returned by a tool;
- an integer of 5,000 digits in streamed tool arguments (past Python's
  int-to-text limit: the incremental parser's ``int()`` raised);
- a tool returning ``math.factorial(1000)`` (JSON can write it, JavaScript
  cannot read it exactly), ``math.factorial(2000)`` and ``10**100000`` (beyond
  Python's int-to-text limit: ``json.dumps`` raises), ``nan`` and ``inf``;
- a value put in the thread behind the runtime's back (metadata);
- a save that raises something other than ``OSError``;
- usage counts of ``10**400`` (a provider's, a thread file's, with a cost of
  ``Infinity`` and huge times): bounded counts, finite costs, strict-JSON rows.

Rules checked: every run's future resolves, the file keeps updating and stays
UTF-8 JSON that loads, later ``send()`` works, a failed save is shown in the
widget and cleared by the next good one, and everything the widget sends goes
through jupyter's real session serializer as valid UTF-8 with JS-safe numbers.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import comm
import pytest
from comm.base_comm import BaseComm
from jupyter_client.session import json_packer

import ipygenui as gu
from ipygenui import persistence
from ipygenui.messages import Complete, RequiresAction
from ipygenui.persistence import journal_path
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply
from ipygenui.widget.chat import Chat


async def done(run: Any) -> Any:
    """The run's final message; a run that never ends fails the test instead of hanging it."""
    assert run is not None
    return await asyncio.wait_for(asyncio.shield(run._future), 30)


SURROGATES = ["\ud83d", "\udcff"]
JS_SAFE = 2**53 - 1
HUGE = 10**100000


def walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def assert_wire_safe(value: Any) -> None:
    """What a browser's JSON.parse reads exactly: UTF-8, no NaN, JS-safe ints."""
    packed = json_packer(value)
    text = packed.decode("utf-8")  # strict: no lone surrogate escaped to a raw byte
    for item in walk(json.loads(text)):
        if isinstance(item, str):
            assert not any("\ud800" <= c <= "\udfff" for c in item), item
        if isinstance(item, int) and not isinstance(item, bool):
            assert -JS_SAFE <= item <= JS_SAFE
        if isinstance(item, float):
            assert math.isfinite(item)


def assert_file_ok(path: Path) -> dict[str, Any]:
    """The thread file and every line of its journal are wire-safe JSON, and
    the thread loads; returns what it loads as (the file plus its journal)."""
    assert_wire_safe(json.loads(path.read_bytes().decode("utf-8")))
    journal = journal_path(path)
    for line in journal.read_bytes().splitlines() if journal.exists() else []:
        assert_wire_safe(json.loads(line.decode("utf-8")))
    thread = gu.Runtime.load(path, model=ScriptedModel([])).thread
    return {"thread": thread.model_dump(mode="json")}


class PackingComm(BaseComm):
    """A comm that packs every message with jupyter's serializer, as ipykernel does."""

    log: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        packed = json_packer({"data": data or {}, "metadata": metadata or {}})
        self.log.append((msg_type, json.loads(packed.decode("utf-8"))["data"]))


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    log: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(PackingComm, "log", log)
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: PackingComm(*a, **k))
    return log


async def settle(chat: Chat) -> None:
    for _ in range(5):
        await asyncio.sleep(0)
    while chat.runtime.running:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)


def echo_tool(values: dict[str, Any]) -> gu.Tool:
    @gu.tool
    def produce(kind: str) -> Any:
        """Return an odd value."""
        return values[kind]

    return produce


ODD_RESULTS: dict[str, Any] = {
    "surrogate": "bad \ud83d text",
    "low-surrogate": {"k\udcff": ["\udcff"]},
    "factorial-1000": math.factorial(1000),
    "factorial-2000": math.factorial(2000),
    "huge": HUGE,
    "nested": {"n": [math.factorial(2000), -(2**64)], "x": float("nan"), "y": float("inf")},
}


# --- the run, the file, the next send ----------------------------------------------


@pytest.mark.parametrize("surrogate", SURROGATES)
async def test_a_lone_surrogate_streamed_by_the_model(tmp_path: Path, surrogate: str) -> None:
    path = tmp_path / "t.json"
    model = ScriptedModel(
        [ScriptedReply(text=f"hi {surrogate} there", reasoning=f"hmm{surrogate}"), "next"],
        chunk_size=1,
    )
    rt = gu.Runtime(model=model, persist=path)
    final = await done(rt.send("hello"))
    assert isinstance(final.status, Complete)
    assert final.text == "hi \ufffd there"
    assert rt.save_error is None
    assert_file_ok(path)
    assert (await done(rt.send("again"))).text == "next"
    assert len(assert_file_ok(path)["thread"]["messages"]) == 4


@pytest.mark.parametrize("surrogate", SURROGATES)
async def test_a_lone_surrogate_typed_by_the_user(tmp_path: Path, surrogate: str) -> None:
    path = tmp_path / "t.json"
    model = ScriptedModel(["ok", "ok2"])
    rt = gu.Runtime(model=model, persist=path)
    final = await done(rt.send(f"typed {surrogate}!"))
    assert final.text == "ok"
    assert rt.thread.messages[0].text == "typed \ufffd!"
    assert model.requests[0].messages[-1]["content"] == "typed \ufffd!"
    data = assert_file_ok(path)
    assert data["thread"]["messages"][0]["parts"][0]["text"] == "typed \ufffd!"
    assert (await done(rt.send("more"))).text == "ok2"


def test_a_surrogate_pair_split_across_deltas_is_kept() -> None:
    """Two halves of one emoji in two deltas are one character, not two U+FFFD."""

    async def main() -> str:
        model = ScriptedModel(["a\ud83d\ude00b"], chunk_size=2)  # "a\ud83d" + "\ude00b"
        return (await done(gu.Runtime(model=model).send("x"))).text

    assert asyncio.run(main()) == "a\U0001f600b"


async def test_a_lone_surrogate_in_tool_arguments(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    seen: list[str] = []

    @gu.tool
    def note(text: str) -> str:
        """Take a note."""
        seen.append(text)
        return "noted"

    args_text = '{"text": "x\\ud83dy"}'  # the escape a model writes in JSON
    model = ScriptedModel([ScriptedCall("note", args_text, id="n"), "done", "again"])
    rt = gu.Runtime(model=model, tools=[note], persist=path)
    final = await done(rt.send("note it"))
    assert final.text == "done" and len(seen) == 1
    part = rt.thread.messages[-1].tool_call("n")
    assert part is not None and part.args == {"text": "x\ufffdy"}
    assert_file_ok(path)
    assert (await done(rt.send("more"))).text == "again"


@pytest.mark.parametrize("kind", list(ODD_RESULTS))
async def test_an_odd_tool_result(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "t.json"
    model = ScriptedModel([ScriptedCall("produce", {"kind": kind}, id="c"), "done", "again"])
    rt = gu.Runtime(model=model, tools=[echo_tool(ODD_RESULTS)], persist=path)
    final = await done(rt.send("go"))
    assert isinstance(final.status, Complete) and final.text == "done"
    assert rt.save_error is None
    part = rt.thread.messages[-1].tool_call("c")
    assert part is not None and not part.is_error
    assert_wire_safe(part.result)
    assert_file_ok(path)
    tool_message = next(m for m in model.requests[1].messages if m["role"] == "tool")
    tool_message["content"].encode("utf-8")  # the model's request can be sent
    assert (await done(rt.send("more"))).text == "again"
    assert len(assert_file_ok(path)["thread"]["messages"]) == 4


async def test_big_integers_keep_their_digits_as_text() -> None:
    model = ScriptedModel([ScriptedCall("produce", {"kind": "factorial-1000"}), "done"])
    rt = gu.Runtime(model=model, tools=[echo_tool(ODD_RESULTS)])
    await done(rt.send("go"))
    assert rt.thread.messages[-1].tool_calls[0].result == str(math.factorial(1000))
    model = ScriptedModel([ScriptedCall("produce", {"kind": "huge"}), "done"])
    rt = gu.Runtime(model=model, tools=[echo_tool(ODD_RESULTS)])
    await done(rt.send("go"))
    text = rt.thread.messages[-1].tool_calls[0].result
    assert isinstance(text, str) and "100001 digits" in text and len(text) < 200


async def test_a_huge_integer_in_streamed_arguments_is_answered_not_fatal() -> None:
    """The model reads that its arguments are not JSON it can send; the run goes on."""
    seen: list[Any] = []

    @gu.tool
    def note(text: str, n: int = 0) -> str:
        """Take a note."""
        seen.append(n)
        return "noted"

    args_text = '{"text": "a", "n": ' + "7" * 5000 + "}"
    model = ScriptedModel([ScriptedCall("note", args_text, id="n"), "done"])
    rt = gu.Runtime(model=model, tools=[note])
    final = await done(rt.send("note it"))
    assert isinstance(final.status, Complete) and final.text == "done" and seen == []
    part = final.tool_call("n")
    assert part is not None and part.is_error
    assert "not valid JSON" in part.result["error"] and "4300 digits" in part.result["error"]


async def test_a_lone_surrogate_in_a_reject_reason_and_a_human_answer(tmp_path: Path) -> None:
    path = tmp_path / "t.json"

    @gu.tool(requires_approval=True)
    def deploy(env: str) -> str:
        """Deploy."""
        return env

    @gu.tool(human=True)
    def ask_user(question: str) -> str:
        """Ask the user."""
        raise AssertionError("a human tool's body never runs")

    script = [
        ScriptedCall("deploy", {"env": "p"}, id="d"),
        "ok",
        ScriptedCall("ask_user", {"question": "?"}, id="h"),
        "ok2",
    ]
    rt = gu.Runtime(model=ScriptedModel(script), tools=[deploy, ask_user], persist=path)
    waiting = await done(rt.send("ship"))
    assert isinstance(waiting.status, RequiresAction)
    final = await done(rt.reject("d", "no \ud83d way"))
    assert final.text == "ok"
    assert_file_ok(path)
    waiting = await done(rt.send("ask me"))
    assert isinstance(waiting.status, RequiresAction)
    final = await done(rt.add_tool_result("h", {"answer": "\udcff", "n": HUGE}))
    assert final.text == "ok2"
    assert_wire_safe(rt.thread.messages[-1].tool_call("h").result)  # type: ignore[union-attr]
    assert_file_ok(path)


async def test_a_value_put_in_the_thread_directly_does_not_stop_saving(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["a", "b"]), persist=path)
    rt.thread.metadata["mine"] = ["\ud83d", HUGE, float("nan"), {1, 2}]
    await done(rt.send("x"))
    assert rt.save_error is None
    assert_file_ok(path)
    assert (await done(rt.send("y"))).text == "b"


# --- a save that fails in any way ---------------------------------------------------


async def test_any_save_failure_is_reported_and_the_loop_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.json"
    real = persistence.os.replace
    broken = {"on": True}

    def replace(src: Any, dst: Any) -> None:
        if broken["on"]:
            raise RuntimeError("disk said no")
        real(src, dst)

    monkeypatch.setattr(persistence.os, "replace", replace)
    rt = gu.Runtime(model=ScriptedModel(["a", "b"]), persist=path)
    final = await done(rt.send("x"))
    assert final.text == "a"
    assert rt.save_error is not None and "disk said no" in rt.save_error
    assert str(path) in rt.save_error
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    broken["on"] = False
    await done(rt.send("y"))
    assert rt.save_error is None
    assert len(assert_file_ok(path)["thread"]["messages"]) == 4


# --- the widget -------------------------------------------------------------------------


async def test_the_widget_shows_a_save_failure_and_clears_it(
    wire: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.json"
    real = persistence.os.replace
    broken = {"on": True}

    def replace(src: Any, dst: Any) -> None:
        if broken["on"]:
            raise ValueError("no space")
        real(src, dst)

    monkeypatch.setattr(persistence.os, "replace", replace)
    chat = Chat(model=ScriptedModel(["a", "b"]), persist=path)
    await done(chat.send("x"))
    await settle(chat)
    assert "no space" in chat.save_error and str(path) in chat.save_error
    states = [d["state"] for t, d in wire if t == "comm_msg" and d.get("method") == "update"]
    assert any("no space" in s.get("save_error", "") for s in states)  # it reached the view
    broken["on"] = False
    await done(chat.send("y"))
    await settle(chat)
    assert chat.save_error == ""
    # a view opened later reads the trait: the failure survives a reload
    fresh = Chat(runtime=chat.runtime)
    assert fresh.save_error == ""


async def test_a_new_chat_shows_a_failure_already_known(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    a = gu.Runtime(model=ScriptedModel(["a", "a2"]), persist=path)
    await done(a.send("one"))
    gu.Runtime(model=ScriptedModel([]), persist=path)  # takes the path over
    await done(a.send("two"))
    assert a.save_error
    assert Chat(runtime=a).save_error == a.save_error


@pytest.mark.parametrize("surrogate", SURROGATES)
async def test_widget_sync_survives_odd_values(
    wire: list[Any], tmp_path: Path, surrogate: str
) -> None:
    path = tmp_path / "t.json"
    values = {**ODD_RESULTS, "surrogate": f"bad {surrogate} text"}
    script = [
        ScriptedReply(
            text=f"look {surrogate}",
            tool_calls=[
                ScriptedCall("produce", {"kind": k}, id=f"c{i}") for i, k in enumerate(values)
            ],
        ),
        f"done {surrogate}",
        "again",
    ]
    chat = Chat(model=ScriptedModel(script, chunk_size=1), tools=[echo_tool(values)], persist=path)
    chat.thread.metadata["mine"] = [surrogate, HUGE]  # behind the runtime's back
    await done(chat.send(f"go {surrogate}"))
    await settle(chat)
    assert chat.thread.messages[-1].text == "look \ufffddone \ufffd"
    assert chat.save_error == ""
    for _, data in wire:
        assert_wire_safe(data)
    synced = [m.message for m in chat.messages]
    assert synced[-1]["parts"][-1]["text"] == "done \ufffd"
    for message in synced:
        assert_wire_safe(message)
    assert_file_ok(path)
    chat._handlers.on_comm_msg(chat, {"type": "send", "text": f"typed {surrogate}"}, [])
    await settle(chat)
    assert chat.thread.messages[-2].text == "typed \ufffd"
    assert chat.thread.messages[-1].text == "again"
    assert_file_ok(path)


async def test_widget_sync_survives_a_value_behind_the_runtimes_back(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["a", "b"]))
    await done(chat.send("x"))
    await settle(chat)
    message = chat.thread.messages[-1]
    message.metadata["odd"] = ["\ud83d", HUGE, float("inf")]
    chat.runtime._events.replace(message)  # what a step's end does
    chat._sync._catch_up()  # what the catch-up timer does
    synced = chat.messages[-1].message
    assert synced["metadata"]["odd"][0] == "\ufffd"
    assert_wire_safe(synced)
    await done(chat.send("y"))
    await settle(chat)
    assert chat.messages[-1].message["parts"][0]["text"] == "b"


async def test_a_frame_with_an_odd_value_is_sent_cleaned(wire: list[Any]) -> None:
    """Mid-stream, parsed arguments may hold what an escape in the model's JSON
    decoded to; the frame carrying them must still go out."""
    chat = Chat(model=ScriptedModel([]))
    wire.clear()
    frame = {"type": "frame", "seq": 1, "patches": [{"id": "m", "ops": [{"value": "\ud83d"}]}]}
    chat._sync._send_frame(frame)
    chat._handlers._error("bad \ud83d request", {"type": "send"})
    sent = [d["content"] for t, d in wire if t == "comm_msg" and d.get("method") == "custom"]
    assert sent[0]["patches"][0]["ops"][0]["value"] == "\ufffd"
    assert sent[1]["message"] == "bad \ufffd request"
    for _, data in wire:
        assert_wire_safe(data)


# --- hostile usage counts -------------------------------------------------------------


async def test_hostile_usage_counts_are_bounded_and_costs_stay_finite(tmp_path: Path) -> None:
    """A provider (or a thread file) reporting ``prompt_tokens = 10**400``."""
    from ipygenui.messages import MAX_TOKEN_COUNT

    huge = {"input_tokens": 10**400, "output_tokens": 10**400, "reasoning_tokens": -5}
    model = ScriptedModel([ScriptedReply(text="ok", usage=huge)], name="gpt-4o-mini")
    model.spec = "openai:gpt-4o-mini"  # type: ignore[attr-defined]
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=model, persist=path)
    await asyncio.wait_for(rt.send("hi"), 30)
    (row,) = rt.usage()
    assert row["input_tokens"] == row["output_tokens"] == MAX_TOKEN_COUNT
    assert row["reasoning_tokens"] == 0
    assert row["cost_usd"] is not None and math.isfinite(row["cost_usd"])
    json.dumps(rt.usage(), allow_nan=False)
    json.dumps(rt.usage_total(), allow_nan=False)
    rt.close()  # one JSON file again, then edited by hand:
    # a thread file's own odd figures: a huge int, Infinity, NaN
    data = json.loads(path.read_text())
    meta = data["thread"]["messages"][1]["metadata"]
    meta["usage"]["input_tokens"] = 10**400
    meta["cost"] = {"usd": 10**400, "thread_usd": 10**400}
    meta["started_at"], meta["ended_at"] = 0, 10**400
    meta["context"] = {"tokens": 10**400, "window": -1}
    text = json.dumps(data).replace(f'"usd": {10**400}', '"usd": Infinity')
    path.write_text(text)
    loaded = gu.Runtime.load(path, model=ScriptedModel([]))
    rows = loaded.usage()
    json.dumps(rows, allow_nan=False)
    json.dumps(loaded.usage_total(), allow_nan=False)
    assert rows[0]["input_tokens"] == MAX_TOKEN_COUNT and rows[0]["cost_usd"] is None
    assert rows[0]["context_tokens"] == MAX_TOKEN_COUNT and rows[0]["context_window"] is None
