"""Faults of a browser kernel (Pyodide, as the JupyterLite site runs it).

Pyodide has one thread and cannot start another: ``threading.Thread.start``
raises ``RuntimeError: can't start new thread``. Tried here on CPython by
making the process look like Pyodide (``sys.platform == "emscripten"``, a
``Thread.start`` that raises as Pyodide's does):

- a sync tool still runs and returns its result (it used to fail every call
  with "can't start new thread", so the weather tool of the quickstart
  notebook never answered in the browser);
- its exceptions still reach the model as a tool error;
- a sync Python component still renders;
- a sorted page of a large table (sorted in a worker thread elsewhere) is
  still answered;
- a priced model's first reply still loads the price data (loaded in a
  thread elsewhere: it used to end the reply with "can't start new thread").
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

import pytest
from pydantic import BaseModel

import ipygenui as gu
from comm_helpers import click, customs, settle
from ipygenui.messages import Complete
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget.chat import Chat
from runtime_helpers import call


@pytest.fixture
def browser_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as Pyodide's: no second thread can start."""

    def no_threads(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(threading.Thread, "start", no_threads)


@pytest.mark.usefixtures("browser_kernel")
async def test_a_sync_tool_answers_where_no_thread_can_start() -> None:
    ran_on: list[int] = []

    @gu.tool
    def get_weather(city: str) -> dict[str, Any]:
        """Look up the current weather in a city."""
        ran_on.append(threading.get_ident())
        return {"city": city, "temperature_c": 21, "sky": "clear"}

    model = ScriptedModel([call("get_weather", {"city": "Paris"}, id="w"), "Sunny."])
    rt = gu.Runtime(model=model, tools=[get_weather])
    message = await asyncio.wait_for(rt.send("weather?"), 30)
    part = message.tool_call("w")
    assert part is not None and not part.is_error, part
    assert part.result == {"city": "Paris", "temperature_c": 21, "sky": "clear"}
    assert ran_on == [threading.get_ident()]  # on the loop: the only thread there is
    assert message.status == Complete(reason="stop")


@pytest.mark.usefixtures("browser_kernel")
async def test_a_failing_sync_tool_is_still_a_tool_error() -> None:
    @gu.tool
    def broken() -> str:
        raise ValueError("no station for Atlantis")

    model = ScriptedModel([call("broken", id="b"), "It failed."])
    rt = gu.Runtime(model=model, tools=[broken])
    message = await asyncio.wait_for(rt.send("go"), 30)
    part = message.tool_call("b")
    assert part is not None and part.is_error
    assert "no station for Atlantis" in part.result["error"]
    assert "thread" not in part.result["error"]
    assert message.status == Complete(reason="stop")


class _Props(BaseModel):
    title: str


@pytest.mark.usefixtures("browser_kernel")
async def test_a_sync_python_component_renders_where_no_thread_can_start() -> None:
    @gu.component(description="A title")
    def Title(props: _Props) -> str:
        return f"<b>{props.title}</b>"

    model = ScriptedModel([call("show_component_Title", {"title": "Sales"}, id="t"), "Shown."])
    chat = gu.Chat(model=model, components=[Title])
    message = await asyncio.wait_for(chat.send("show it"), 30)
    assert message.status == Complete(reason="stop")
    [output] = [o for o in chat.component_outputs.values() if o]
    assert "Sales" in str(output) and "thread" not in str(output)


@pytest.mark.usefixtures("browser_kernel")
async def test_a_sorted_page_of_a_large_table_answers_where_no_thread_can_start(
    wire: Any,
) -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"n": range(5_000), "k": [(4_999 - i) % 97 for i in range(5_000)]})
    model = ScriptedModel([ScriptedCall("show_component_Table", {"data": "big"}, id="t1"), "ok"])
    chat = Chat(model=model, components=[gu.Table], data={"big": frame})
    await chat.send("show")
    await settle(chat)
    window = {"type": "data_window", "tool_call_id": "t1", "request": 7, "offset": 100}
    click(chat, {**window, "limit": 50, "sort": "k", "descending": True})
    await settle(chat)
    [answer] = customs(wire, "data_window")
    assert "error" not in answer, answer
    expected = frame.sort_values("k", ascending=False, kind="stable").iloc[100:150]
    assert [r["n"] for r in answer["rows"]] == expected["n"].tolist()
    assert customs(wire, "error") == []


@pytest.mark.usefixtures("browser_kernel")
async def test_a_priced_reply_loads_the_price_data_where_no_thread_can_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ipygenui.runtime import usage as _usage
    from ipygenui.testing import ScriptedReply

    monkeypatch.setattr(_usage, "_prices_loaded", False)  # the first priced step loads them
    model = ScriptedModel([ScriptedReply(text="ok", usage=(1000, 500))])
    model.spec = "openai:gpt-4o-mini"  # type: ignore[attr-defined]
    rt = gu.Runtime(model=model)
    message = await asyncio.wait_for(rt.send("hi"), 30)
    assert message.status == Complete(reason="stop"), message.status
    assert message.metadata["cost"]["priced_as"] == "openai:gpt-4o-mini"
