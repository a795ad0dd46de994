"""``rt.ag_ui_app()`` driven by the official AG-UI client (``@ag-ui/client``
1.0.0's ``HttpAgent``, its own ``verifyEvents`` in its pipeline) over uvicorn,
as a front end uses it: one conversation of several runs, the whole history
sent back each time, approvals resumed with AG-UI's ``resume``.

Faults tried: a second and a third run after the first (ids merged by the
client's own MESSAGES_SNAPSHOT rule), a step's reasoning, text and tool call
in one assistant message, interrupts resumed by approve, approve with edited
arguments and reject with a reason, and a stale resume after them; an
interrupt cancelled beside a new user message (moving on).
"""

from __future__ import annotations

from typing import Any

import pytest

import ipygenui as gu
from agui_agents import serve
from agui_peer import drive, official_client_available
from ipygenui.agui import to_agui_messages
from ipygenui.testing import ScriptedModel, ScriptedReply
from runtime_helpers import call

dropped: list[str] = []


@pytest.fixture(autouse=True)
def _peers() -> None:
    official_client_available()
    dropped.clear()


@gu.tool
def add(a: int, b: int) -> int:
    return a + b


@gu.tool(requires_approval=True)
def drop(name: str) -> str:
    """Drop a table."""
    dropped.append(name)
    return f"dropped {name}"


def ours(rt: gu.Runtime) -> list[dict[str, Any]]:
    """The thread as the server's snapshots send it."""
    messages = to_agui_messages([m for m in rt.thread.messages if m.parts], as_streamed=True)
    return [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages]


def user(text: str) -> dict[str, Any]:
    return {"add": [{"role": "user", "content": text}]}


def resume(call_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"resume": [{"interruptId": call_id, "status": "resolved", "payload": payload}]}


SCRIPT = [
    ScriptedReply(
        reasoning="Two numbers.",
        text="Adding. ",
        tool_calls=[call("add", {"a": 2, "b": 3}, id="a1")],
    ),
    "It is 5.",
    ScriptedReply(
        text="Dropping t needs your approval.", tool_calls=[call("drop", {"name": "t"}, id="d1")]
    ),
    "Dropped t.",
    call("drop", {"name": "u"}, id="d2"),
    "Dropped what you chose.",
    call("drop", {"name": "v"}, id="d3"),
    "Kept v.",
]

TURNS = [
    user("2+3?"),
    user("drop t"),
    resume("d1", {"approved": True}),
    user("drop u"),
    resume("d2", {"approved": True, "editedArgs": {"name": "u2"}}),
    user("drop v"),
    resume("d3", {"approved": False, "reason": "keep v"}),
    resume("d3", {"approved": True}),  # stale: already rejected
]


async def test_the_official_client_holds_our_history_and_resumes_interrupts() -> None:
    rt = gu.Runtime(model=ScriptedModel(SCRIPT), tools=[add, drop])
    app = rt.ag_ui_app()
    with serve(app) as url:
        reports = await drive(url, app.token, TURNS)
    *runs, stale = reports
    for n, report in enumerate(runs):
        assert "error" not in report, (n, report["error"])
    # each run's history, rebuilt by the client from snapshots and streamed events, is ours
    assert runs[-1]["messages"] == ours(rt)
    before: set[str] = set()
    for report in runs:  # newMessages: this run's, none of an earlier run's
        new = {m["id"] for m in report["newMessages"]}
        assert new and not new & before
        before = {m["id"] for m in report["messages"]}
    first = runs[0]["messages"]
    assert [m["role"] for m in first] == ["user", "reasoning", "assistant", "tool", "assistant"]
    assert first[2]["content"] == "Adding. " and first[2]["toolCalls"][0]["id"] == "a1"

    interrupt = runs[1]["pendingInterrupts"]
    assert [(i["id"], i["reason"], i["toolCallId"]) for i in interrupt] == [
        ("d1", "tool_call", "d1")
    ]
    assert interrupt[0]["responseSchema"]["required"] == ["approved"]
    assert dropped == ["t", "u2"]  # approved, then approved with the edited name; v rejected
    results = [e for e in runs[2]["events"] if e["type"] == "TOOL_CALL_RESULT"]
    assert [r["toolCallId"] for r in results] == ["d1"]  # the resumed run answers the original call
    rejected = rt.thread.messages[-1].tool_call("d3")
    assert rejected is not None and rejected.approval is not None
    assert rejected.approval.status == "rejected" and rejected.approval.reason == "keep v"
    decided = [rt.thread.find_tool_call(c)[1].approval for c in ("d1", "d2", "d3")]  # type: ignore[index]
    assert [(a.decided_by, a.edited) for a in decided] == [  # type: ignore[union-attr]
        ("client", False),
        ("client", True),
        ("client", False),
    ]  # the cards say "Approved by the AG-UI client" (edited), "Rejected by the AG-UI client"
    assert rt.thread.messages[-1].text == "Kept v."
    assert all(r["pendingInterrupts"] == [] for r in runs[2::2])

    # a stale resume: a stream of one RUN_ERROR (AG-UI's rejection before the run starts)
    [error] = stale["events"]
    assert "error" not in stale and error["type"] == "RUN_ERROR"
    assert error["code"] == "INTERRUPT_NOT_OPEN" and "not open" in error["message"]
    assert stale["messages"] == ours(rt)  # the refused resume changed nothing


async def test_a_malformed_resume_is_a_run_error_and_the_interrupt_stays_open() -> None:
    """The client reads the refusal as a failed run (its RUN_ERROR, not an HTTP
    error): its interrupt is still pending, and the corrected resume decides it."""
    model = ScriptedModel([call("drop", {"name": "x"}, id="d7"), "Dropped x."])
    rt = gu.Runtime(model=model, tools=[drop])
    app = rt.ag_ui_app()
    misspelt = resume("d7", {"approved": True, "args": {"name": "everything"}})
    with serve(app) as url:
        first, refused, fixed = await drive(
            url, app.token, [user("drop x"), misspelt, resume("d7", {"approved": True})]
        )
    assert [e["type"] for e in refused["events"]] == ["RUN_ERROR"] and "error" not in refused
    error = refused["events"][0]
    assert error["code"] == "RESUME_INVALID" and "unknown payload field(s) args" in error["message"]
    assert refused["messages"] == first["messages"] and refused["newMessages"] == []
    assert [i["id"] for i in refused["pendingInterrupts"]] == ["d7"]  # still the client's to answer
    assert dropped == ["x"] and "error" not in fixed  # the corrected resume ran the original call
    assert fixed["pendingInterrupts"] == [] and rt.thread.messages[-1].text == "Dropped x."


async def test_the_official_client_cancels_an_interrupt_to_move_on_with_a_new_message() -> None:
    """AG-UI lets no input leave an interrupt open: a client that moves on
    cancels it beside its new message; the call is not run."""
    model = ScriptedModel([call("drop", {"name": "w"}, id="d9"), "Kept w."])
    rt = gu.Runtime(model=model, tools=[drop])
    app = rt.ag_ui_app()
    cancel = {"resume": [{"interruptId": "d9", "status": "cancelled"}]}
    with serve(app) as url:
        first, second = await drive(url, app.token, [user("drop w"), {**user("keep it"), **cancel}])
    assert [i["id"] for i in first["pendingInterrupts"]] == ["d9"]
    assert "error" not in second, second["error"]
    assert second["pendingInterrupts"] == [] and dropped == []
    assert second["messages"] == ours(rt)
    assert [m.text for m in rt.thread.messages[2:]] == ["keep it", "Kept w."]


async def test_an_interrupt_the_notebook_user_regenerated_away_is_not_open_to_the_client() -> None:
    """The user regenerates in the notebook while the client's interrupt is open:
    the new reply's call, though its id is the same (a provider numbering its
    calls), is the notebook's; the client's resume of the old one is refused."""
    again = call("drop", {"name": "z"}, id="d5")
    model = ScriptedModel([call("drop", {"name": "z"}, id="d5"), again, "Dropped z."])
    rt = gu.Runtime(model=model, tools=[drop])
    app = rt.ag_ui_app()
    with serve(app) as url:
        [first] = await drive(url, app.token, [user("drop z")])
        assert [i["id"] for i in first["pendingInterrupts"]] == ["d5"]
        await rt.regenerate()  # in the notebook: the old reply is stashed as a branch
        hijack = resume("d5", {"approved": True, "editedArgs": {"name": "everything"}})
        # the client, its history kept, resumes as if nothing happened
        [late] = await drive(url, app.token, [{"add": first["messages"], **hijack}])
    [error] = late["events"]
    assert error["type"] == "RUN_ERROR" and error["code"] == "INTERRUPT_NOT_OPEN"
    part = rt.thread.messages[-1].tool_call("d5")
    assert part is not None and part.approval is not None and part.approval.status == "pending"
    assert part.args == {"name": "z"} and dropped == []


async def test_a_failed_run_ends_with_run_error_and_the_next_run_goes_on() -> None:
    """A model error mid-reply ends the stream with RUN_ERROR (no RUN_FINISHED
    after it): the client's verifier accepts it, the streamed text is kept, and
    the next run of the same conversation goes on from there."""
    model = ScriptedModel([ScriptedReply(text="Half an answer", error="boom"), "Whole."])
    rt = gu.Runtime(model=model)
    app = rt.ag_ui_app()
    with serve(app) as url:
        failed, next_run = await drive(url, app.token, [user("go"), user("again")])
    assert "error" not in failed, failed["error"]
    types = [e["type"] for e in failed["events"]]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_ERROR"
    assert "RUN_FINISHED" not in types
    error = failed["events"][-1]
    assert "boom" in error["message"] and error["code"] == "error"
    assert [m["content"] for m in failed["messages"] if m["role"] == "assistant"] == [
        "Half an answer"
    ]
    assert "error" not in next_run and next_run["events"][-1]["type"] == "RUN_FINISHED"
    assert next_run["messages"][-1]["content"] == "Whole."
    assert next_run["messages"] == ours(rt)
