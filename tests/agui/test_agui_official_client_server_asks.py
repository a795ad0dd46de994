"""A tool server's requests during a call (the real SDK server
tests/mcp_asking_server.py over stdio) as AG-UI interrupts, answered by the
official ``@ag-ui/client`` (``HttpAgent``) through ``resume``.

The runtime's run stays alive inside the tool's call: the client's run ends
with ``outcome: interrupt`` for the card, its next run resumes it and streams
the rest of the same live run (the tool's result, the model's reply).

Faults tried: a malformed payload and content that breaks the server's form
(RUN_ERROR, the interrupt still open, the corrected resume answers it); a
sampling request approved at both of its steps; a new message that cancels
the open request; a card answered in the notebook meanwhile (not open to the
client any more); a client that never resumes, the run stopped in the notebook.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import UserMessage

import ipygenui as gu
from agui_agents import serve
from agui_helpers import post, run_input
from agui_peer import drive, official_client_available
from ipygenui.messages import Complete
from ipygenui.testing import ScriptedModel
from mcp_asking import card, text_of
from runtime_helpers import call


@pytest.fixture(autouse=True)
def _peers() -> None:
    official_client_available()


def user(text: str) -> dict[str, Any]:
    return {"add": [{"role": "user", "content": text}]}


def answer(payload: Any, status: str = "resolved") -> dict[str, Any]:
    """A resume of the client's first pending interrupt (its id the server's)."""
    entry: dict[str, Any] = {"interruptId": {"pending": 0}, "status": status}
    if payload is not None:
        entry["payload"] = payload
    return {"resume": [entry]}


def types(report: dict[str, Any]) -> list[str]:
    return [e["type"] for e in report["events"]]


def results(report: dict[str, Any]) -> list[str]:
    return [e["content"] for e in report["events"] if e["type"] == "TOOL_CALL_RESULT"]


async def test_a_form_is_an_interrupt_the_client_answers_and_the_live_run_goes_on(
    asking,
) -> None:
    model = ScriptedModel([call("sign_up", {}, id="c1"), "Signed up."])
    rt = gu.Runtime(model=model, tools=[asking()])
    app = rt.ag_ui_app()
    good = {"action": "accept", "content": {"name": "Ada", "age": 36, "agree": True}}
    with serve(app) as url:
        asked, misspelt, unfit, answered = await drive(
            url,
            app.token,
            [
                user("sign me up"),
                answer({"action": "accept", "contents": {}}),
                answer({"action": "accept", "content": {"name": "Ada", "age": -3}}),
                answer(good),
            ],
        )
    assert "error" not in asked, asked["error"]
    [interrupt] = asked["pendingInterrupts"]
    assert interrupt["reason"] == "mcp_elicitation"
    request = interrupt["metadata"]["request"]
    assert request["message"] == "Please sign up" and request["server"] == "ipygenui-asking"
    assert set(request["schema"]["properties"]) == {"name", "age", "agree"}
    assert "server_command" not in request  # the command line may hold a secret
    assert interrupt["responseSchema"]["properties"]["content"] == request["schema"]
    finished = asked["events"][-1]
    assert finished["type"] == "RUN_FINISHED" and finished["outcome"]["type"] == "interrupt"

    # a bad payload: RUN_ERROR alone, the interrupt still the client's to answer
    for refused, why in ((misspelt, "only 'action'"), (unfit, "does not fit the server's form")):
        [error] = refused["events"]
        assert error["type"] == "RUN_ERROR" and error["code"] == "RESUME_INVALID"
        assert why in error["message"], error["message"]
        assert refused["pendingInterrupts"] == asked["pendingInterrupts"]

    assert "error" not in answered, answered["error"]
    assert types(answered)[0] == "RUN_STARTED" and answered["pendingInterrupts"] == []
    assert answered["events"][-1]["outcome"]["type"] == "success"
    [said] = results(answered)  # the tool's own result, streamed in the resumed run
    assert json.loads(said)["result"].startswith('accepted {"name":"Ada"')
    message = rt.thread.messages[-1]
    assert isinstance(message.status, Complete) and message.text == "Signed up."
    [part] = message.server_requests
    assert part.result == {"action": "accept", "content": good["content"]}
    assert json.loads(text_of(message.tool_calls[0]).split(" ", 1)[1]) == good["content"]
    rt.close()


async def test_sampling_is_approved_by_the_client_at_both_steps(asking) -> None:
    model = ScriptedModel(
        [call("summarize", {"text": "a long text", "max_tokens": 5000}, id="c1"), "short", "done"]
    )
    rt = gu.Runtime(model=model, tools=[asking(sampling_max_tokens=200)])
    app = rt.ag_ui_app()
    with serve(app) as url:
        asked, bad, reviewed, sent = await drive(
            url,
            app.token,
            [
                user("summarize it"),
                answer({"approved": True, "editedArgs": {}}),
                answer({"approved": True}),
                answer({"approved": True}),
            ],
        )
    [prompt] = asked["pendingInterrupts"]
    assert prompt["reason"] == "mcp_sampling"
    request = prompt["metadata"]["request"]
    assert request["messages"] == [{"role": "user", "text": "a long text"}]
    assert request["max_tokens"] == 200 and request["requested_max_tokens"] == 5000
    assert "reply" not in request and "server_command" not in request
    [error] = bad["events"]
    assert error["code"] == "RESUME_INVALID" and "editedArgs" in error["message"]
    assert [r.purpose for r in model.requests] == ["reply", "sampling", "reply"]  # sampled once

    # approved: the model answers, and its answer is the next interrupt
    assert "error" not in reviewed, reviewed["error"]
    [review] = reviewed["pendingInterrupts"]
    assert review["id"] == prompt["id"] and review["metadata"]["request"]["reply"] == "short"
    assert results(reviewed) == []  # the tool still waits
    assert "error" not in sent, sent["error"]
    [said] = results(sent)
    assert json.loads(said)["result"].endswith("said: short [endTurn]")
    assert sent["pendingInterrupts"] == [] and rt.thread.messages[-1].text == "done"
    part = rt.thread.messages[-1].server_requests[0]
    assert part.approval is not None and part.approval.decided_by == "client"
    rt.close()


async def test_a_new_message_cancels_the_open_request(asking) -> None:
    model = ScriptedModel([call("sign_up", {}, id="c1"), "Skipped."])
    rt = gu.Runtime(model=model, tools=[asking()])
    app = rt.ag_ui_app()
    with serve(app) as url:
        [asked] = await drive(url, app.token, [user("sign me up")])
        # a raw client (the official one refuses to) that ignores the interrupt
        ignoring = run_input(UserMessage(id="u-raw", content="never mind"), thread_id="thread-1")
        busy = await post(app, ignoring)
        cancel = {**user("something else"), **answer(None, "cancelled")}
        cancel["resume"][0]["interruptId"] = asked["pendingInterrupts"][0]["id"]
        [moved] = await drive(url, app.token, [{"add": asked["messages"], **cancel}])
    assert [i["reason"] for i in asked["pendingInterrupts"]] == ["mcp_elicitation"]
    assert busy.status_code == 409 and "resume the interrupt" in busy.json()["error"]
    assert "error" not in moved, moved["error"]
    assert types(moved)[0] == "RUN_STARTED", moved["events"]
    assert moved["pendingInterrupts"] == []
    [first, second] = [m for m in rt.thread.messages if m.role == "assistant"]
    assert first.server_requests[0].result["action"] == "cancel"
    assert second.text == "Skipped."
    rt.close()


async def test_a_card_answered_in_the_notebook_is_no_longer_open_to_the_client(asking) -> None:
    model = ScriptedModel([call("sign_up", {}, id="c1"), "Signed up."])
    rt = gu.Runtime(model=model, tools=[asking()])
    app = rt.ag_ui_app()
    with serve(app) as url:
        [asked] = await drive(url, app.token, [user("sign me up")])
        part = await card(rt)
        assert rt.running and asked["pendingInterrupts"][0]["id"] == part.tool_call_id
        run = rt.add_tool_result(part.tool_call_id, {"action": "decline"})
        assert run is not None
        await run
        late = answer({"action": "cancel"})
        late["resume"][0]["interruptId"] = part.tool_call_id
        [refused] = await drive(url, app.token, [{"add": asked["messages"], **late}])
    [error] = refused["events"]
    assert error["type"] == "RUN_ERROR" and error["code"] == "INTERRUPT_NOT_OPEN"
    assert part.result == {"action": "decline"}
    assert rt.thread.messages[-1].text == "Signed up."
    rt.close()


async def test_a_client_that_never_resumes_leaves_the_run_waiting_and_stop_ends_it(
    asking,
) -> None:
    """The run waits as it does in the notebook; Stop there ends it unheard by
    the client (its run ended already), and the client's next message is a new run."""
    model = ScriptedModel([call("sign_up", {}, id="c1"), "Hello again."])
    rt = gu.Runtime(model=model, tools=[asking()])
    app = rt.ag_ui_app()
    with serve(app) as url:
        [asked] = await drive(url, app.token, [user("sign me up")])
        part = await card(rt)
        assert asked["pendingInterrupts"][0]["id"] == part.tool_call_id
        assert rt.running and not part.has_result  # still waiting, nothing resolved it
        rt.cancel()
        assert not rt.running and part.result["action"] == "cancel"
        [later] = await drive(url, app.token, [user("hi")])
    assert "error" not in later, later["error"]
    assert types(later)[0] == "RUN_STARTED" and later["events"][-1]["outcome"]["type"] == "success"
    assert rt.thread.messages[-1].text == "Hello again."
    rt.close()
