"""gu.Chat without a kernel: a recording comm stands in for the frontend.

Covers the sync contract (frames, bytes, boundaries, convergence) and the
click path (validation, errors, decisions resuming the loop, thread hops).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import ipygenui as gu
from comm_helpers import click, customs, nbytes, settle
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget.chat import Chat
from ipygenui.widget.message_model import MessageModel


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    DROPPED.append(name)
    return f"dropped {name}"


DROPPED: list[str] = []


def approval_chat() -> Chat:
    DROPPED.clear()
    model = ScriptedModel([ScriptedCall("drop_table", {"name": "sales"}), "All done."])
    return Chat(model=model, tools=[drop_table])


async def test_stream_is_coalesced_into_few_frames_and_few_bytes(wire: list[Any]) -> None:
    text = "".join(f"tok{i} " for i in range(2000))
    chat = Chat(model=ScriptedModel([text], chunk_size=8, delay=0.0005))
    loop = asyncio.get_running_loop()
    start = loop.time()
    message = await chat.send("go")
    elapsed = loop.time() - start
    await settle(chat)
    frames = customs(wire, "frame")
    chunks = len(text) / 8
    assert 1 <= len(frames) <= elapsed / chat._sync._coalescer.interval + 2
    assert len(frames) < chunks / 10
    final = nbytes(message.model_dump(mode="json"))
    assert sum(nbytes(f) for f in frames) <= 2 * final + 300 * len(frames)
    assert [f["seq"] for f in frames] == list(range(1, len(frames) + 1))
    streamed = "".join(
        op["value"]
        for f in frames
        for p in f["patches"]
        for op in p["ops"]
        if op["op"] == "append" and op["field"] == "text"
    )
    first_add = next(
        op["value"]["text"]
        for f in frames
        for p in f["patches"]
        for op in p["ops"]
        if op["op"] == "add_part"
    )
    # the tail may go out in the final snapshot instead (pending ops are dropped for it)
    assert text.startswith(first_add + streamed)
    assert chat.messages[-1].message["parts"][0]["text"] == text


async def test_final_state_lands_in_the_message_models(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["Hello **there**"]))
    await chat.send("hi")
    await settle(chat)
    assert [m.message for m in chat.messages] == [
        m.model_dump(mode="json") for m in chat.thread.messages
    ]
    assert all(isinstance(m, MessageModel) for m in chat.messages)
    assert chat.phase == "idle" and chat.running is False
    assert chat.model_name == "scripted" and chat.offline is True


async def test_a_boundary_costs_the_message_not_the_thread(wire: list[Any]) -> None:
    history = [
        gu.Message(role="user", parts=[gu.messages.TextPart(text="old " * 2000)]) for _ in range(30)
    ]
    chat = Chat(model=ScriptedModel(["short"]), thread=gu.Thread(messages=history))
    wire.clear()
    await chat.send("hi")
    await settle(chat)
    total = sum(nbytes(d) for _, _, d in wire)
    new = sum(nbytes(m.model_dump(mode="json")) for m in chat.thread.messages[-2:])
    # the 30 old messages are ~240 KB; what went out is a few times the 2 new ones
    # plus the list of model references (~50 bytes a message)
    assert total < 6 * new + 60 * len(chat.thread.messages)
    old_ids = {m.comm.comm_id for m in chat.messages[:30]}
    assert not [d for t, cid, d in wire if cid in old_ids]


async def test_hello_answers_with_the_live_message_mid_stream(wire: list[Any]) -> None:
    release = asyncio.Event()

    async def slow(request: Any) -> Any:
        yield gu.models.base.TextDelta("Hello")
        await release.wait()
        yield gu.models.base.TextDelta(" world")

    class Slow:
        name, offline = "slow", True

        def stream(self, request: Any) -> Any:
            return slow(request)

    chat = Chat(model=Slow())
    run = chat.send("hi")
    for _ in range(20):
        await asyncio.sleep(0.01)
    click(chat, {"type": "hello"})
    await asyncio.sleep(0)
    [snapshot] = customs(wire, "snapshot")
    [live] = snapshot["messages"]
    assert live["message"]["parts"][0]["text"] == "Hello"
    assert live["message"]["status"]["type"] == "running"
    assert live["rev"] == snapshot["seq"] == chat._sync._coalescer.seq
    # a view keeps the newest snapshot (this reply or the trait) and replays newer frames
    release.set()
    final = await run
    await settle(chat)
    trait = chat.messages[-1]
    assert trait.rev >= live["rev"]
    view, rev = (
        (trait.message, trait.rev) if trait.rev >= live["rev"] else (live["message"], live["rev"])
    )
    view = json.loads(json.dumps(view))
    for frame in customs(wire, "frame"):
        for patch in frame["patches"]:
            if frame["seq"] > rev and patch["id"] == view["id"]:
                for op in patch["ops"]:
                    if op["op"] == "append":
                        view["parts"][op["part"]][op["field"]] += op["value"]
    assert view == final.model_dump(mode="json")
    assert final.text == "Hello world"


async def test_approve_click_resumes_the_loop_and_runs_the_tool_once(wire: list[Any]) -> None:
    chat = approval_chat()
    await chat.send("drop it")
    await settle(chat)
    assert chat.phase == "waiting" and DROPPED == []
    part = chat.thread.messages[-1].tool_calls[0]
    assert chat.messages[-1].message["parts"][0]["approval"] == {
        "status": "pending",
        "reason": None,
        "note": None,
        "decided_by": None,
        "edited": False,
    }
    details: list[str] = []
    chat.observe(lambda change: details.append(change["new"]), "phase_detail")
    click(chat, {"type": "approve", "tool_call_id": part.tool_call_id})
    click(chat, {"type": "approve", "tool_call_id": part.tool_call_id})  # double click
    await settle(chat)
    assert "drop_table" in details  # the header can say which tool runs
    assert DROPPED == ["sales"]
    assert chat.thread.messages[-1].text == "All done."
    [error] = customs(wire, "error")
    assert "not waiting for approval" in error["message"]
    assert chat.messages[-1].message["status"]["type"] == "complete"


async def test_reject_click_sends_the_reason_to_the_model(wire: list[Any]) -> None:
    chat = approval_chat()
    await chat.send("drop it")
    await settle(chat)
    part = chat.thread.messages[-1].tool_calls[0]
    click(chat, {"type": "reject", "tool_call_id": part.tool_call_id, "reason": "not today"})
    await settle(chat)
    assert DROPPED == []
    request = chat.runtime.model.requests[-1]  # type: ignore[attr-defined]
    assert any(
        "not today" in str(m.get("content")) for m in request.messages if m["role"] == "tool"
    )


async def test_edited_args_and_always_allow(wire: list[Any]) -> None:
    chat = approval_chat()
    await chat.send("drop it")
    await settle(chat)
    part = chat.thread.messages[-1].tool_calls[0]
    click(chat, {"type": "always", "tool_call_id": part.tool_call_id, "args": {"name": "tmp"}})
    await settle(chat)
    assert DROPPED == ["tmp"]
    assert "drop_table" in chat.runtime.always_allowed


async def test_send_click_from_another_thread_runs_on_the_loop(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["threaded"]))
    thread = threading.Thread(target=click, args=(chat, {"type": "send", "text": "hi"}))
    thread.start()
    thread.join()
    for _ in range(100):
        await asyncio.sleep(0.01)
        if chat.thread.messages and chat.thread.messages[-1].text == "threaded":
            break
    await settle(chat)
    assert [m.text for m in chat.thread.messages] == ["hi", "threaded"]


async def test_send_while_streaming_is_refused_and_stop_cancels(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["x " * 2000], chunk_size=2, delay=0.001))
    chat.send("first")
    await asyncio.sleep(0.02)
    click(chat, {"type": "send", "text": "second"})
    await asyncio.sleep(0)
    assert "already streaming" in customs(wire, "error")[-1]["message"]
    click(chat, {"type": "cancel"})
    await settle(chat)
    last = chat.thread.messages[-1]
    assert last.status.type == "incomplete" and last.status.reason == "cancelled"
    assert [m.text for m in chat.thread.messages if m.role == "user"] == ["first"]
    assert chat.messages[-1].message["status"]["reason"] == "cancelled"


async def test_suggestion_click_sends_an_offered_suggestion(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["answer"]))
    await chat.send("hi")
    await settle(chat)
    chat.suggestions = ["Tell me more"]
    chat.runtime.model.script = ["more"]  # type: ignore[attr-defined]
    chat.runtime.model._next = 0  # type: ignore[attr-defined]
    click(chat, {"type": "suggestion", "text": "Tell me more"})
    await settle(chat)
    assert [m.text for m in chat.thread.messages][-2:] == ["Tell me more", "more"]


async def test_two_chats_do_not_share_state(wire: list[Any]) -> None:
    a = Chat(model=ScriptedModel(["from a"]))
    b = Chat(model=ScriptedModel(["from b"]))
    await asyncio.gather(a.send("1"), b.send("2"))
    await settle(a)
    await settle(b)
    assert [m.message["parts"][0]["text"] for m in a.messages] == ["1", "from a"]
    assert a._chat_key and a._chat_key != b._chat_key  # what one allows to load, not the other
    assert [m.message["parts"][0]["text"] for m in b.messages] == ["2", "from b"]
    a_frames = customs(wire, "frame", a.comm.comm_id)
    assert all(p["id"] in {m.id for m in a.thread.messages} for f in a_frames for p in f["patches"])


async def test_save_and_load_show_the_same_thread(wire: list[Any], tmp_path: Any) -> None:
    chat = Chat(model=ScriptedModel(["saved reply"]))
    await chat.send("hi")
    await settle(chat)
    path = tmp_path / "t.json"
    chat.save(path)
    again = Chat.load(path, model=ScriptedModel([]))
    assert [m.message for m in again.messages] == [m.message for m in chat.messages]
    assert "messages=2" in repr(again)
    # the widget's own keywords go to the widget, the rest to the runtime
    sized = Chat.load(path, model=ScriptedModel([]), layout={"height": "300px"})
    assert sized.layout.height == "300px" and len(sized.thread.messages) == 2


async def test_anywidget_rpc_messages_are_left_to_anywidget(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel([]))
    wire.clear()
    click(chat, {"id": "1", "kind": "anywidget-command", "name": "_x", "msg": None})
    await asyncio.sleep(0)
    assert customs(wire, "error") == []


@gu.tool
def plot_rows(rows: list[dict[str, Any]]) -> str:
    """Plot some rows."""
    return f"plotted {len(rows)} rows"


async def test_large_tool_arguments_cross_the_wire_about_once(wire: list[Any]) -> None:
    rows = [{"id": i, "name": f"row {i:04d}", "value": i * 1.5} for i in range(1000)]
    model = ScriptedModel([ScriptedCall("plot_rows", {"rows": rows}), "Plotted."])
    chat = Chat(model=model, tools=[plot_rows])
    wire.clear()
    message = await chat.send("plot")
    await settle(chat)
    model_comm = chat.messages[-1].comm.comm_id
    snapshots = [d for t, cid, d in wire if cid == model_comm and d.get("method") == "update"]
    frames = customs(wire, "frame")
    sent = sum(nbytes(d) for d in snapshots) + sum(nbytes(f) for f in frames)
    final = nbytes(message.model_dump(mode="json"))
    # streamed once, snapshotted at the run's end: not once per step and tool result
    assert len(snapshots) <= 2
    assert sent <= 2 * final + 300 * len(frames)
    # the browser derives the parsed args from args_text; the thread keeps both
    synced = chat.messages[-1].message["parts"][0]
    assert synced["args"] == {} and json.loads(synced["args_text"])["rows"] == rows
    assert chat.thread.messages[-1].tool_calls[0].args == {"rows": rows}


async def test_args_the_browser_cannot_derive_are_synced(wire: list[Any]) -> None:
    # the model sent a name the tool does not declare: the kernel drops it from
    # args, so parsing args_text in the browser would show it: keep args then
    model = ScriptedModel([ScriptedCall("plot_rows", {"rows": [], "junk": 1}), "ok"])
    chat = Chat(model=model, tools=[plot_rows])
    await chat.send("plot")
    await settle(chat)
    synced = chat.messages[-1].message["parts"][0]
    assert synced["args"] == {"rows": []}
    assert json.loads(synced["args_text"])["junk"] == 1
