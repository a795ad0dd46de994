"""Edit and branch, regenerate, switch_branch: the model reads the active branch only.

The requests are read where the model received them: the local
OpenAI-compatible server (``tests/openai_server.py``) through the real
``openai`` client.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.events import ActivePathChanged, MessageAdded, ThreadEvent
from ipygenui.messages import Incomplete
from ipygenui.models.history import check_openai_history
from ipygenui.testing import ScriptedModel
from openai_server import OpenAIServer, Reply, ToolCall
from runtime_helpers import BlockingModel, TextDelta, call


def conversation(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The request's messages after the system prompt, as (role, text or tool calls)."""
    out = []
    for entry in request["messages"]:
        if entry["role"] == "system":
            continue
        if entry.get("tool_calls"):
            names = ",".join(c["function"]["name"] for c in entry["tool_calls"])
            out.append((entry["role"], f"calls {names}"))
        else:
            out.append((entry["role"], entry.get("content") or ""))
    return out


def texts(rt: gu.Runtime) -> list[str]:
    return [m.text for m in rt.thread.messages]


@gu.tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


@gu.tool(requires_approval=True)
def deploy(env: str) -> str:
    """Deploy."""
    return f"deployed to {env}"


async def test_edit_branches_and_the_model_reads_only_the_active_branch(
    openai_server: OpenAIServer, make_model: Any
) -> None:
    openai_server.script(
        Reply.text_reply("a1"),
        Reply.calls(ToolCall("lookup", {"q": "x"})),
        Reply.text_reply("a2 after the lookup"),
        Reply.text_reply("a2 for the edit"),
        Reply.text_reply("a3"),
    )
    rt = gu.Runtime(model=make_model(), tools=[lookup])
    await rt.send("q1")
    await rt.send("q2")
    q2 = rt.thread.messages[2]
    assert texts(rt) == ["q1", "a1", "q2", "a2 after the lookup"]

    await rt.edit(q2.id, "q2 edited")
    assert texts(rt) == ["q1", "a1", "q2 edited", "a2 for the edit"]
    edited = rt.thread.messages[2]
    assert edited.id != q2.id
    assert conversation(openai_server.requests[3]) == [
        ("user", "q1"),
        ("assistant", "a1"),
        ("user", "q2 edited"),
    ]
    assert [m.text for m in rt.thread.branches(edited.id)] == ["q2", "q2 edited"]
    position = rt.thread.branch_position(edited.id)
    assert (position.index, position.count) == (1, 2)

    rt.switch_branch(edited.id, 0)  # back to the first version, tool call and all
    assert texts(rt) == ["q1", "a1", "q2", "a2 after the lookup"]
    assert rt.thread.messages[2] is q2

    await rt.send("q3")
    sent = conversation(openai_server.requests[4])
    assert sent == [
        ("user", "q1"),
        ("assistant", "a1"),
        ("user", "q2"),
        ("assistant", "calls lookup"),
        ("tool", "found x"),
        ("assistant", "a2 after the lookup"),
        ("user", "q3"),
    ]
    for request in openai_server.requests:
        check_openai_history(request["messages"])
    assert "q2 edited" not in str(openai_server.requests[4]["messages"])


async def test_regenerate_makes_a_new_branch_of_the_reply(
    openai_server: OpenAIServer, make_model: Any
) -> None:
    openai_server.script(
        Reply.text_reply("first"), Reply.text_reply("second"), Reply.text_reply("third")
    )
    rt = gu.Runtime(model=make_model())
    first = await rt.send("hello")
    second = await rt.regenerate()  # the last reply by default
    assert texts(rt) == ["hello", "second"]
    assert second.id != first.id
    assert conversation(openai_server.requests[1]) == [("user", "hello")]
    third = await rt.regenerate(second.id)
    assert [m.text for m in rt.thread.branches(third.id)] == ["first", "second", "third"]
    rt.switch_branch(third.id, 0)
    assert rt.thread.messages[-1] is first
    rt.switch_branch(first.id, 1)
    assert texts(rt) == ["hello", "second"]
    assert len(openai_server.requests) == 3  # switching asks the model nothing


async def test_a_nested_branch_comes_back_as_it_was() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a1", "a2", "a2 again", "a1 edited"]))
    await rt.send("q1")
    await rt.send("q2")
    await rt.regenerate()  # a fork inside the first version of q1
    assert texts(rt) == ["q1", "a1", "q2", "a2 again"]
    q1 = rt.thread.messages[0]
    await rt.edit(q1.id, "q1 edited")
    assert texts(rt) == ["q1 edited", "a1 edited"]
    rt.switch_branch(rt.thread.messages[0].id, 0)
    assert texts(rt) == ["q1", "a1", "q2", "a2 again"]
    reply = rt.thread.messages[-1]
    position = rt.thread.branch_position(reply.id)
    assert (position.index, position.count) == (1, 2)
    assert rt.thread.branch_position(q1.id).count == 2


async def test_edit_while_a_reply_streams_cancels_it_first() -> None:
    model = BlockingModel([TextDelta("partial ")])
    rt = gu.Runtime(model=model)
    run = rt.send("slow question")
    await model.reached.wait()
    question = rt.thread.messages[0]
    rt.model = ScriptedModel(["fast answer"])
    edited = rt.edit(question.id, "better question")
    stopped = await run
    assert isinstance(stopped.status, Incomplete) and stopped.status.reason == "cancelled"
    assert (await edited).text == "fast answer"
    assert texts(rt) == ["better question", "fast answer"]
    rt.switch_branch(rt.thread.messages[0].id, 0)
    assert texts(rt) == ["slow question", "partial "]


async def test_regenerating_the_reply_that_streams_stops_it_and_keeps_it() -> None:
    model = BlockingModel([TextDelta("half an ans")])
    rt = gu.Runtime(model=model)
    run = rt.send("question")
    await model.reached.wait()
    rt.model = ScriptedModel(["a whole answer"])
    again = rt.regenerate(run.message_id)
    stopped = await run
    assert isinstance(stopped.status, Incomplete) and stopped.text == "half an ans"
    assert (await again).text == "a whole answer"
    assert [m.text for m in rt.thread.branches(again.message_id)] == [
        "half an ans",
        "a whole answer",
    ]


async def test_regenerate_while_waiting_for_approval_answers_the_call_first() -> None:
    replies = [call("deploy", {"env": "prod"}), "Not deploying then.", "ok"]
    model = ScriptedModel(replies, record=True)
    rt = gu.Runtime(model=model, tools=[deploy])
    waiting = await rt.send("deploy please")
    (part,) = waiting.tool_calls
    again = await rt.regenerate()
    assert part.has_result and part.is_error  # the stashed version is a valid history
    with pytest.raises(gu.errors.DecisionError):
        rt.approve(part.tool_call_id)  # its call is not on the active branch
    rt.switch_branch(again.id, 0)
    assert rt.thread.messages[-1] is waiting
    assert isinstance(waiting.status, Incomplete)
    await rt.send("next")
    for request in model.requests:
        check_openai_history(request.messages)


async def test_switching_while_a_reply_streams_cancels_it() -> None:
    rt = gu.Runtime(model=ScriptedModel(["one", "two"]))
    await rt.send("q")
    await rt.regenerate()
    reply = rt.thread.messages[-1]
    blocking = BlockingModel([TextDelta("streaming")])
    rt.model = blocking
    run = rt.send("more")
    await blocking.reached.wait()
    rt.switch_branch(reply.id, 0)
    stopped = await run
    assert isinstance(stopped.status, Incomplete)
    assert not rt.running
    assert texts(rt) == ["q", "one"]


async def test_views_hear_which_messages_to_show() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a1", "a2", "a3"]))
    events: list[ThreadEvent] = []
    rt.subscribe(events.append)
    await rt.send("q1")
    await rt.send("q2")
    q2 = rt.thread.messages[2]
    events.clear()
    await rt.edit(q2.id, "q2 edited")
    (changed,) = [e for e in events if isinstance(e, ActivePathChanged)]
    assert changed.start == 2 and changed.thread_id == rt.thread.id
    assert [m.text for m in changed.messages] == ["q1", "a1"]
    added = [e.message.role for e in events if isinstance(e, MessageAdded)]
    assert added == ["user", "assistant"]  # the new version comes as a send's messages do
    assert events.index(changed) < next(
        i for i, e in enumerate(events) if isinstance(e, MessageAdded)
    )
    events.clear()
    rt.switch_branch(rt.thread.messages[2].id, 0)
    (changed,) = [e for e in events if isinstance(e, ActivePathChanged)]
    assert changed.start == 2
    assert [m.text for m in changed.messages] == ["q1", "a1", "q2", "a2"]


def test_edit_with_no_event_loop_runs_when_awaited() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a1", "a1 again"]))
    rt.run_sync("q1")
    run = rt.edit(rt.thread.messages[0].id, "q1 again")
    assert texts(rt) == ["q1 again"]  # the text is kept at once
    assert asyncio.run(run).text == "a1 again"  # type: ignore[arg-type]
    assert texts(rt) == ["q1 again", "a1 again"]


# --- bad input -----------------------------------------------------------------


async def test_bad_edits_say_what_is_wrong_and_change_nothing() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a1", "a1 again"]))
    await rt.send("q1")
    reply = rt.thread.messages[1]
    before = rt.thread.model_dump()
    with pytest.raises(gu.errors.BranchError, match="no message 'msg_nope' in this thread"):
        rt.edit("msg_nope", "x")
    with pytest.raises(
        gu.errors.BranchError, match="is an assistant message: only user messages can be edited"
    ):
        rt.edit(reply.id, "x")
    with pytest.raises(ValueError, match="non-empty text"):
        rt.edit(rt.thread.messages[0].id, "  ")
    with pytest.raises(
        gu.errors.BranchError, match="is a user message: regenerate takes an assistant reply"
    ):
        rt.regenerate(rt.thread.messages[0].id)
    with pytest.raises(gu.errors.BranchError, match="no message 'msg_nope'"):
        rt.regenerate("msg_nope")
    assert rt.thread.model_dump() == before

    old_question = rt.thread.messages[0]
    await rt.edit(old_question.id, "q1 again")
    with pytest.raises(
        gu.errors.BranchError, match="not on the active branch: switch to its branch"
    ):
        rt.edit(old_question.id, "x")  # it lives in the stashed version
    with pytest.raises(gu.errors.BranchError, match="not on the active branch"):
        rt.switch_branch(old_question.id, 0)


async def test_a_branch_index_out_of_range_names_the_valid_range() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a", "b", "c"]))
    await rt.send("q")
    reply = rt.thread.messages[1]
    wanted = r"branch 1 is out of range: .* has 1 branch \(0 to 0\)"
    with pytest.raises(gu.errors.BranchError, match=wanted):
        rt.switch_branch(reply.id, 1)
    await rt.regenerate()
    await rt.regenerate()
    reply = rt.thread.messages[1]
    before = rt.thread.model_dump()
    for bad in (3, -1, 99):
        with pytest.raises(gu.errors.BranchError, match=r"has 3 branches \(0 to 2\)"):
            rt.switch_branch(reply.id, bad)
    with pytest.raises(gu.errors.BranchError, match=r"an int from 0 to 2, got '1' \(str\)"):
        rt.switch_branch(reply.id, "1")  # type: ignore[arg-type]
    with pytest.raises(gu.errors.BranchError, match="an int from 0 to 2, got True"):
        rt.switch_branch(reply.id, True)
    assert rt.thread.model_dump() == before


async def test_regenerate_in_an_empty_thread_says_there_is_nothing() -> None:
    rt = gu.Runtime(model=ScriptedModel([]))
    with pytest.raises(gu.errors.BranchError, match="nothing to regenerate"):
        rt.regenerate()
