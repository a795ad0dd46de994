"""Faults tried with A2UI surfaces a model (or a thread file) sends.

Tried here:
- an ``updateDataModel`` path 5,000 levels deep, and a value 500 levels
  deep: the call is refused at the depth limit with an error the model reads;
  ``surfaces()`` keeps working and the next message is answered;
- such a call written into a thread file as if it had succeeded: skipped when
  the surfaces are built, never a RecursionError;
- 10,000 components in one surface, 6,000 in each of two surfaces of one
  thread, a data model over its size limit: refused naming the limit;
- each call's messages are checked once: ``surfaces()`` and a button press
  do not check them again.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from a2ui_helpers import BASIC, form_messages
from ipygenui.a2ui import _thread, _validate
from ipygenui.a2ui._validate import (
    MAX_DATA_CHARS,
    MAX_DATA_DEPTH,
    MAX_SURFACE_COMPONENTS,
    MAX_THREAD_COMPONENTS,
)
from ipygenui.testing import ScriptedCall, ScriptedModel


def surface_start(surface: str) -> dict[str, Any]:
    return {"version": "v0.9", "createSurface": {"surfaceId": surface, "catalogId": BASIC}}


def texts(surface: str, count: int) -> list[dict[str, Any]]:
    """A surface of ``count`` Text components under one Column."""
    components: list[dict[str, Any]] = [
        {"id": "root", "component": "Column", "children": [f"t{i}" for i in range(count - 1)]}
    ]
    components += [{"id": f"t{i}", "component": "Text", "text": f"{i}"} for i in range(count - 1)]
    update = {"surfaceId": surface, "components": components}
    return [surface_start(surface), {"version": "v0.9", "updateComponents": update}]


def data_update(surface: str, path: str, value: Any) -> dict[str, Any]:
    update = {"surfaceId": surface, "path": path, "value": value}
    return {"version": "v0.9", "updateDataModel": update}


async def shown(*calls: list[dict[str, Any]]) -> gu.Runtime:
    """A runtime whose model shows each list of messages in one call, then says "ok"."""
    replies: list[Any] = [
        ScriptedCall("show_a2ui", {"messages": m}, id=f"a{i}") for i, m in enumerate(calls)
    ]
    rt = gu.Runtime(model=ScriptedModel([*replies, "ok", "still here"]), components=[gu.A2UI])
    await asyncio.wait_for(rt.send("show"), 60)
    return rt


def results(rt: gu.Runtime) -> list[tuple[bool, str]]:
    return [(p.is_error, str(p.result)) for m in rt.thread.messages for p in m.tool_calls]


# --- 7: deep paths ------------------------------------------------------------------


@pytest.mark.parametrize("deep", ["path", "value"])
async def test_a_data_model_too_deep_is_refused_and_the_chat_stays_usable(
    deep: str,
) -> None:
    path = "/" + "/".join(["a"] * 5000) if deep == "path" else "/a"
    value: Any = 1
    if deep == "value":  # as deep as the scripted model can still write as JSON
        for _ in range(500):
            value = {"a": value}
    rt = await shown(form_messages(), [data_update("s1", path, value)])
    (first, second) = results(rt)
    assert not first[0]
    assert (
        second[0]
        and (
            f"refused: the data model would nest more than {MAX_DATA_DEPTH} levels deep "
            f"(limit {MAX_DATA_DEPTH})"
        )
        in second[1]
    )
    [surface] = rt.surfaces()
    assert surface["data"] == {"name": "Ada"}
    await asyncio.wait_for(rt.send("and now?"), 30)
    assert rt.thread.messages[-1].text == "still here"
    assert len(rt.surfaces()) == 1


async def test_a_deep_path_written_into_a_thread_file_is_skipped(tmp_path: Path) -> None:
    rt = await shown(form_messages())
    path = tmp_path / "t.json"
    rt.save(path)
    data = json.loads(path.read_text())
    part = data["thread"]["messages"][1]["parts"][0]
    deep = "/" + "/".join(["a"] * 5000)
    part["args"]["messages"].append(data_update("s1", deep, 1))
    path.write_text(json.dumps(data))
    loaded = gu.Runtime.load(path, model=ScriptedModel(["fine"]), components=[gu.A2UI])
    assert loaded.surfaces() == []  # the call no longer checks: not drawn
    await asyncio.wait_for(loaded.send("go on"), 30)
    assert loaded.thread.messages[-1].text == "fine"


# --- 2: big surfaces ----------------------------------------------------------------


async def test_10000_components_in_one_surface_are_refused_naming_the_limit() -> None:
    rt = await shown(texts("big", 10_000))
    ((error, result),) = results(rt)
    assert error
    assert (
        f"refused: more than {MAX_SURFACE_COMPONENTS:,} components in one surface "
        f"(limit {MAX_SURFACE_COMPONENTS:,})"
    ) in result
    assert rt.surfaces() == []


async def test_the_components_of_a_thread_are_bounded_across_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert MAX_SURFACE_COMPONENTS < MAX_THREAD_COMPONENTS
    monkeypatch.setattr(_validate, "MAX_SURFACE_COMPONENTS", 20)  # small: a quick test
    monkeypatch.setattr(_validate, "MAX_THREAD_COMPONENTS", 50)
    calls = [texts(f"s{i}", 20) for i in range(3)]
    rt = await shown(*calls)
    outcomes = results(rt)
    assert [e for e, _ in outcomes[:-1]] == [False] * (len(calls) - 1)
    assert (
        outcomes[-1][0]
        and ("refused: more than 50 components in this thread's surfaces (limit 50)")
        in outcomes[-1][1]
    )
    assert len(rt.surfaces()) == len(calls) - 1


async def test_a_data_model_over_its_size_is_refused() -> None:
    rt = await shown(form_messages(), [data_update("s1", "/big", "x" * (MAX_DATA_CHARS + 1))])
    assert results(rt)[1][0] and (f"characters (limit {MAX_DATA_CHARS:,})" in results(rt)[1][1])
    assert rt.surfaces()[0]["data"] == {"name": "Ada"}


async def test_each_calls_messages_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = await shown(form_messages(), [data_update("s1", "/name", "Lin")])
    checked: list[int] = []
    real = _validate.check_message

    def counting(message: Any) -> str:
        checked.append(1)
        return real(message)

    monkeypatch.setattr(_validate, "check_message", counting)
    assert rt.surfaces()[0]["data"] == {"name": "Lin"}
    assert len(checked) <= 1  # the last call's one message, the first time it is drawn
    checked.clear()
    for _ in range(3):
        assert rt.surfaces()[0]["data"] == {"name": "Lin"}
        _thread.action_event(rt.thread, "a0", "s1", "go")
    assert checked == []
