"""tool_choice resolution: keywords, tool names, component names, typos."""

from __future__ import annotations

import pytest

from ipygenui.runtime._loop.tool_choice import resolve_tool_choice

TOOLS = ["get_weather", "show_component_Weather"]


def test_none_is_auto_and_keywords_pass_through() -> None:
    assert resolve_tool_choice(None, TOOLS) == "auto"
    for keyword in ("auto", "required", "none"):
        assert resolve_tool_choice(keyword, TOOLS) == keyword
    assert resolve_tool_choice("auto", []) == "auto"


def test_a_tool_name_forces_that_tool() -> None:
    assert resolve_tool_choice("get_weather", TOOLS) == {
        "type": "function",
        "function": {"name": "get_weather"},
    }


def test_a_component_name_forces_its_ui_tool() -> None:
    expected = {"type": "function", "function": {"name": "show_component_Weather"}}
    assert resolve_tool_choice("Weather", TOOLS) == expected
    assert resolve_tool_choice("show_component_Weather", TOOLS) == expected


def test_unknown_name_names_the_available_tools() -> None:
    with pytest.raises(ValueError) as info:
        resolve_tool_choice("get_wether", TOOLS)
    assert "get_wether" in str(info.value)
    assert "get_weather" in str(info.value)
    assert "show_component_Weather" in str(info.value)


def test_required_without_tools_and_non_strings_fail() -> None:
    with pytest.raises(ValueError, match="required"):
        resolve_tool_choice("required", [])
    with pytest.raises(TypeError):
        resolve_tool_choice(3, TOOLS)  # type: ignore[arg-type]
