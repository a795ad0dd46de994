"""Issue 26 item 4: ``evaluate`` measures which tool or component a model picks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

import ipygenui as gu
from ipygenui.models.base import FinishDelta, ModelDelta, ModelError, ModelRequest, TextDelta
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply
from ipygenui.workbench.evaluate import NO_CALL, evaluate, evaluate_sync

RAN: list[str] = []


@gu.tool
def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    RAN.append(city)
    return {"city": city}


@gu.tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(path)
    return "deleted"


COMPONENTS = [gu.Chart, gu.Table, gu.Metric]

PROMPTS = [
    ("Show me a chart of monthly sales", "Chart"),
    ("Plot the monthly sales as a line chart", "show_component_Chart"),
    ("Show the top products in a table", "Table"),
    ("Show monthly sales as a table, not a chart", "Table"),
    ("What's the weather in Paris?", "get_weather"),
    ("Is it raining in Tokyo? Check the weather", "get_weather"),
    ("Show this month's revenue metric", "Metric"),
    ("Hello! What can you do?", None),
    {"prompt": "What is ipygenui?", "expected": None},
    "Thanks!",
]

FIXED_TABLE = [
    # prompt index: called, kind, valid, correct
    ("Chart", "component", True, True),
    ("Chart", "component", True, True),
    ("Table", "component", True, True),
    ("Chart", "component", True, False),  # the demo reads "chart" first: a confusion
    ("get_weather", "tool", True, True),
    ("get_weather", "tool", True, True),
    ("Metric", "component", True, True),
    (NO_CALL, "text", None, True),
    (NO_CALL, "text", None, True),
    (NO_CALL, "text", None, None),
]


def test_the_demo_model_gives_a_fixed_table_and_nothing_runs() -> None:
    RAN.clear()
    result = evaluate_sync(
        PROMPTS,
        components=COMPONENTS,
        tools=[get_weather, delete_file],
        model=gu.DemoModel(delay=0),
    )
    table = [(r["called"], r["kind"], r["valid"], r["correct"]) for r in result.to_dict("records")]
    assert table == FIXED_TABLE
    assert RAN == []  # the weather tool was called twice, and never run
    assert result["expected"].tolist()[:2] == ["Chart", "Chart"]  # the prefix is dropped
    assert result.accuracy == 8 / 9
    confusion = result.confusion()
    assert confusion.loc["Table", "Chart"] == 1 and confusion.loc["Table", "Table"] == 1
    assert confusion.loc[NO_CALL, NO_CALL] == 2
    assert (result["input_tokens"] > 0).all() and result["estimated"].all()
    assert result["cost_usd"].isna().all()  # the demo is not priced
    assert (result["seconds"] >= 0).all()


def test_a_priced_demo_has_a_cost_and_prompts_without_expected_have_no_column() -> None:
    result = evaluate_sync(
        ["Show me a chart"],
        components=COMPONENTS,
        model=gu.model("demo", price_ref="openai:gpt-4o"),
    )
    assert "expected" not in result.columns and "correct" not in result.columns
    assert result.accuracy is None
    [row] = result.to_dict("records")
    assert row["called"] == "Chart" and row["cost_usd"] > 0


def test_invalid_props_are_reported_and_the_model_is_not_asked_again() -> None:
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[ScriptedCall("show_component_Chart", {"kind": "pie"})]),
            ScriptedReply(text="a second step must never be asked for"),
        ]
    )
    [row] = evaluate_sync([("Chart it", "Chart")], components=COMPONENTS, model=model).to_dict(
        "records"
    )
    assert (row["called"], row["valid"], row["correct"]) == ("Chart", False, True)
    assert "invalid props for component Chart" in row["error"]
    assert model.request_count == 1


def test_a_gated_tool_is_never_approved_nor_run() -> None:
    RAN.clear()
    model = ScriptedModel([ScriptedReply(tool_calls=[ScriptedCall("delete_file", {"path": "x"})])])
    [row] = evaluate_sync(["delete x"], tools=[delete_file], model=model).to_dict("records")
    assert (row["called"], row["kind"], row["valid"]) == ("delete_file", "tool", True)
    assert RAN == []


class FailingModel:
    name = "failing"
    offline = True

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        yield TextDelta("partly ")
        raise ModelError("the provider is down")


def test_a_model_error_is_a_row_not_a_crash() -> None:
    [row] = evaluate_sync([("x", "Chart")], model=FailingModel()).to_dict("records")
    assert (row["kind"], row["called"], row["correct"]) == ("error", NO_CALL, False)
    assert row["error"] == "the provider is down" and row["text"] == "partly "


def test_a_call_of_an_unknown_tool_is_not_valid() -> None:
    model = ScriptedModel([ScriptedReply(tool_calls=[ScriptedCall("nope", {})])])
    [row] = evaluate_sync(["x"], tools=[get_weather], model=model).to_dict("records")
    assert (row["called"], row["valid"]) == ("nope", False)


class CountingModel:
    """Answers in text after a few yields, counting the streams open at once."""

    name = "counting"
    offline = True

    def __init__(self) -> None:
        self.active = 0
        self.most = 0
        self.started = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        self.active += 1
        self.started += 1
        self.most = max(self.most, self.active)
        try:
            for _ in range(5):
                await asyncio.sleep(0)  # let every other prompt that may start, start
            yield TextDelta("ok")
            yield FinishDelta("stop")
        finally:
            self.active -= 1


@pytest.mark.parametrize("concurrency", [1, 3])
def test_the_concurrency_limit_is_respected(concurrency: int) -> None:
    model = CountingModel()
    result = evaluate_sync([f"p{i}" for i in range(8)], model=model, concurrency=concurrency)
    assert model.started == 8 and len(result) == 8
    assert model.most == concurrency


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        evaluate_sync(["x"], concurrency=0)
    with pytest.raises(TypeError, match="a prompt is a str"):
        evaluate_sync([3])
    with pytest.raises(TypeError, match="expected must be"):
        evaluate_sync([("x", 3)])


async def test_evaluate_sync_in_a_running_loop_says_to_await() -> None:
    with pytest.raises(RuntimeError, match=r"await gu\.evaluate"):
        evaluate_sync(["x"])
    result = await evaluate(["Show me a table"], components=COMPONENTS, model=gu.DemoModel(delay=0))
    assert result.to_dict("records")[0]["called"] == "Table"
