"""Who decided a gated call is recorded on its approval (the card says it),
kept in the thread file; a file saved before this loads with no source.
An AG-UI client's resume decides as the client."""

from __future__ import annotations

import asyncio
import json

from ag_ui.core import UserMessage

import ipygenui as gu
from agui_helpers import parse_sse, post, run_input
from comm_helpers import click, settle
from ipygenui.messages import Approval
from ipygenui.persistence import load_thread
from ipygenui.testing import ScriptedModel
from ipygenui.widget.chat import Chat
from runtime_helpers import call


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


def _runtime(script: list) -> gu.Runtime:
    return gu.Runtime(model=ScriptedModel(script), tools=[drop_table])


async def test_an_approval_from_code_says_so() -> None:
    rt = _runtime([call("drop_table", {"name": "a"}, id="d"), "Done."])
    await rt.send("drop")
    final = await rt.approve("d")  # type: ignore[misc]
    approval = final.tool_call("d").approval  # type: ignore[union-attr]
    assert approval == Approval(status="approved", decided_by="code", edited=False)


async def test_an_edited_approval_and_a_rejection_record_their_source() -> None:
    rt = _runtime(
        [
            [
                call("drop_table", {"name": "a"}, id="d1"),
                call("drop_table", {"name": "b"}, id="d2"),
            ],
            "ok",
        ]
    )
    message = await rt.send("drop")
    rt.approve("d1", args={"name": "staging"}, by="user")
    await rt.reject("d2", reason="not b", by="user")  # type: ignore[misc]
    first, second = message.tool_call("d1"), message.tool_call("d2")
    assert first is not None and first.approval is not None
    assert (first.approval.decided_by, first.approval.edited) == ("user", True)
    assert second is not None and second.approval is not None
    assert (second.approval.decided_by, second.approval.reason) == ("user", "not b")


async def test_unchanged_arguments_sent_back_are_not_an_edit() -> None:
    rt = _runtime([call("drop_table", {"name": "a"}, id="d"), "Done."])
    await rt.send("drop")
    final = await rt.approve("d", args={"name": "a"})  # type: ignore[misc]
    assert final.tool_call("d").approval.edited is False  # type: ignore[union-attr]


async def test_a_call_an_always_allow_ran_names_the_grant() -> None:
    rt = _runtime(
        [
            call("drop_table", {"name": "a"}, id="d1"),
            "one",
            call("drop_table", {"name": "b"}, id="d2"),
            "two",
        ]
    )
    await rt.send("1")
    await rt.approve("d1", always=True)  # type: ignore[misc]
    second = await rt.send("2")
    assert second.tool_call("d2").approval.decided_by == "grant"  # type: ignore[union-attr]


async def test_the_chat_s_buttons_decide_as_the_user_and_the_source_is_saved(tmp_path) -> None:
    path = tmp_path / "t.json"
    chat = Chat(
        model=ScriptedModel([call("drop_table", {"name": "a"}, id="d"), "Done."]),
        tools=[drop_table],
        persist=path,
    )
    await chat.send("drop")
    await settle(chat)
    click(chat, {"type": "approve", "tool_call_id": "d"})
    await settle(chat)
    saved = load_thread(path)
    found = saved.find_tool_call("d")
    assert found is not None and found[1].approval is not None
    assert found[1].approval.decided_by == "user"
    assert chat.thread.find_tool_call("d")[1].approval.decided_by == "user"  # type: ignore[index, union-attr]


async def test_an_ag_ui_clients_resume_decides_as_the_client_and_the_file_keeps_it(
    tmp_path,
) -> None:
    path = tmp_path / "t.json"
    script = [
        [call("drop_table", {"name": "a"}, id="d1"), call("drop_table", {"name": "b"}, id="d2")]
    ]
    rt = gu.Runtime(model=ScriptedModel([*script, "Done."]), tools=[drop_table], persist=path)
    app = rt.ag_ui_app()
    await post(app, run_input(UserMessage(id="u1", content="drop")))
    body = run_input()
    body["resume"] = [
        {"interruptId": "d1", "status": "resolved", "payload": {"approved": True}},
        {"interruptId": "d2", "status": "resolved", "payload": {"approved": False, "reason": "no"}},
    ]
    events = parse_sse((await post(app, body)).text)
    assert events[-1].outcome.type == "success"
    found = load_thread(path).messages[-1]
    first, second = found.tool_call("d1"), found.tool_call("d2")
    assert first is not None and first.approval is not None
    assert second is not None and second.approval is not None
    assert first.approval == Approval(status="approved", decided_by="client", edited=False)
    assert (second.approval.decided_by, second.approval.reason) == ("client", "no")


def test_an_old_file_s_approval_without_a_source_loads() -> None:
    old = {"status": "approved", "reason": None, "note": None}
    approval = Approval.model_validate_json(json.dumps(old))
    assert approval.decided_by is None and approval.edited is False


async def test_the_chat_lists_its_grants_and_a_revoke_takes_one_back() -> None:
    script = [
        call("drop_table", {"name": "a"}, id="d1"),
        "one",
        call("drop_table", {"name": "b"}, id="d2"),
        "two",
    ]
    chat = Chat(model=ScriptedModel(script), tools=[drop_table])
    await chat.send("1")
    await settle(chat)
    assert chat.always_allowed == []
    click(chat, {"type": "always", "tool_call_id": "d1"})
    await settle(chat)
    assert chat.always_allowed == ["drop_table"]
    click(chat, {"type": "revoke_always", "tool_name": "drop_table"})
    await asyncio.sleep(0)
    assert chat.always_allowed == [] and chat.runtime.always_allowed == frozenset()
    second = await chat.send("2")
    assert second.status.type == "requires-action"
