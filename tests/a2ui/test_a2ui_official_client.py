"""Our AG-UI output's A2UI activity read by the official AG-UI client
(``@ag-ui/client`` 1.0.0, its ``verifyEvents`` in the pipeline): the event
passes its checks, becomes an ``activity`` message in the client's history,
and a second run with that history sent back still works."""

from __future__ import annotations

import pytest

import ipygenui as gu
from a2ui_helpers import form_messages
from agui_agents import serve
from agui_peer import drive, official_client_available
from ipygenui.testing import ScriptedCall, ScriptedModel


@pytest.fixture(autouse=True)
def _peers() -> None:
    official_client_available()


async def test_the_official_client_takes_our_a2ui_activity_and_sends_it_back() -> None:
    script = [ScriptedCall("show_a2ui", {"messages": form_messages()}, id="a1"), "Shown.", "Again."]
    rt = gu.Runtime(model=ScriptedModel(script), components=[gu.A2UI])
    app = rt.ag_ui_app()
    turns = [{"add": [{"role": "user", "content": t}]} for t in ("show a form", "thanks")]
    with serve(app) as url:
        first, second = await drive(url, app.token, turns)
    assert "error" not in first, first["error"]
    [event] = [e for e in first["events"] if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert event["activityType"] == "a2ui-surface"
    assert event["content"] == {"a2ui_operations": form_messages()}
    [activity] = [m for m in first["messages"] if m["role"] == "activity"]
    assert activity["activityType"] == "a2ui-surface"
    assert activity["content"]["a2ui_operations"][0]["createSurface"]["surfaceId"] == "s1"
    assert "error" not in second, second["error"]
    assert rt.thread.messages[-1].text == "Again."


async def test_a_later_call_changing_a_surface_is_an_activity_delta_the_client_applies() -> None:
    """A later run's call that fills the first call's surface and draws one of its
    own: the official client patches the first activity (its RFC 6902 delta, from
    a run that never sent that activity's snapshot) and keeps the new surface as
    an activity of its own; the first surface's messages are not sent twice."""
    fill = {"version": "v0.9", "updateDataModel": {"surfaceId": "s1", "value": {"name": "Ada"}}}
    later = [fill, *form_messages("s2")]
    script = [
        ScriptedCall("show_a2ui", {"messages": form_messages()}, id="a1"),
        "Shown.",
        ScriptedCall("show_a2ui", {"messages": later}, id="a2"),
        "Filled.",
    ]
    rt = gu.Runtime(model=ScriptedModel(script), components=[gu.A2UI])
    app = rt.ag_ui_app()
    turns = [{"add": [{"role": "user", "content": t}]} for t in ("show a form", "fill it")]
    with serve(app) as url:
        _, second = await drive(url, app.token, turns)
    assert "error" not in second, second["error"]
    [delta] = [e for e in second["events"] if e["type"] == "ACTIVITY_DELTA"]
    assert delta["messageId"] == "a2ui-a1" and delta["activityType"] == "a2ui-surface"
    assert delta["patch"] == [{"op": "add", "path": "/a2ui_operations/-", "value": fill}]
    [snapshot] = [e for e in second["events"] if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert snapshot["messageId"] == "a2ui-a2"
    activities = {m["id"]: m["content"] for m in second["messages"] if m["role"] == "activity"}
    assert activities == {
        "a2ui-a1": {"a2ui_operations": [*form_messages(), fill]},  # what the client applied
        "a2ui-a2": {"a2ui_operations": form_messages("s2")},
    }
    # the notebook redraws the first surface with the same messages
    [props] = gu.a2ui.redrawn_props(rt.thread).values()
    assert props["messages"] == activities["a2ui-a1"]["a2ui_operations"]
