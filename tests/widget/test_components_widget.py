"""gu.Chat with components, without a kernel: specs, kernel outputs, user state."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, ClassVar

import comm
import pytest
from comm.base_comm import BaseComm
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.tools.component_names import component_id_of
from ipygenui.widget.chat import Chat


class RecordingComm(BaseComm):
    log: ClassVar[list[dict[str, Any]]] = []

    def publish_msg(self, msg_type: str, data: Any = None, *args: Any, **kw: Any) -> None:
        self.log.append({"type": msg_type, **(data or {})})


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(RecordingComm, "log", log)
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: RecordingComm(*a, **k))
    yield log


def customs(log: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        m["content"]
        for m in log
        if m.get("method") == "custom" and m["content"].get("type") == kind
    ]


class NoteProps(BaseModel):
    text: str


@gu.component
def Note(props: NoteProps) -> str:
    """A note rendered in Python."""
    return f"*{props.text}*"


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0.01)


async def test_specs_are_sent_and_python_outputs_reach_the_view(wire: list[dict[str, Any]]) -> None:
    model = ScriptedModel([ScriptedCall("show_component_Note", {"text": "hi"}, id="n1"), "ok"])
    chat = Chat(model=model, components=[Note, gu.Table])
    assert [s["name"] for s in chat.component_specs] == ["Note", "Table"]
    assert chat.component_specs[0]["kind"] == "python"
    await chat.send("note")
    await settle()
    final = chat.component_outputs["n1"]
    assert final["final"] and final["bundle"]["text/markdown"] == "*hi*"
    assert customs(wire, "component_output")[-1]["output"] == final
    assert chat.shown_components()[0].props == NoteProps(text="hi")
    chat.close()


async def test_component_state_from_the_browser_is_validated(wire: list[dict[str, Any]]) -> None:
    form = {"fields": [{"name": "city"}]}
    model = ScriptedModel([ScriptedCall("show_component_Form", form, id="f1"), "ok"])
    chat = Chat(model=model, components=[gu.Form])
    await chat.send("form")
    chat._handlers._dispatch(
        {"type": "component_state", "tool_call_id": "f1", "state": {"submitted": 3}}
    )
    assert customs(wire, "error")[-1]["request"] == "component_state"
    assert chat.thread.messages[-1].tool_calls[0].component_state is None
    state = {"values": {"city": "Lima"}, "submitted": True}
    chat._handlers._dispatch({"type": "component_state", "tool_call_id": "f1", "state": state})
    assert chat.thread.messages[-1].tool_calls[0].component_state == state
    chat._handlers._dispatch({"type": "component_state", "tool_call_id": "f1"})
    assert customs(wire, "error")[-1]["message"].startswith("invalid 'component_state' message")
    assert chat.thread.messages[-1].tool_calls[0].component_state == state
    chat.close()


async def test_the_view_is_told_which_component_a_call_shows_and_updates(
    wire: list[dict[str, Any]],
) -> None:
    # a long provider id: the component's id is the kernel's (cut, with a hash)
    long_id = "call_" + "x" * 60
    model = ScriptedModel(
        [
            ScriptedCall("show_component_Note", {"text": "hi"}, id=long_id),
            "ok",
        ]
    )
    chat = Chat(model=model, components=[Note])
    assert chat.standard_params == ["_status_message", "_completion_status_message"]
    await chat.send("note")
    await settle()
    names = {"component": "Note", "component_id": component_id_of(long_id)}
    added = [
        op["value"]
        for frame in customs(wire, "frame")
        for patch in frame["patches"]
        for op in patch["ops"]
        if op["op"] == "add_part" and op["value"]["type"] == "tool-call"
    ]
    assert [part["component_call"] for part in added] == [names]
    [part] = [p for m in chat.messages for p in m.message["parts"] if p["type"] == "tool-call"]
    assert part["component_call"] == names
    chat.close()


async def test_the_kernel_sends_the_effective_props_of_an_updated_component(
    wire: list[dict[str, Any]],
) -> None:
    # The browser merges nothing: the component_props trait holds the merge.
    model = ScriptedModel(
        [
            ScriptedCall("show_component_Note", {"text": "hi"}, id="n1"),
            ScriptedCall("show_component_Note", {"text": "other"}, id="n2"),
            "shown",
            ScriptedCall(f"update_component_{component_id_of('n1')}", {"text": "bye"}, id="u1"),
            ScriptedCall(f"update_component_{component_id_of('n2')}", {"text": 5}, id="u2"),
            "updated",
        ]
    )
    chat = Chat(model=model, components=[Note])
    await chat.send("notes")
    await settle()
    assert chat.component_props == {}  # nothing updated: each renders its own args
    await chat.send("change them")
    await settle()
    failed = chat.runtime.thread.messages[-1].tool_calls[1]
    assert failed.is_error  # a failed update changes nothing
    assert chat.component_props == {component_id_of("n1"): {"text": "bye"}}
    chat.new_thread()
    await settle()
    assert chat.component_props == {}
    chat.close()
