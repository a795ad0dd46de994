"""The browser can take an "always allow" grant back, never give one.

A grant comes only with the user's approval of a waiting call (``always``);
the revoke message names a tool and only removes it. Each forged message
here gets an error the view shows and leaves the thread's grants as they were.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ipygenui as gu
from comm_helpers import Wire, click, customs, settle
from ipygenui.testing import ScriptedModel
from ipygenui.widget.chat import Chat
from runtime_helpers import call


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


@gu.tool(requires_approval=True)
def wipe(path: str) -> str:
    """Wipe a folder."""
    return f"wiped {path}"


@pytest.mark.parametrize(
    "content",
    [
        {"type": "revoke_always", "tool_name": "wipe", "always": True},
        {"type": "revoke_always", "tool_name": "wipe", "grant": True},
        {"type": "revoke_always", "tool_name": "wipe"},  # never granted: nothing to revoke
        {"type": "revoke_always", "tool_name": ""},
        {"type": "revoke_always", "tool_name": ["wipe"]},
        {"type": "grant", "tool_name": "wipe"},
        {"type": "always_allow", "tool_name": "wipe"},
        {"type": "always", "tool_name": "wipe"},
        {"type": "always", "tool_call_id": "d1"},  # decided already: no second grant from it
    ],
)
async def test_a_forged_grant_changes_nothing_and_gets_an_error(wire: Wire, content: Any) -> None:
    chat = Chat(
        model=ScriptedModel([call("drop_table", {"name": "a"}, id="d1"), "one"]),
        tools=[drop_table, wipe],
    )
    await chat.send("1")
    await settle(chat)
    await chat.approve("d1")  # type: ignore[misc]
    await settle(chat)
    before = chat.thread.model_dump_json()
    wire.clear()
    click(chat, content)
    await asyncio.sleep(0)
    [error] = customs(wire, "error")
    assert error["message"]
    assert chat.runtime.always_allowed == frozenset() and chat.always_allowed == []
    assert chat.thread.model_dump_json() == before


async def test_a_revoke_removes_only_the_tool_it_names(wire: Wire) -> None:
    script = [
        [call("drop_table", {"name": "a"}, id="d1"), call("wipe", {"path": "x"}, id="w1")],
        "one",
    ]
    chat = Chat(model=ScriptedModel(script), tools=[drop_table, wipe])
    await chat.send("1")
    await settle(chat)
    chat.approve("d1", always=True)
    await chat.approve("w1", always=True)  # type: ignore[misc]
    await settle(chat)
    assert chat.always_allowed == ["drop_table", "wipe"]
    click(chat, {"type": "revoke_always", "tool_name": "wipe"})
    await asyncio.sleep(0)
    assert customs(wire, "error") == []
    assert chat.runtime.always_allowed == {"drop_table"} and chat.always_allowed == ["drop_table"]
