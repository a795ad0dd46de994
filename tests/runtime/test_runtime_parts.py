"""The runtime's parts, attached from outside through its public events.

Faults tried: AG-UI's emitter, kept outside the runtime, still naming the
thread shown before ``new_thread`` / ``switch_thread`` (the runtime no longer
tells it: it follows ``ActivePathChanged``); a runtime that keeps AG-UI state
of its own.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import EventType

import ipygenui as gu
from ipygenui.agui import AGUIEmitter
from ipygenui.testing import ScriptedModel


def _run_thread_ids(events: list[Any]) -> list[str]:
    return [e.thread_id for e in events if e.type == EventType.RUN_STARTED]


async def test_agui_events_name_the_thread_shown_after_new_and_switch() -> None:
    rt = gu.Runtime(model=ScriptedModel(["One.", "Two.", "Three."]))
    first = rt.thread.id
    events: list[Any] = []
    rt.subscribe_agui(events.append)
    await rt.send("hi")
    second = rt.new_thread()
    await rt.send("again")
    rt.switch_thread(first)
    await rt.send("back")
    assert _run_thread_ids(events) == [first, second, first]


def test_the_runtime_keeps_no_agui_state() -> None:
    rt = gu.Runtime(model=ScriptedModel(["One."]))
    rt.subscribe_agui(lambda event: None)
    # the emitter lives in agui/runtime_link.py, attached as a thread listener
    assert not any(isinstance(value, AGUIEmitter) for value in vars(rt).values())
