"""Components inside the runtime loop: UI tools, validation, parallel calls,
updates, user state, and reading shown components back in Python."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.components.shown import shown_components
from ipygenui.models.history import check_openai_history
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply
from ipygenui.tools.component_names import component_id_of

ESM = "export function render({ props, el }) { el.textContent = props.city; }"


class WeatherProps(BaseModel):
    city: str
    temperature: float


WEATHER = gu.Component("Weather", props=WeatherProps, description="Weather card", esm=ESM)


def tool_contents(request) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {m["tool_call_id"]: m["content"] for m in request.messages if m["role"] == "tool"}


async def test_parallel_component_calls_both_render_and_read_back_typed() -> None:
    model = ScriptedModel(
        [
            [
                ScriptedCall("show_component_Weather", {"city": "Oslo", "temperature": 3}, id="c1"),
                ScriptedCall("show_component_Markdown", {"text": "**hi**"}, id="c2"),
            ],
            "Done.",
        ]
    )
    rt = gu.Runtime(model=model, components=[WEATHER, gu.Markdown])
    await rt.send("weather")
    calls = rt.thread.messages[-1].tool_calls
    assert [(p.component, p.result, p.is_error) for p in calls] == [
        ("Weather", "Component Weather was rendered", False),
        ("Markdown", "Component Markdown was rendered", False),
    ]
    shown = rt.shown_components()
    assert [s.name for s in shown] == ["Weather", "Markdown"]
    assert isinstance(shown[0].props, WeatherProps) and shown[0].props.temperature == 3.0
    assert shown[0].state is None and shown[0].message_id == rt.thread.messages[-1].id
    for request in model.requests:
        check_openai_history(request.messages)


async def test_invalid_props_become_an_error_result_naming_the_field() -> None:
    model = ScriptedModel(
        [
            ScriptedCall("show_component_Weather", {"city": "Oslo", "temperature": "hot"}, id="c1"),
            ScriptedCall("show_component_Weather", {"city": "Oslo", "temperature": 30}, id="c2"),
            "Shown.",
        ]
    )
    rt = gu.Runtime(model=model, components=[WEATHER])
    await rt.send("weather")
    first, second = rt.thread.messages[-1].tool_calls
    assert first.is_error and "temperature" in json.dumps(first.result)
    assert not second.is_error
    # the model saw the error, so it could call again
    assert "temperature" in tool_contents(model.requests[1])["c1"]
    assert [s.tool_call_id for s in rt.shown_components()] == ["c2"]
    registry = gu.components.Registry(components=rt.components)
    assert [s.tool_call_id for s in shown_components(rt.thread, registry)] == ["c2"]


async def test_update_tool_changes_a_shown_component_in_place() -> None:
    model = ScriptedModel(
        [
            ScriptedCall("show_component_Weather", {"city": "Oslo", "temperature": 3}, id="c1"),
            "Here it is.",
            ScriptedCall(f"update_component_{component_id_of('c1')}", {"temperature": 5}, id="u1"),
            "Updated.",
        ]
    )
    rt = gu.Runtime(model=model, components=[WEATHER])
    await rt.send("weather")
    await rt.send("warmer")
    offered = [t["function"]["name"] for t in model.requests[2].tools]
    assert "update_component_c1" in offered
    update = rt.thread.messages[-1].tool_calls[0]
    assert update.result == "Component Weather c1 was updated" and not update.is_error
    (shown,) = rt.shown_components()
    assert shown.props == WeatherProps(city="Oslo", temperature=5)


async def test_an_update_with_bad_props_fails_and_changes_nothing() -> None:
    model = ScriptedModel(
        [
            ScriptedCall("show_component_Weather", {"city": "Oslo", "temperature": 3}, id="c1"),
            "ok",
            ScriptedCall("update_component_c1", {"temperature": "x"}, id="u1"),
            "ok",
        ]
    )
    rt = gu.Runtime(model=model, components=[WEATHER])
    await rt.send("a")
    await rt.send("b")
    assert rt.thread.messages[-1].tool_calls[0].is_error
    assert rt.shown_components()[0].props == WeatherProps(city="Oslo", temperature=3)


async def test_form_state_reaches_the_next_request() -> None:
    form = {"fields": [{"name": "city"}]}
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[ScriptedCall("show_component_Form", form, id="f1")]),
            "Fill it in.",
            "Thanks.",
        ]
    )
    rt = gu.Runtime(model=model, components=[gu.Form])
    await rt.send("plan a trip")
    with pytest.raises(ValueError, match="submitted"):
        rt.set_component_state("f1", {"values": {}, "submitted": "maybe"})
    with pytest.raises(ValueError, match="no component"):
        rt.set_component_state("nope", {"values": {}})
    assert rt.thread.messages[-1].tool_calls[0].component_state is None
    rt.set_component_state("f1", {"values": {"city": "Lima"}, "submitted": True})
    await rt.send("done")
    user = model.requests[-1].messages[-1]
    assert user["role"] == "user" and user["content"].startswith("done\n\n<component_state")
    assert 'component="Form" id="f1"' in user["content"] and '"city": "Lima"' in user["content"]
    assert "Lima" not in model.requests[-1].messages[0]["content"]  # not in the system prompt
    # the model reads a change once: an unchanged state is not repeated next turn
    model.script.append("Again.")
    await rt.send("and now?")
    assert "<component_state" not in model.requests[-1].messages[-1]["content"]
    assert "<component_state" in model.requests[-1].messages[-3]["content"]
    (shown,) = rt.shown_components()
    assert shown.state == gu.Form.state(values={"city": "Lima"}, submitted=True)  # type: ignore[misc]
