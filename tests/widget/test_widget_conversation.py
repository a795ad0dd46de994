"""The conversation controls over the comm, as the browser sends them: edit
(accepted only once taken, a refused edit keeps its text), regenerate, the
branch picker's switch (its position on the wire; an index out of range names
the valid range), thumbs, the thread menu, and the transcript download.
"""

from __future__ import annotations

from typing import Any

from comm_helpers import click, customs, settle
from ipygenui.testing import ScriptedModel, last_user_text
from ipygenui.widget.chat import Chat

REPLIES: list[str] = []


def echo(request: Any) -> str:
    REPLIES.append(last_user_text(request))
    return f"Reply {len(REPLIES)} to {last_user_text(request)}"


def shown(chat: Chat) -> list[str]:
    """The texts of the messages the browser is sent (the messages trait)."""
    return [
        "".join(p.get("text", "") for p in m.message["parts"] if p["type"] == "text")
        for m in chat.messages
    ]


def wire_branch(chat: Chat, index: int) -> Any:
    return chat.messages[index].message.get("branch")


async def two_turns(**kwargs: Any) -> Chat:
    REPLIES.clear()
    chat = Chat(model=ScriptedModel(echo), **kwargs)
    await chat.send("first")
    await chat.send("second")
    await settle(chat)
    return chat


async def test_edit_from_the_browser_makes_a_branch_and_is_accepted(wire: list[Any]) -> None:
    chat = await two_turns()
    old = chat.thread.messages[2]
    click(chat, {"type": "edit", "message_id": old.id, "text": "second, edited", "ref": "v-7"})
    await settle(chat)
    assert customs(wire, "accepted")[-1] == {"type": "accepted", "request": "edit", "ref": "v-7"}
    assert shown(chat) == [
        "first",
        "Reply 1 to first",
        "second, edited",
        "Reply 3 to second, edited",
    ]
    assert wire_branch(chat, 2) == {"index": 1, "count": 2}
    assert wire_branch(chat, 0) is None  # one version: no picker

    # the picker's "previous version": the old text and its reply come back
    click(chat, {"type": "switch_branch", "message_id": chat.thread.messages[2].id, "index": 0})
    await settle(chat)
    assert shown(chat) == ["first", "Reply 1 to first", "second", "Reply 2 to second"]
    assert wire_branch(chat, 2) == {"index": 0, "count": 2}


async def test_a_refused_edit_is_answered_with_its_ref_and_changes_nothing(wire: list[Any]) -> None:
    chat = await two_turns()
    before = shown(chat)
    reply = chat.thread.messages[1].id
    for bad in (
        {"type": "edit", "message_id": "msg_nope", "text": "x", "ref": "v-1"},
        {"type": "edit", "message_id": reply, "text": "x", "ref": "v-2"},
        {"type": "edit", "message_id": reply, "text": "", "ref": "v-3"},
    ):
        click(chat, bad)
    await settle(chat)
    errors = customs(wire, "error")
    assert [e.get("ref") for e in errors] == ["v-1", "v-2", "v-3"]
    assert all(e["request"] == "edit" for e in errors)
    assert "msg_nope" in errors[0]["message"]
    assert "user message" in errors[1]["message"]
    assert customs(wire, "accepted") == []
    assert shown(chat) == before


async def test_regenerate_and_an_index_out_of_range(wire: list[Any]) -> None:
    chat = await two_turns()
    last = chat.thread.messages[3]
    click(chat, {"type": "regenerate", "message_id": last.id})
    await settle(chat)
    assert shown(chat)[2:] == ["second", "Reply 3 to second"]
    assert wire_branch(chat, 3) == {"index": 1, "count": 2}

    click(chat, {"type": "switch_branch", "message_id": chat.thread.messages[3].id, "index": 5})
    await settle(chat)
    [error] = customs(wire, "error")
    assert "0" in error["message"] and "1" in error["message"]  # names the valid range
    assert shown(chat)[3] == "Reply 3 to second"


async def test_thumbs_are_stored_on_the_reply_and_shown(wire: list[Any]) -> None:
    chat = await two_turns()
    reply = chat.thread.messages[1]
    click(chat, {"type": "feedback", "message_id": reply.id, "rating": "down"})
    await settle(chat)
    assert chat.messages[1].message["metadata"]["feedback"]["rating"] == "down"
    [row] = chat.thread.feedback()
    assert row["message_id"] == reply.id and row["rating"] == "down"

    click(chat, {"type": "feedback", "message_id": reply.id, "rating": None})
    await settle(chat)
    assert "feedback" not in chat.messages[1].message["metadata"]
    click(chat, {"type": "feedback", "message_id": reply.id, "rating": "meh"})
    await settle(chat)
    assert customs(wire, "error")[-1]["request"] == "feedback"


async def test_the_thread_menu_switches_renames_and_starts_threads(
    wire: list[Any], tmp_path: Any
) -> None:
    chat = await two_turns(persist=str(tmp_path) + "/")
    first_id = chat.thread_id
    click(chat, {"type": "new_thread"})
    await settle(chat)
    assert chat.thread_id != first_id
    assert shown(chat) == []
    assert [t["id"] for t in chat.thread_list] == [first_id, chat.thread_id]

    click(chat, {"type": "rename_thread", "thread_id": first_id, "title": "Sales questions"})
    click(chat, {"type": "switch_thread", "thread_id": first_id})
    await settle(chat)
    assert chat.thread_id == first_id
    assert shown(chat)[:2] == ["first", "Reply 1 to first"]
    assert chat.thread_list[0]["title"] == "Sales questions"

    click(chat, {"type": "switch_thread", "thread_id": "thread_nope"})
    await settle(chat)
    assert customs(wire, "error")[-1]["request"] == "switch_thread"
    assert chat.thread_id == first_id


async def test_transcript_goes_to_the_view_that_asked(wire: list[Any]) -> None:
    chat = await two_turns()
    click(chat, {"type": "transcript"})
    await settle(chat)
    [sent] = customs(wire, "transcript")
    assert sent["markdown"] == chat.to_markdown()
    assert "Reply 2 to second" in sent["markdown"]
    assert sent["filename"] == "first.md"


async def test_starters_are_synced(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(echo), starters=["Plot sales", "Explain this"])
    assert chat.starters == ["Plot sales", "Explain this"]


def test_the_header_is_told_whether_the_chat_saves_its_threads(tmp_path: Any) -> None:
    # the view shows thread controls for a saved chat even with one thread
    kinds = {
        "": None,
        "folder": str(tmp_path / "threads") + "/",
        "file": tmp_path / "one.json",
    }
    for kind, persist in kinds.items():
        chat = Chat(model=ScriptedModel(echo), persist=persist)
        assert chat.persist_kind == kind
        chat.close()


def message_lists(wire: list[Any], chat: Chat) -> list[int]:
    """How many messages each state update of the chat's ``messages`` trait showed."""
    return [
        len(data["state"]["messages"])
        for kind, comm_id, data in wire
        if kind == "comm_msg"
        and comm_id == chat.comm.comm_id
        and data.get("method") == "update"
        and "messages" in data.get("state", {})
    ]


async def test_a_reply_and_its_new_version_reach_the_browser_in_one_update(
    wire: list[Any],
) -> None:
    chat = await two_turns()
    # from the browser: the old reply never shows gone without its successor
    # (a frame in between would shrink the thread and jump it back)
    del wire[:]
    click(chat, {"type": "regenerate", "message_id": chat.thread.messages[3].id})
    await settle(chat)
    assert message_lists(wire, chat) and min(message_lists(wire, chat)) == 4
    # from code, the same
    del wire[:]
    chat.regenerate()
    await settle(chat)
    assert message_lists(wire, chat) and min(message_lists(wire, chat)) == 4
    # an edit: the user's new version and the reply's placeholder together
    del wire[:]
    click(
        chat,
        {"type": "edit", "message_id": chat.thread.messages[2].id, "text": "again", "ref": "r"},
    )
    await settle(chat)
    assert message_lists(wire, chat) and min(message_lists(wire, chat)) == 4
