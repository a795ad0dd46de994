"""gu.Workbench: sample props of each component, the error the model would get,
and replay states equal to the kernel parser's for the same chunks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

import ipygenui as gu
from ipygenui._internal.partial_json import PartialJSONParser
from ipygenui.components.builtins import BUILTINS
from ipygenui.workbench import Workbench, check_props, chunk_text, replay_states, samples_for
from ipygenui.workbench._protocol import read_request


@pytest.mark.parametrize("component", BUILTINS, ids=lambda c: c.name)
def test_every_builtin_has_valid_samples_and_edge_cases(component: gu.Component) -> None:
    samples = samples_for(component)
    valid = [s for s in samples if s.error is None]
    assert valid, [s.error for s in samples]
    for sample in valid:
        component.validate_props(sample.props)  # the runtime's own check passes
    labels = [s.label for s in samples]
    assert labels[0] == "example"
    assert "long strings" in labels


class Weather(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"city": "Oslo", "temps": [3, 5], "note": "windy"}]}
    )
    city: str = Field(min_length=1)
    temps: list[float] = Field(min_length=1)
    note: str | None = None


WEATHER = gu.Component(
    "Weather", Weather, description="A forecast", esm="export function render() {}"
)


def test_a_models_own_examples_come_first_then_generated_then_edge_cases() -> None:
    samples = samples_for(WEATHER)
    assert samples[0].label == "example"
    assert samples[0].props == {"city": "Oslo", "temps": [3, 5], "note": "windy"}
    generated = next(s for s in samples if s.label == "generated")
    assert generated.error is None and generated.props["temps"]
    assert samples_for(WEATHER) == samples  # seeded: the same samples each time
    by_label = {s.label: s for s in samples}
    # an empty list breaks min_length: the edge case says what the model would be told
    empty = by_label["empty lists"]
    assert empty.props["temps"] == []
    assert empty.error is not None and "temps" in empty.error
    assert len(by_label["long strings"].props["city"]) == 400
    assert by_label["missing optional fields"].props == {"city": "Oslo", "temps": [3, 5]}


def test_invalid_props_show_the_runtimes_own_error_text() -> None:
    tool = WEATHER.as_tool()
    with pytest.raises(gu.errors.ToolArgumentsError) as raised:
        tool.validate({"city": ""})
    assert check_props(WEATHER, {"city": ""}) == str(raised.value)
    assert check_props(WEATHER, {"city": "Oslo", "temps": [1]}) is None


def _parser_states(chunks: list[str]) -> list[tuple[Any, dict[str, str], bool]]:
    parser = PartialJSONParser()
    out = []
    for chunk in chunks:
        parser.feed(chunk)
        out.append((json.loads(json.dumps(parser.value)), dict(parser.field_status()), parser.done))
    return out


@pytest.mark.parametrize("size", [1, 3, 8, 50, 0])
def test_replay_states_are_the_kernel_parsers_for_the_same_chunks(size: int) -> None:
    props = {"title": 'Q\\u00e9 "3"', "rows": [{"a": 1.5, "b": None, "c": True}], "x": [-1, 2e3]}
    text = json.dumps(props)
    chunks = chunk_text(text, size)
    assert "".join(chunks) == text
    assert len(chunks) == (1 if size == 0 else -(-len(text) // size))
    states = replay_states(chunks)
    assert [(s.props, s.fields, s.complete) for s in states] == _parser_states(chunks)
    assert [s.text for s in states] == ["".join(chunks[: i + 1]) for i in range(len(chunks))]
    assert states[-1].complete and states[-1].props == props


def test_replay_states_are_snapshots_not_the_live_value() -> None:
    states = replay_states(['{"rows": [1', ", 2", "]}"])
    assert [s.props for s in states] == [{"rows": [1]}, {"rows": [1, 2]}, {"rows": [1, 2]}]


def test_the_widget_answers_checks_and_replays_and_ignores_anything_else() -> None:
    wb = Workbench(components=[gu.Chart, WEATHER], tools=[])
    assert [c["name"] for c in wb.components] == ["Chart", "Weather"]
    assert wb.component_specs[0]["builtin"] == "chart"
    check = read_request(
        {"type": "check_props", "ref": 1, "name": "Weather", "text": '{"city": ""}'}
    )
    assert check is not None
    reply = wb.answer(check)
    assert reply["error"] == check_props(WEATHER, {"city": ""})
    broken = read_request({"type": "check_props", "ref": 2, "name": "Weather", "text": "{"})
    assert broken is not None and wb.answer(broken)["error"].startswith("the props are not JSON")
    text = '{"city": "Oslo", "temps": [1, 2]}'
    replay = read_request(
        {"type": "replay", "ref": 3, "name": "Weather", "text": text, "chunk_chars": 4}
    )
    assert replay is not None
    answer = wb.answer(replay)
    assert [s["props"] for s in answer["states"]] == [
        s.props for s in replay_states(chunk_text(text, 4))
    ]
    assert answer["error"] is None
    for bad in [
        {"type": "replay", "ref": 1, "name": "Weather", "text": text, "chunk_chars": -1},
        {"type": "check_props", "ref": 1, "name": "Weather", "text": "x" * 200_001},
        {"type": "nope"},
        "text",
    ]:
        assert read_request(bad) is None


def test_the_widget_shows_each_entrys_cost_as_registry_cost_counts_it() -> None:
    wb = Workbench(components=[gu.Chart, WEATHER], tools=[])
    rows = gu.registry_cost(components=[gu.Chart, WEATHER])
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    assert {r["name"]: r["tokens"] for r in records if r["kind"] == "component"} == {
        name: entry["tokens"] for name, entry in wb.cost["entries"].items()
    }
    assert (
        wb.cost["total"]["tokens"]
        == gu.registry_cost(components=[gu.Chart, WEATHER], total=True)["tokens"]
    )


def test_an_evaluation_shows_as_a_table_and_a_bar_chart_of_calls() -> None:
    result = gu.evaluate_sync(
        [("show a table of sales", "Table"), ("a chart of revenue", "Chart"), ("hello", None)],
        components=[gu.Table, gu.Chart],
        model=gu.DemoModel(),
    )
    wb = Workbench(components=[gu.Table, gu.Chart])
    wb.show_evaluation(result)
    view = wb.evaluation
    assert [r["called"] for r in view["table"]["rows"]] == list(result["called"])
    chart = view["chart"]
    assert dict(zip(chart["x"], chart["series"][0]["values"], strict=True)) == dict(
        result["called"].value_counts()
    )
    gu.Chart.validate_props(chart)  # the built-in Chart renders it
    gu.Table.validate_props(view["table"])
    assert view["accuracy"] == result.accuracy
    json.dumps(view)  # all of it goes to the browser as JSON


class Greeting(BaseModel):
    name: str


@gu.component
def Greeter(props: Greeting) -> str:
    """Greets someone."""
    if props.name == "boom":
        raise RuntimeError("no greeting for boom")
    return f"Hello, {props.name}!"


def test_a_python_components_preview_is_its_functions_output_from_the_kernel() -> None:
    wb = Workbench(components=[Greeter])
    for ref, text in enumerate(['{"name": "Ada"}', '{"name": "boom"}']):
        request = read_request({"type": "check_props", "ref": ref, "name": "Greeter", "text": text})
        assert request is not None
        assert wb.answer(request)["error"] is None
    [output] = wb.component_outputs.values()
    assert output["tool_call_id"] == "wb-preview-Greeter" and output["seq"] == 2
    assert output["error"] == "Greeter failed: RuntimeError: no greeting for boom"
    first = read_request(
        {"type": "check_props", "ref": 3, "name": "Greeter", "text": '{"name": "Ada"}'}
    )
    assert first is not None
    wb.answer(first)
    assert wb.component_outputs["wb-preview-Greeter"]["bundle"][
        "text/plain"
    ] == "'Hello, Ada!'" or (
        "Hello, Ada!" in json.dumps(wb.component_outputs["wb-preview-Greeter"]["bundle"])
    )
