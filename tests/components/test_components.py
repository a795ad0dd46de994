"""Components: definition, props validation, UI tools, built-ins, registry."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.components import Registry, builtins
from ipygenui.components.component import load_esm
from ipygenui.tools import ToolArgumentsError

ESM = "export function render({ props, el }) { el.textContent = props.city; }"


class WeatherProps(BaseModel):
    city: str
    temperature: float


def test_component_tool_is_named_and_shaped_from_props() -> None:
    weather = gu.Component("Weather", props=WeatherProps, description="Weather card", esm=ESM)
    tool = weather.as_tool()
    assert tool.name == "show_component_Weather"
    assert tool.component == "Weather"
    assert set(tool.parameters_schema["properties"]) == {"city", "temperature"}
    assert tool.parameters_schema["required"] == ["city", "temperature"]
    assert "Weather card" in tool.description
    assert weather.spec() == {"name": "Weather", "kind": "js", "esm": ESM}


async def test_valid_props_render_and_invalid_props_name_the_field() -> None:
    tool = gu.Component("Weather", props=WeatherProps, esm=ESM).as_tool()
    props = tool.validate({"city": "Oslo", "temperature": 3})
    assert await tool.invoke(props) == "Component Weather was rendered"
    with pytest.raises(ToolArgumentsError) as err:
        tool.validate({"city": "Oslo", "temperature": "warm"})
    assert "temperature" in str(err.value)
    assert "call show_component_Weather again" in str(err.value)


def test_esm_from_a_file_and_bad_esm(tmp_path: Path) -> None:
    path = tmp_path / "weather.js"
    path.write_text(ESM)
    assert load_esm(str(path)) == ESM
    assert load_esm(path) == ESM
    with pytest.raises(FileNotFoundError):
        load_esm(str(tmp_path / "missing.js"))
    with pytest.raises(ValueError, match="render"):
        gu.Component("Weather", props=WeatherProps, esm="alert(1)")


def test_component_definition_errors() -> None:
    with pytest.raises(ValueError, match="letters"):
        gu.Component("my weather", props=WeatherProps, esm=ESM)
    with pytest.raises(TypeError, match="pydantic"):
        gu.Component("Weather", props=dict, esm=ESM)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exactly one"):
        gu.Component("Weather", props=WeatherProps)


def test_state_validation_for_an_interactable_component() -> None:
    assert gu.Form.interactable and gu.Form.spec()["state_schema"]["type"] == "object"
    state = gu.Form.validate_state({"values": {"name": "Ada"}, "submitted": True})
    assert state == {"values": {"name": "Ada"}, "submitted": True}
    with pytest.raises(ValueError, match="submitted"):
        gu.Form.validate_state({"values": {}, "submitted": "maybe"})
    with pytest.raises(ValueError, match="not interactable"):
        gu.Markdown.validate_state({})


async def test_table_takes_a_kernel_dataframe_by_name() -> None:
    frame = pd.DataFrame({"region": ["north", "south"], "sales": [10.5, float("nan")]})
    table = builtins.TableComponent(namespace={"sales_df": frame, "other": 3})
    tool = table.as_tool()
    props = tool.validate({"dataframe": "sales_df"})
    assert await tool.invoke(props) == "Component Table was rendered"
    data = table.resolve(props)
    assert data == {
        "columns": ["region", "sales"],
        "rows": [{"region": "north", "sales": 10.5}, {"region": "south", "sales": None}],
        "total_rows": 2,
        "truncated": False,
        "title": "sales_df",  # untitled: the variable's name
    }
    with pytest.raises(ToolArgumentsError, match=r"no DataFrame named 'sale_df'.*sales_df"):
        await tool.invoke(tool.validate({"dataframe": "sale_df"}))
    with pytest.raises(ToolArgumentsError, match="not both"):
        tool.validate({"dataframe": "sales_df", "rows": [{"a": 1}]})


def test_table_truncates_a_large_dataframe() -> None:
    frame = pd.DataFrame({"n": range(builtins.MAX_TABLE_ROWS + 5)})
    data = builtins.frame_data(frame)
    assert len(data["rows"]) == builtins.MAX_TABLE_ROWS
    assert data["total_rows"] == builtins.MAX_TABLE_ROWS + 5 and data["truncated"]


@pytest.mark.parametrize(
    "src",
    ["https://example.org/a.png", "http://x.org/b.jpg", "data:image/png;base64,iVBORw0KGgo="],
)
def test_image_accepts_web_and_data_image_sources(src: str) -> None:
    assert gu.Image.validate_props({"src": src}).src == src  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "src",
    ["javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd", "//x.org"],
)
def test_image_rejects_other_schemes(src: str) -> None:
    with pytest.raises(ToolArgumentsError, match="src"):
        gu.Image.validate_props({"src": src})


def test_chart_series_must_match_x() -> None:
    ok = {"x": ["a", "b"], "series": [{"name": "s", "values": [1, 2]}]}
    assert gu.Chart.validate_props(ok)
    bad = {"x": ["a", "b"], "series": [{"name": "s", "values": [1]}]}
    with pytest.raises(ToolArgumentsError, match=r"series\.0\.values has 1 values"):
        gu.Chart.validate_props(bad)


def test_registry_groups_tools_and_components() -> None:
    @gu.tool
    def get_weather(city: str) -> str:
        """Weather in a city."""
        return "sunny"

    weather = gu.Component("Weather", props=WeatherProps, esm=ESM)
    reg = Registry(tools=[get_weather], components=[weather, gu.Table])
    assert [t.name for t in reg.tools()] == ["get_weather"]
    assert reg.components() == [weather, gu.Table]
    assert reg.component("Table") is gu.Table
    assert [t.name for t in reg.ui_tools()] == ["show_component_Weather", "show_component_Table"]
    with pytest.raises(KeyError, match="registered: Weather, Table"):
        reg.component("Chart")
    with pytest.raises(ValueError, match="already registered"):
        reg.add_component(gu.Component("Weather", props=WeatherProps, esm=ESM))
    with pytest.raises(TypeError, match="not a component"):
        reg.add_component(get_weather)  # type: ignore[arg-type]


def test_builtin_specs_name_their_bundle_modules() -> None:
    ids = {c.name: c.spec()["builtin"] for c in builtins.BUILTINS}
    assert ids == {
        "Markdown": "markdown",
        "Table": "table",
        "Metric": "metric",
        "Chart": "chart",
        "Image": "image",
        "Form": "form",
    }


def test_every_builtin_props_schema_is_an_object_schema() -> None:
    # built-ins skip the check at construction (their schemas build lazily, see
    # _Props.model_config); this is where a broken one is caught
    from ipygenui.tools.component_names import props_json_schema

    for component in builtins.BUILTINS:
        schema = props_json_schema(component.props)
        assert schema["type"] == "object" and schema["properties"], component.name
        assert component.tool_schema()["function"]["name"] == component.tool_name


def test_a_fresh_import_builds_no_component_or_protocol_validator() -> None:
    # start-up: a chat is shown before any component is called or any click arrives
    import subprocess
    import sys

    code = (
        "import ipygenui as gu; gu.Chat()\n"
        "from ipygenui.components import builtins\n"
        "from ipygenui.widget import _protocol as protocol\n"
        "built = [c.name for c in builtins.BUILTINS if c.props.__pydantic_complete__]\n"
        "built += [m.__name__ for m in (protocol.SendMsg, protocol.ApproveMsg)"
        " if m.__pydantic_complete__]\n"
        "print(built)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
