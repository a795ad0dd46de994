"""Components as show_component_<Name> tools."""

from __future__ import annotations

import pydantic
import pytest

from ipygenui.tools.component_names import (
    component_id_of,
    component_name_of,
    is_ui_tool,
    props_json_schema,
    ui_tool_name,
    ui_tool_schema,
)


class Row(pydantic.BaseModel):
    name: str
    score: float


class TableProps(pydantic.BaseModel):
    title: str
    rows: list[Row]


def test_naming_and_prefix_round_trip() -> None:
    assert ui_tool_name("Weather") == "show_component_Weather"
    assert is_ui_tool("show_component_Weather")
    assert component_name_of("show_component_Weather") == "Weather"
    assert not is_ui_tool("show_component_")
    assert not is_ui_tool("get_weather")
    assert component_name_of("get_weather") is None


def test_bad_component_names_are_refused() -> None:
    with pytest.raises(ValueError, match="letters"):
        ui_tool_name("My Chart")
    with pytest.raises(ValueError, match="64"):
        ui_tool_name("C" * 60)


def test_pydantic_props_become_the_tool_parameters() -> None:
    schema = ui_tool_schema("Table", TableProps, description="A table of rows.")
    function = schema["function"]
    assert schema["type"] == "function"
    assert function["name"] == "show_component_Table"
    assert "A table of rows." in function["description"]
    params = function["parameters"]
    assert params["type"] == "object"
    assert set(params["properties"]) == {"title", "rows"}
    assert params["required"] == ["title", "rows"]
    assert "Row" in params["$defs"]
    assert "title" not in params  # the model class title is dropped


def test_dict_props_schema_is_copied_and_checked() -> None:
    raw = {"type": "object", "properties": {"n": {"type": "integer"}}}
    schema = props_json_schema(raw)
    schema["properties"]["n"]["type"] = "string"
    assert raw["properties"]["n"]["type"] == "integer"
    with pytest.raises(ValueError, match="object"):
        props_json_schema({"type": "string"})
    with pytest.raises(TypeError):
        props_json_schema(42)


def test_component_ids_are_safe_inside_a_tool_name() -> None:
    assert component_id_of("call_ab.c:d") == "call_ab_c_d"
    assert len(component_id_of("x" * 80)) == 47  # update_component_<id> fits in 64


def test_long_tool_call_ids_sharing_a_prefix_get_distinct_component_ids() -> None:
    # 47 common characters, then the ids differ: truncation alone made them one
    common = "call_" + "x" * 42
    first, second = component_id_of(common + "_first"), component_id_of(common + "_second")
    assert first != second
    assert len(first) <= 47 and len(second) <= 47
    assert component_id_of(common + "_first") == first  # stable: an update can target it
