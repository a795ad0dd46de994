"""Feedback on replies, several threads (kept in a folder), starters and the transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.events import FeedbackChanged, ThreadEvent, ThreadsChanged
from ipygenui.persistence import PersistenceConflictError
from ipygenui.testing import ScriptedModel
from runtime_helpers import call


@gu.tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


# --- feedback -------------------------------------------------------------------


async def test_feedback_rows_are_ready_for_a_dataframe(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["a1", "a2", "a2 again"]), persist=path)
    events: list[ThreadEvent] = []
    rt.subscribe(events.append)
    first = await rt.send("q1")
    second = await rt.send("q2")
    rt.feedback(first.id, "up")
    rt.feedback(second.id, "down", comment="  too vague  ")
    await rt.regenerate()  # a rating in a stashed version still counts

    rows = rt.thread.feedback()
    assert [(r["message_id"], r["rating"], r["comment"]) for r in rows] == [
        (first.id, "up", None),
        (second.id, "down", "too vague"),
    ]
    assert {r["model"] for r in rows} == {"scripted"}
    frame = pandas.DataFrame(rows)
    assert list(frame.columns) == ["message_id", "rating", "comment", "model", "time"]
    assert str(frame["time"].dtype).startswith("datetime64")

    changed = [e for e in events if isinstance(e, FeedbackChanged)]
    assert [(e.message_id, e.feedback and e.feedback.rating) for e in changed] == [
        (first.id, "up"),
        (second.id, "down"),
    ]
    assert first.feedback is not None and first.feedback.rating == "up"

    reloaded = gu.Runtime.load(path)
    assert [(r["message_id"], r["rating"]) for r in reloaded.thread.feedback()] == [
        (first.id, "up"),
        (second.id, "down"),
    ]


async def test_a_rating_can_be_changed_and_taken_back() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a1"]))
    reply = await rt.send("q1")
    rt.feedback(reply.id, "up")
    rt.feedback(reply.id, "down", "wrong")
    assert [(r["rating"], r["comment"]) for r in rt.thread.feedback()] == [("down", "wrong")]
    rt.feedback(reply.id, None)
    assert rt.thread.feedback() == []
    assert reply.feedback is None


async def test_bad_feedback_says_what_is_wrong_and_changes_nothing() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a1"]))
    reply = await rt.send("q1")
    before = rt.thread.model_dump()
    with pytest.raises(ValueError, match='a rating is "up", "down" or None, got 5'):
        rt.feedback(reply.id, 5)  # type: ignore[arg-type]
    with pytest.raises(gu.errors.BranchError, match="no message 'msg_nope'"):
        rt.feedback("msg_nope", "up")
    with pytest.raises(gu.errors.BranchError, match="only assistant replies are rated"):
        rt.feedback(rt.thread.messages[0].id, "up")
    with pytest.raises(TypeError, match="a comment is a str or None"):
        rt.feedback(reply.id, "up", comment=["x"])  # type: ignore[arg-type]
    assert rt.thread.model_dump() == before


# --- several threads --------------------------------------------------------------


async def test_threads_in_a_folder_are_each_saved_and_come_back(tmp_path: Path) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    model = ScriptedModel(["about cats", "about dogs", "more cats"])
    rt = gu.Runtime(model=model, persist=folder)
    assert rt.persist == folder
    first_id = rt.thread.id
    await rt.send("Tell me about cats")
    second_id = rt.new_thread()
    assert rt.thread.id == second_id and rt.thread.messages == []
    await rt.send("And dogs?")
    assert [(t.id, t.title, t.messages) for t in rt.threads] == [
        (first_id, "Tell me about cats", 2),
        (second_id, "And dogs?", 2),
    ]
    assert sorted(p.name for p in folder.glob("*.json")) == sorted(
        [f"{first_id}.json", f"{second_id}.json"]
    )

    rt.switch_thread(first_id)
    assert [m.text for m in rt.thread.messages] == ["Tell me about cats", "about cats"]
    await rt.send("more")
    rt.rename_thread(second_id, "  Dogs   only ")
    assert {t.id: t.title for t in rt.threads}[second_id] == "Dogs only"

    again = gu.Runtime(model=ScriptedModel([]), persist=folder)
    assert again.thread.id == first_id  # the thread saved last
    assert [m.text for m in again.thread.messages][-1] == "more cats"
    assert {t.id: t.title for t in again.threads} == {
        first_id: "Tell me about cats",
        second_id: "Dogs only",
    }
    again.switch_thread(second_id)
    assert [m.text for m in again.thread.messages] == ["And dogs?", "about dogs"]

    # the newer chat owns the folder's files: the older one's saves are refused
    rt.switch_thread(second_id)
    with pytest.raises(PersistenceConflictError):
        rt.save(folder / f"{second_id}.json")


async def test_a_path_ending_in_a_slash_is_a_folder(tmp_path: Path) -> None:
    rt = gu.Runtime(model=ScriptedModel(["hi"]), persist=f"{tmp_path}/new-folder/")
    await rt.send("hello")
    (saved,) = (tmp_path / "new-folder").glob("*.json")
    assert json.loads(saved.read_text())["thread"]["id"] == rt.thread.id


async def test_switching_threads_cancels_a_run_and_keeps_a_waiting_reply() -> None:
    @gu.tool(requires_approval=True)
    def deploy(env: str) -> str:
        """Deploy."""
        return f"deployed to {env}"

    rt = gu.Runtime(
        model=ScriptedModel([call("deploy", {"env": "prod"}), "Deployed."]), tools=[deploy]
    )
    waiting = await rt.send("deploy")
    first = rt.thread.id
    rt.new_thread()
    assert rt.phase == "idle"
    with pytest.raises(gu.errors.DecisionError):
        rt.approve(waiting.tool_calls[0].tool_call_id)  # not in the thread shown
    rt.switch_thread(first)
    assert rt.phase == "waiting"
    run = rt.approve(waiting.tool_calls[0].tool_call_id)
    assert run is not None
    assert (await run).text == "Deployed."


async def test_views_hear_the_thread_list() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a"]))
    events: list[ThreadEvent] = []
    rt.subscribe(events.append)
    await rt.send("Plan a trip to Lisbon in May")
    lists = [e for e in events if isinstance(e, ThreadsChanged)]
    assert lists and lists[-1].threads[0].title == "Plan a trip to Lisbon in May"
    new = rt.new_thread()
    last = [e for e in events if isinstance(e, ThreadsChanged)][-1]
    assert last.active == new and [t.title for t in last.threads][-1] == "New chat"


def test_a_long_first_message_makes_a_short_one_line_title() -> None:
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    rt.run_sync("word " * 40 + "\nsecond line")
    (summary,) = rt.threads
    assert len(summary.title) == 60 and summary.title.endswith("…")
    assert "\n" not in summary.title


async def test_bad_thread_requests_say_what_is_wrong(tmp_path: Path) -> None:
    rt = gu.Runtime(model=ScriptedModel([]), persist=tmp_path / "one.json")
    with pytest.raises(ValueError, match="give persist= a folder to keep several threads"):
        rt.new_thread()
    with pytest.raises(KeyError, match="no thread 'thread_nope' in this chat"):
        rt.switch_thread("thread_nope")
    with pytest.raises(KeyError, match="no thread"):
        rt.rename_thread("thread_nope", "x")
    with pytest.raises(TypeError, match="a title is a str or None"):
        rt.rename_thread(rt.thread.id, 5)  # type: ignore[arg-type]
    assert len(rt.threads) == 1


# --- starters ---------------------------------------------------------------------


def test_starters_are_given_or_the_models_own() -> None:
    assert gu.Runtime(model=ScriptedModel([]), starters=["Hi", "Help"]).starters == [
        "Hi",
        "Help",
    ]
    assert gu.Runtime(model=ScriptedModel([])).starters == []
    demo = gu.Runtime(model=gu.DemoModel())
    assert demo.starters and all(isinstance(s, str) and s for s in demo.starters)
    assert gu.Runtime(model=gu.DemoModel(), starters=[]).starters == []


@pytest.mark.parametrize(
    ("starters", "error"),
    [
        ("Hi", "takes a list"),
        ([""], "item 0 must be a non-empty str"),
        (["ok", 3], "item 1 must be a non-empty str"),
    ],
)
def test_bad_starters_are_refused(starters: Any, error: str) -> None:
    with pytest.raises(TypeError, match=error):
        gu.Runtime(model=ScriptedModel([]), starters=starters)


@gu.tool
def get_weather(city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "temperature_c": 21}


CHATS = {
    "nothing": {},
    "weather": {"tools": [get_weather]},
    "weather and chart": {"tools": [get_weather], "components": [gu.Chart]},
    "table and metric": {"components": [gu.Table, gu.Metric]},
}


@pytest.mark.parametrize("kind", list(CHATS))
async def test_demo_starters_fit_the_chat_and_each_gets_a_real_answer(kind: str) -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0), **CHATS[kind])
    offered = rt.starters
    assert 2 <= len(offered) <= 3
    assert any("weather" in s for s in offered) == ("get_weather" in rt.tools)
    assert any("chart" in s for s in offered) == ("show_component_Chart" in rt.tools)
    for starter in offered:
        rt.new_thread()
        reply = await rt.send(starter)
        called = [p.tool_name for m in rt.thread.messages for p in m.tool_calls]
        answer = " ".join(m.text for m in rt.thread.messages[1:])
        assert called or reply.text, starter
        assert "but this chat has none" not in answer and "none is registered" not in answer


# --- transcript ---------------------------------------------------------------------


async def test_the_transcript_is_the_active_branch_with_tool_calls_summarized() -> None:
    rt = gu.Runtime(
        model=ScriptedModel(
            [
                call("lookup", {"q": "x" * 300}),
                "Here is **what** I found.",
                "Other answer.",
                "Answer to the edit.",
            ]
        ),
        tools=[lookup],
    )
    await rt.send("Find x")
    await rt.send("Second question")
    rt.feedback(rt.thread.messages[1].id, "up", "useful")
    await rt.edit(rt.thread.messages[2].id, "Edited question")
    text = rt.to_markdown()
    assert text.startswith("# Find x\n")
    assert "## User\n\nFind x" in text
    assert "Here is **what** I found." in text
    assert "> 🔧 `lookup(" in text and "→ `found xxx" in text
    assert len(max(text.splitlines(), key=len)) < 300  # the long argument is cut
    assert "*Feedback: 👍 useful*" in text
    assert text.endswith("## User\n\nEdited question\n\n## Assistant\n\nAnswer to the edit.\n")
    assert "Second question" not in text and "Other answer." not in text


async def test_backticks_in_a_tool_call_keep_the_transcript_line_whole() -> None:
    rt = gu.Runtime(model=ScriptedModel([call("lookup", {"q": "a `b` c"}), "done"]), tools=[lookup])
    await rt.send("go")
    line = next(x for x in rt.to_markdown().splitlines() if x.startswith("> 🔧"))
    assert line == '> 🔧 ``lookup({"q": "a `b` c"})`` → ``found a `b` c``'


async def test_a_thread_id_that_is_no_plain_name_is_saved_inside_the_folder(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    odd = gu.Thread(id="../../escaped")
    rt = gu.Runtime(model=ScriptedModel(["a"]), persist=folder, thread=odd)
    await rt.send("q")
    assert not list(tmp_path.glob("*.json")) and not (tmp_path.parent / "escaped.json").exists()
    (saved,) = folder.glob("*.json")
    assert json.loads(saved.read_text())["thread"]["id"] == "../../escaped"
    again = gu.Runtime(model=ScriptedModel([]), persist=folder)
    assert again.thread.id == "../../escaped"


def test_an_unknown_thread_error_reads_plainly() -> None:
    rt = gu.Runtime(model=ScriptedModel([]))
    with pytest.raises(KeyError) as info:
        rt.switch_thread("thread_nope")
    known = f"'{rt.thread.id}'"
    assert str(info.value) == f"no thread 'thread_nope' in this chat (its threads: {known})"
