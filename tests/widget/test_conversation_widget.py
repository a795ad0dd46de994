"""What gu.Chat sends the browser for branches, threads and starters
(a recording comm stands in for the frontend)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import ipygenui as gu
from comm_helpers import click, customs, settle
from ipygenui.models.base import TextDelta
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget.chat import Chat


def shown(chat: Chat) -> list[str]:
    return [m.message["parts"][0]["text"] for m in chat.messages]


def branch_of(chat: Chat, index: int) -> Any:
    return chat.messages[index].message.get("branch")


async def test_an_edit_shows_the_new_branch_and_its_position(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["a1", "a2", "a2 again"]))
    await chat.send("q1")
    await chat.send("q2")
    await settle(chat)
    assert branch_of(chat, 2) is None  # one version: no picker
    old_model = chat.messages[2]

    await chat.edit(chat.thread.messages[2].id, "q2 edited")
    await settle(chat)
    assert shown(chat) == ["q1", "a1", "q2 edited", "a2 again"]
    assert branch_of(chat, 2) == {"index": 1, "count": 2}
    assert [m.message["id"] for m in chat.messages] == [m.id for m in chat.thread.messages]

    chat.switch_branch(chat.thread.messages[2].id, 0)
    await settle(chat)
    assert shown(chat) == ["q1", "a1", "q2", "a2"]
    assert chat.messages[2] is old_model  # its model is reused, written again
    assert branch_of(chat, 2) == {"index": 0, "count": 2}
    assert [m.message for m in chat.messages[:2]] == [
        m.model_dump(mode="json") for m in chat.thread.messages[:2]
    ]


async def test_a_view_that_says_hello_mid_stream_gets_the_branch_position(
    wire: list[Any],
) -> None:
    release = asyncio.Event()

    async def slow(request: Any) -> Any:
        yield TextDelta("Hello")
        await release.wait()
        yield TextDelta(" again")

    class Slow:
        name, offline = "slow", True

        def stream(self, request: Any) -> Any:
            return slow(request)

    chat = Chat(model=ScriptedModel(["first"]))
    await chat.send("q")
    chat.runtime.model = Slow()
    run = chat.regenerate()
    for _ in range(20):
        await asyncio.sleep(0.01)
    click(chat, {"type": "hello"})
    await asyncio.sleep(0)
    (snapshot,) = customs(wire, "snapshot")
    (live,) = snapshot["messages"]
    assert live["message"]["id"] == run.message_id
    assert live["message"]["branch"] == {"index": 1, "count": 2}
    release.set()
    await run


async def test_threads_and_starters_are_traits(wire: list[Any], tmp_path: Path) -> None:
    chat = Chat(model=ScriptedModel(["a1", "a2"]), persist=tmp_path, starters=["Say hi"])
    assert chat.starters == ["Say hi"]
    first = chat.thread_id
    assert first == chat.thread.id
    await chat.send("Cats please")
    await settle(chat)
    assert [t["title"] for t in chat.thread_list] == ["Cats please"]
    first_models = list(chat.messages)

    second = chat.new_thread()
    await settle(chat)
    assert chat.thread_id == second and chat.messages == []
    assert [t["id"] for t in chat.thread_list] == [first, second]
    assert all(m.comm is None for m in first_models)  # the other thread's models are closed
    assert [t.id for t in chat.threads] == [first, second]

    await chat.send("Dogs")
    chat.switch_thread(first)
    await settle(chat)
    assert shown(chat) == ["Cats please", "a1"]
    assert chat.thread_id == first
    chat.rename_thread(first, "Felines")
    assert chat.thread_list[0]["title"] == "Felines"


def test_the_offline_demo_offers_its_starters(wire: list[Any]) -> None:
    chat = Chat(model=gu.DemoModel())  # no tools: what the demo itself answers
    assert chat.starters == ["What can you do offline?", "How do I use a real model?"]
    opened = [d for t, _, d in wire if t == "comm_open" and "starters" in d.get("state", {})]
    assert opened and opened[-1]["state"]["starters"] == chat.starters


class NoteProps(BaseModel):
    text: str


@gu.component
def Note(props: NoteProps) -> str:
    """A note rendered in Python."""
    return f"*{props.text}*"


async def test_a_thread_switched_to_gets_its_python_components_rendered(
    wire: list[Any], tmp_path: Path
) -> None:
    note = ScriptedCall("show_component_Note", {"text": "hi"}, id="n1")
    model = ScriptedModel([note, "ok", "b"])
    rt = gu.Runtime(model=model, components=[Note], persist=tmp_path)
    await rt.send("a note please")
    with_note = rt.thread.id
    rt.new_thread()
    await rt.send("no note here")  # saved last: a chat on the folder opens it

    chat = Chat(model=ScriptedModel([]), components=[Note], persist=tmp_path)
    assert chat.thread_id != with_note
    chat.switch_thread(with_note)
    for _ in range(50):
        await asyncio.sleep(0.01)
    output = chat.component_outputs.get("n1")
    assert output is not None and output["bundle"]["text/markdown"] == "*hi*"
    chat.close()
