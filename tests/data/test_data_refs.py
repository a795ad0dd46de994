"""Tool results by reference, through the local OpenAI-compatible server:
the model reads a summary with a ``ref``, shows Table by that reference, the
kernel sends the rows; ``ToolCallPart.value`` is the object returned."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ipygenui as gu
from comm_helpers import click, customs, settle
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget.chat import Chat
from openai_server import OpenAIServer, Reply, ToolCall

ROWS = 500


def sales_frame(rows: int = ROWS) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "order": np.arange(rows),
            "region": [f"r{i % 7}" for i in range(rows)],
            "amount": [float((i * 37) % 1000) for i in range(rows)],
        }
    )


def tool_messages(request: dict[str, Any]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in request["messages"] if m["role"] == "tool"}


def rows_in(text: str) -> int:
    """How many of the frame's rows a text carries (each row has its own order number)."""
    return text.count('"order"')


async def test_a_dataframe_result_reaches_the_model_as_a_summary_and_the_table_gets_every_row(
    openai_server: OpenAIServer, make_model: Any, wire: Any
) -> None:
    frame = sales_frame()

    @gu.tool
    def query_sales() -> pd.DataFrame:
        """All orders."""
        return frame

    openai_server.script(
        Reply.calls(ToolCall("query_sales", {}, id="q1")),
        Reply.calls(ToolCall("show_component_Table", {"data": "df_1"}, id="t1")),
        Reply.text_reply("Shown."),
    )
    chat = Chat(model=make_model(), tools=[query_sales], components=[gu.Table])
    await chat.send("orders please")
    await settle(chat)

    summary_text = tool_messages(openai_server.requests[1])["q1"]
    summary = json.loads(summary_text)
    assert summary["ref"] == "df_1" and summary["shape"] == [ROWS, 3]
    assert summary["columns"] == ["order", "region", "amount"]
    assert rows_in(json.dumps(openai_server.requests[1])) <= 60
    part = chat.thread.messages[-1].tool_calls[0]
    assert part.value is frame  # (b): the very object returned
    assert chat.data["df_1"] is frame

    table = chat.thread.messages[-1].tool_calls[1]
    assert not table.is_error, table.result
    output = chat.component_outputs["t1"]
    assert output["error"] is None and output["final"]
    assert len(output["props"]["rows"]) == ROWS and output["props"]["total_rows"] == ROWS
    assert output["props"]["rows"][123] == {"order": 123, "region": "r4", "amount": 551.0}
    assert customs(wire, "component_output")[-1]["output"] == output

    shown = chat.shown_components()[0]
    assert shown.data["data"] is frame
    results = chat.results()
    assert [(r.tool_name, r.ref) for r in results] == [
        ("query_sales", "df_1"),
        ("show_component_Table", None),
    ]
    assert results[0].value is frame
    chat.close()


async def test_an_unknown_reference_is_an_error_result_naming_the_names(
    openai_server: OpenAIServer, make_model: Any, wire: Any
) -> None:
    openai_server.script(
        Reply.calls(ToolCall("show_component_Table", {"data": "df_9"}, id="t1")),
        Reply.text_reply("Sorry."),
    )
    chat = Chat(model=make_model(), components=[gu.Table], data={"sales": sales_frame(3)})
    await chat.send("show it")
    await settle(chat)
    error = tool_messages(openai_server.requests[1])["t1"]
    assert "df_9" in error and "sales" in error and "call show_component_Table again" in error
    assert chat.thread.messages[-1].status.type == "complete"
    chat.close()


async def test_the_catalogue_rides_on_the_turns_user_message(
    openai_server: OpenAIServer, make_model: Any
) -> None:
    openai_server.script(Reply.text_reply("One."), Reply.text_reply("Two."))
    rt = gu.Runtime(model=make_model(), data={"sales": sales_frame(4)})
    await rt.send("what data is there?")
    first = openai_server.requests[0]["messages"]
    assert first[0]["role"] == "system" and "sales" not in first[0]["content"]
    assert '"name": "sales"' in first[-1]["content"] and "<data_catalogue>" in first[-1]["content"]
    rt.data["costs"] = sales_frame(2)
    await rt.send("and now?")
    second = openai_server.requests[1]["messages"]
    assert second[: len(first)] == first  # the prefix stays as it was sent
    assert '"name": "costs"' in second[-1]["content"]


async def test_a_large_table_is_paged_and_sorted_by_the_kernel(wire: Any) -> None:
    frame = pd.DataFrame({"n": np.arange(5_000), "k": np.arange(5_000)[::-1] % 97})
    model = ScriptedModel([ScriptedCall("show_component_Table", {"data": "big"}, id="t1"), "ok"])
    chat = Chat(model=model, components=[gu.Table], data={"big": frame})
    await chat.send("show")
    await settle(chat)
    props = chat.component_outputs["t1"]["props"]
    assert props["paged"] and props["total_rows"] == 5_000 and len(props["rows"]) < 1_000
    click(
        chat,
        {
            "type": "data_window",
            "tool_call_id": "t1",
            "request": 7,
            "offset": 100,
            "limit": 50,
            "sort": "k",
            "descending": True,
        },
    )
    await settle(chat)
    answer = customs(wire, "data_window")[-1]
    assert answer["request"] == 7 and answer["offset"] == 100 and len(answer["rows"]) == 50
    expected = frame.sort_values("k", ascending=False, kind="stable").iloc[100:150]
    assert [r["n"] for r in answer["rows"]] == expected["n"].tolist()
    click(
        chat,
        {
            "type": "data_window",
            "tool_call_id": "t1",
            "request": 8,
            "offset": 0,
            "limit": 5,
            "sort": "nope",
        },
    )
    await settle(chat)
    assert "nope" in customs(wire, "data_window")[-1]["error"]
    chat.close()


@pytest.mark.parametrize("value", [sales_frame(3), np.zeros((2, 2)), object()])
async def test_value_is_the_object_and_a_loaded_thread_keeps_the_summary(
    value: Any, tmp_path: Any
) -> None:
    @gu.tool
    def make() -> Any:
        """Returns an object."""
        return value

    path = tmp_path / "t.json"
    model = ScriptedModel([ScriptedCall("make", {}, id="m1"), "ok"])
    rt = gu.Runtime(model=model, tools=[make], persist=path)
    await rt.send("go")
    part = rt.thread.messages[-1].tool_calls[0]
    assert part.value is value
    assert part.result["ref"] in rt.data
    loaded = gu.Runtime(model=ScriptedModel(["x"]), persist=path)
    again = loaded.thread.messages[-1].tool_calls[0]
    assert again.value is None and again.result == part.result
    # the kernel-side object is not the call's data: the thread read back equals it
    assert again == part and loaded.thread.messages == rt.thread.messages


async def test_data_tools_query_by_structured_arguments_and_return_references() -> None:
    frame = sales_frame(70)
    query = {
        "name": "sales",
        "filters": [{"column": "amount", "op": ">=", "value": 100}],
        "group_by": ["region"],
        "aggregations": [{"column": "amount", "func": "sum", "name": "total"}],
        "sort": [{"column": "total", "descending": True}],
        "limit": 3,
    }
    model = ScriptedModel(
        [
            [
                ScriptedCall("describe_data", {"name": "sales"}, id="d1"),
                ScriptedCall("preview_rows", {"name": "sales", "limit": 500}, id="p1"),
                ScriptedCall("query_data", query, id="q1"),
                ScriptedCall("query_data", {"name": "sales; import os"}, id="bad"),
                ScriptedCall(
                    "query_data",
                    {"name": "sales", "filters": [{"column": "nope", "op": "==", "value": 1}]},
                    id="col",
                ),
            ],
            "ok",
        ]
    )
    rt = gu.Runtime(model=model, tools=gu.data_tools(), data={"sales": frame})
    await rt.send("go")
    calls = {p.tool_call_id: p for p in rt.thread.messages[-1].tool_calls}
    described = calls["d1"].result
    assert described["ref"] == "sales" and described["stats"]["ref"] in rt.data
    assert len(calls["p1"].result["rows"]) == 50  # at most 50, whatever was asked
    result = calls["q1"].result
    expected = (
        frame[frame.amount >= 100].groupby("region")["amount"].sum().sort_values(ascending=False)
    )
    assert result["shape"] == [3, 2] and result["columns"] == ["region", "total"]
    assert rt.data[result["ref"]]["total"].tolist() == expected.head(3).tolist()
    assert calls["bad"].is_error and "the names you may use: sales" in calls["bad"].result["error"]
    assert calls["col"].is_error and "no column 'nope'" in calls["col"].result["error"]


def test_summaries_stay_within_budget_and_never_raise() -> None:
    wide = pd.DataFrame({f"column_{i}" * 5: ["x" * 300] * 10 for i in range(400)})

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

        def __len__(self) -> int:
            raise RuntimeError("no len")

    summary = gu.data.summarize(wide, ref="df_1")
    assert len(json.dumps(summary)) <= 6_000 and summary["shape"] == [10, 400]
    broken = gu.data.summarize(Broken(), ref="result_1")
    assert broken["ref"] == "result_1" and "could not summarize" in broken["error"]


async def test_chart_plots_columns_of_a_reference(wire: Any) -> None:
    frame = pd.DataFrame(
        {"month": ["Jan", "Feb", "Mar"], "sales": [1.0, 2.5, 4.0], "cost": [1, 1, 2]}
    )
    props = {"data": "monthly", "x_column": "month", "y_columns": ["sales", "cost"]}
    bad = {"data": "monthly", "x_column": "month", "y_columns": ["profit"]}
    model = ScriptedModel(
        [
            [
                ScriptedCall("show_component_Chart", props, id="c1"),
                ScriptedCall("show_component_Chart", bad, id="c2"),
            ],
            "ok",
        ]
    )
    chat = Chat(model=model, components=[gu.Chart], data={"monthly": frame})
    await chat.send("plot")
    await settle(chat)
    resolved = chat.component_outputs["c1"]["props"]
    assert resolved["x"] == ["Jan", "Feb", "Mar"]
    assert resolved["series"] == [
        {"name": "sales", "values": [1.0, 2.5, 4.0]},
        {"name": "cost", "values": [1, 1, 2]},
    ]
    failed = chat.thread.messages[-1].tool_calls[1]
    assert failed.is_error and "no column 'profit'" in failed.result["error"]
    assert chat.shown_components()[0].data["data"] is frame
    chat.close()
