"""Data reference faults: what a model, a tool or a browser can get wrong.

Faults tried:
- a tool returning an object whose ``repr`` and ``len`` raise: the model
  reads a summary saying it could not be summarized, the run goes on;
- a component prop naming data that does not exist, and a name that is not
  a table: an error result listing the names the model may use;
- forged ``data_window`` messages (a window over the limit, a negative
  offset, an unknown call, a call that shows no kernel data, an unknown
  sort column): refused or answered with an error, the chat goes on;
- an invalid data name given by the notebook author (``data={"a b": ...}``)
  and a ``data=`` that is not a mapping: a clear error at construction.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

import ipygenui as gu
from comm_helpers import click, customs, settle
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget.chat import Chat


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")

    def __len__(self) -> int:
        raise RuntimeError("len exploded")


async def test_an_object_that_cannot_be_summarized_is_said_so() -> None:
    @gu.tool
    def odd() -> Any:
        """Returns an odd object."""
        return Unprintable()

    model = ScriptedModel([ScriptedCall("odd", {}, id="o1"), "ok"])
    rt = gu.Runtime(model=model, tools=[odd])
    message = await rt.send("go")
    part = message.tool_calls[0]
    assert not part.is_error and isinstance(part.value, Unprintable)
    assert "could not summarize" in part.result["error"] and part.result["ref"] in rt.data
    assert "could not summarize" in model.requests[1].messages[-1]["content"]
    assert message.status.type == "complete"


@pytest.mark.parametrize(
    ("name", "expected"), [("nope", "the names you may use: frame, text"), ("text", "not a table")]
)
async def test_a_bad_reference_in_props_is_an_error_result(name: str, expected: str) -> None:
    model = ScriptedModel([ScriptedCall("show_component_Table", {"data": name}, id="t1"), "ok"])
    data = {"frame": pd.DataFrame({"a": [1]}), "text": "hello"}
    rt = gu.Runtime(model=model, components=[gu.Table], data=data)
    message = await rt.send("show")
    part = message.tool_calls[0]
    assert part.is_error and expected in part.result["error"]
    assert message.status.type == "complete"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"tool_call_id": "t1", "request": 1, "offset": 0, "limit": 5_000},
            "invalid 'data_window'",
        ),
        ({"tool_call_id": "t1", "request": 1, "offset": -4, "limit": 5}, "invalid 'data_window'"),
        ({"tool_call_id": "t1", "request": 1, "offset": 0, "limit": 5, "sql": "x"}, "invalid"),
    ],
)
async def test_forged_window_requests_are_refused(
    wire: Any, content: dict[str, Any], expected: str
) -> None:
    chat = Chat(model=ScriptedModel(["ok"]), components=[gu.Table])
    click(chat, {"type": "data_window", **content})
    await settle(chat)
    assert expected in customs(wire, "error")[-1]["message"]
    assert customs(wire, "data_window") == []
    chat.close()


async def test_windows_of_calls_without_kernel_data_answer_an_error(wire: Any) -> None:
    model = ScriptedModel(
        [
            [
                ScriptedCall("show_component_Table", {"rows": [{"a": 1}]}, id="lit"),
                ScriptedCall("show_component_Table", {"data": "big"}, id="big"),
            ],
            "ok",
        ]
    )
    frame = pd.DataFrame({"a": range(3_000)})
    chat = Chat(model=model, components=[gu.Table], data={"big": frame})
    await chat.send("show")
    await settle(chat)
    for request, (call, sort) in enumerate([("nope", None), ("lit", None), ("big", "zzz")]):
        click(
            chat,
            {
                "type": "data_window",
                "tool_call_id": call,
                "request": request,
                "offset": 0,
                "limit": 10,
                "sort": sort,
            },
        )
        await settle(chat)
    answers = customs(wire, "data_window")
    assert [a["request"] for a in answers] == [0, 1, 2]
    assert "no tool call 'nope'" in answers[0]["error"]
    assert "shows no table of kernel data" in answers[1]["error"]
    assert "no column 'zzz'" in answers[2]["error"]
    assert all(a["rows"] == [] for a in answers)
    assert chat.thread.messages[-1].status.type == "complete"
    chat.close()


def test_bad_data_arguments_are_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="data name 'a b'"):
        gu.Runtime(model=ScriptedModel(["x"]), data={"a b": 1})
    with pytest.raises(TypeError, match=r"Runtime\(data=...\) must be a dict"):
        gu.Runtime(model=ScriptedModel(["x"]), data=[1, 2])  # type: ignore[arg-type]
