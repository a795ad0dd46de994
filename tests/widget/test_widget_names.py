"""Chat's names: none hides one of the widget's, and the agent's state and
the "always allowed" grants have one name each.

Faults tried:
- a Chat attribute that replaces an ipywidgets method (``set_state`` once did:
  every browser ``update`` then landed in the agent's state and no trait
  changed), added without a word in the list below;
- a browser-side trait write (``jslink``, a view's ``model.set``) lost, or
  written into the agent's state;
- ``set_agent_state`` not replacing the state or not telling the listeners;
- an old name (``state``, ``set_state``, ``StateChanged``, ``always_approved``,
  ``restore_approvals=``) gone, silent, or pointing the warning elsewhere
  than the caller's line;
- ``chat.always_allowed`` (the trait the view reads) lagging behind
  ``chat.runtime.always_allowed`` after a grant or a revoke from code.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import anywidget
import pytest

import ipygenui as gu
from comm_helpers import Wire, browser_update, settle
from ipygenui.events import AgentStateChanged, AlwaysAllowedChanged, ThreadEvent
from ipygenui.testing import ScriptedModel
from ipygenui.widget.chat import Chat
from runtime_helpers import call

COMPATIBLE_OVERRIDES = {
    # takes ipywidgets' own keywords too (layout=), and calls super().__init__
    "__init__",
    # says what the chat shows; ipywidgets' repr is the generic one
    "__repr__",
    # ipywidgets' send(content, buffers) unchanged for a dict; text starts a run
    # (the DESIGN contract ``run = chat.send("hi")``): Chat's docstring says so
    "send",
    # the widget's close, which also closes the runtime (a run is cancelled)
    "close",
}
"""Every attribute Chat defines that anywidget's MRO has too, each a
compatible override: ipywidgets' callers get what they expect."""


class _Plain(anywidget.AnyWidget):
    """What every widget class gets in its own namespace (Python's and traitlets'
    bookkeeping: ``__doc__``, ``_traits``, ...): not a shadow."""


def widget_names() -> set[str]:
    return {name for cls in anywidget.AnyWidget.__mro__ for name in vars(cls)}


def test_no_chat_attribute_shadows_a_widget_one_unless_listed() -> None:
    shadows = (set(vars(Chat)) & widget_names()) - set(vars(_Plain))
    assert shadows == COMPATIBLE_OVERRIDES


def test_the_agent_s_state_names_are_no_widget_names() -> None:
    assert {"agent_state", "set_agent_state", "state", "always_allowed"}.isdisjoint(widget_names())
    assert Chat.set_state is anywidget.AnyWidget.set_state  # ipywidgets' own


def test_a_browser_update_changes_the_trait_not_the_agent_state(wire: Wire) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    chat.set_agent_state({"kept": True})
    browser_update(chat, {"height": "30rem"})
    assert chat.height == "30rem"
    assert chat.agent_state == {"kept": True} == chat.runtime.agent_state
    chat.close()


def test_set_agent_state_replaces_it_and_tells_the_listeners(wire: Wire) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    heard: list[ThreadEvent] = []
    chat.runtime.subscribe(heard.append)
    traits = chat.get_state()
    chat.set_agent_state({"items": ["tea"]})
    assert chat.agent_state == {"items": ["tea"]} == chat.runtime.agent_state
    assert heard == [AgentStateChanged({"items": ["tea"]})]
    assert chat.get_state() == traits  # the widget's traits are another thing
    chat.close()


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


async def test_the_always_allowed_trait_follows_a_grant_from_code(wire: Wire) -> None:
    calls = [call("drop_table", {"name": "a"}, id="d1"), call("drop_table", {"name": "b"}, id="d2")]
    chat = Chat(model=ScriptedModel([calls, "done"]), tools=[drop_table])
    await chat.send("go")
    await settle(chat)
    assert chat.runtime.approve("d1", always=True) is None  # d2 still waits: no run starts
    assert chat.runtime.always_allowed == {"drop_table"}
    assert chat.always_allowed == ["drop_table"]  # what the view reads, at once
    heard: list[ThreadEvent] = []
    chat.runtime.subscribe(heard.append)
    chat.runtime.revoke_always("drop_table")  # the runtime's own, not the chat's
    assert chat.runtime.always_allowed == frozenset() and chat.always_allowed == []
    assert heard == [AlwaysAllowedChanged(())]
    chat.runtime.revoke_always("drop_table")  # nothing changes: nothing heard
    assert heard == [AlwaysAllowedChanged(())]
    chat.close()


def deprecated(match: str) -> Any:
    """Expect one DeprecationWarning naming the new name, pointing at this file."""
    return pytest.warns(DeprecationWarning, match=match)


def assert_points_here(caught: Any) -> None:
    assert {Path(w.filename).name for w in caught} == {Path(__file__).name}


def test_the_old_agent_state_names_warn_and_still_work(wire: Wire) -> None:
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    heard: list[ThreadEvent] = []
    rt.subscribe(heard.append)
    with deprecated("Runtime.set_agent_state") as caught:
        rt.set_state({"a": 1})
    assert_points_here(caught)
    assert rt.agent_state == {"a": 1} and heard == [AgentStateChanged({"a": 1})]
    with deprecated("Runtime.agent_state") as caught:
        assert rt.state == {"a": 1}
    assert_points_here(caught)
    with deprecated("Runtime.agent_state"):
        rt.state = {"b": 2}
    assert rt.agent_state == {"b": 2}
    chat = Chat(runtime=rt)
    with deprecated("Chat.agent_state") as caught:
        assert chat.state == {"b": 2}
    assert_points_here(caught)
    chat.close()


def test_the_old_event_name_warns_and_is_the_new_class() -> None:
    import ipygenui.events as events

    with deprecated("gu.StateChanged is renamed ipygenui.events.AgentStateChanged") as caught:
        old = gu.StateChanged  # type: ignore[attr-defined]
    assert_points_here(caught)
    assert old is AgentStateChanged
    with deprecated("AgentStateChanged") as caught:
        assert events.StateChanged is AgentStateChanged
    assert_points_here(caught)
    assert "StateChanged" not in gu.__all__ and "AgentStateChanged" in events.__all__


def test_the_old_grant_names_warn_and_still_work(tmp_path: Path, wire: Wire) -> None:
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=path)
    rt.thread.metadata["always_approved"] = ["drop_table"]  # the file's key, unchanged
    rt.save(path)
    with deprecated("Runtime.always_allowed") as caught:
        assert rt.always_approved == {"drop_table"}
    assert_points_here(caught)
    rt.close()
    opened = [
        lambda: gu.Runtime.load(path, tools=[drop_table], restore_approvals=True),
        lambda: gu.Chat.load(path, tools=[drop_table], restore_approvals=True).runtime,
        lambda: gu.Runtime(tools=[drop_table], persist=path, restore_approvals=True),
        lambda: gu.Chat(tools=[drop_table], persist=path, restore_approvals=True).runtime,
    ]
    for open_it in opened:
        with deprecated("restore_always_allowed") as caught:
            restored = open_it()
        assert_points_here(caught)
        assert restored.always_allowed == {"drop_table"}
        restored.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gu.Runtime.load(path, restore_always_allowed=True).always_allowed == {"drop_table"}
        assert gu.Runtime.load(path).always_allowed == frozenset()
    with pytest.raises(TypeError, match="restore_always_allowed= only"), deprecated("restore_"):
        gu.Runtime.load(path, restore_always_allowed=True, restore_approvals=True)


async def test_the_always_allowed_trait_is_the_shown_thread_s(wire: Wire) -> None:
    chat = Chat(
        model=ScriptedModel([call("drop_table", {"name": "a"}, id="d1"), "done"]),
        tools=[drop_table],
    )
    first = chat.thread.id
    await chat.send("go")
    await settle(chat)
    await chat.approve("d1", always=True)  # type: ignore[misc]
    await settle(chat)
    assert chat.always_allowed == ["drop_table"]
    chat.new_thread()
    assert chat.runtime.always_allowed == frozenset() and chat.always_allowed == []
    chat.switch_thread(first)
    assert chat.always_allowed == ["drop_table"]
    chat.close()


def test_a_browser_update_of_a_kernel_trait_changes_nothing_and_is_not_echoed(wire: Wire) -> None:
    chat = Chat(model=ScriptedModel(["ok"]))
    before = chat.get_state()
    sent = len(wire)
    # what a buggy or hostile view could write: nothing of it may land or raise
    browser_update(
        chat,
        {
            "messages": ["IPY_MODEL_nope"],
            "phase": "running",
            "always_allowed": ["drop_table"],
            "mcp_apps": {"x": {"html": "<script>alert(1)</script>"}},
            "limits": {"max_upload_bytes": 10**12},
        },
    )
    assert chat.get_state() == before
    assert chat.runtime.always_allowed == frozenset()
    echoes = [d for t, _, d in wire[sent:] if d.get("method") == "echo_update"]
    assert echoes == []
    chat.close()
