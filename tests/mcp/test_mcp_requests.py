"""An MCP server's requests during a call, answered in the chat: sampling
(gated like an approval, the chat's model answers, the answer approved again
before it goes back) and elicitation (a form from the server's schema, or a
URL), with the real SDK server tests/mcp_asking_server.py over stdio.

Each request is a card of its own (``mcp_sampling`` / ``mcp_elicitation``,
``synthetic``) in the reply whose call runs: never sent to the model, decided
with ``approve`` / ``reject`` / ``add_tool_result``, saved with the thread."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.messages import Complete, Thread
from ipygenui.testing import ScriptedModel
from mcp_asking import ASKING, card, text_of, until
from runtime_helpers import assert_valid, call, tool_messages


async def test_sampling_is_approved_answered_by_the_chats_model_and_approved_again(
    asking,
) -> None:
    model = ScriptedModel(
        [call("summarize", {"text": "a long text", "max_tokens": 5000}, id="c1"), "short", "done"]
    )
    runtime = gu.Runtime(model=model, tools=[asking(sampling_max_tokens=200)])
    run = runtime.send("summarize it")
    request = await card(runtime)
    assert request.tool_name == "mcp_sampling" and request.synthetic
    assert request.approval is not None and request.approval.status == "pending"
    assert request.args["messages"] == [{"role": "user", "text": "a long text"}]
    assert request.args["system_prompt"] == "Summarize in one line."
    assert request.args["max_tokens"] == 200  # the server asked 5000: capped
    assert request.args["requested_max_tokens"] == 5000
    # named as the server names itself; its full command in the card's details
    assert request.args["server"] == "ipygenui-asking"
    assert request.args["server_command"] == shlex.join([sys.executable, ASKING])
    assert len(model.requests) == 1  # nothing asked of the model before the approval
    runtime.approve(request.tool_call_id)
    await until(lambda: "reply" in request.args, "the model's answer on the card")
    assert request.args["reply"] == "short"
    sampled = model.requests[1]
    assert sampled.tools == [] and sampled.max_tokens == 200
    assert sampled.purpose == "sampling"  # a server's prompt, not a step of the reply
    assert sampled.messages == [
        {"role": "system", "content": "Summarize in one line."},
        {"role": "user", "content": "a long text"},
    ]
    assert not request.has_result  # the answer waits for its own approval
    runtime.approve(request.tool_call_id)
    message = await run
    assert isinstance(message.status, Complete)
    assert request.result == {"sent": "short"}
    said = text_of(message.tool_calls[0])
    assert said.startswith("scripted") and said.endswith("said: short [endTurn]")
    # the card is no model call: not in the history, not counted
    assert [p.tool_call_id for p in message.tool_calls] == ["c1"]
    assert set(tool_messages(model.requests[-1])) == {"c1"}
    assert "mcp_sampling" not in json.dumps(model.requests[-1].messages)
    assert_valid(model)
    # saved with the thread, and read back the same
    again = Thread.model_validate_json(runtime.thread.model_dump_json())
    assert again.last_assistant.server_requests == [request]
    runtime.close()


async def test_sampling_rejected_at_either_step_tells_the_server(asking) -> None:
    model = ScriptedModel(
        [
            call("summarize", {"text": "one"}, id="c1"),
            call("summarize", {"text": "two"}, id="c2"),
            "its answer",
            "done",
        ]
    )
    runtime = gu.Runtime(model=model, tools=[asking()])
    run = runtime.send("go")
    first = await card(runtime)
    runtime.reject(first.tool_call_id, "not now")
    second = await card(runtime, 2)
    runtime.approve(second.tool_call_id)
    await until(lambda: "reply" in second.args, "the model's answer on the card")
    runtime.reject(second.tool_call_id)
    message = await run
    results = {p.tool_call_id: text_of(p) for p in message.tool_calls}
    assert results["c1"] == "refused (-1): The user declined this request: not now"
    assert results["c2"] == "refused (-1): The user declined this request."
    assert first.is_error and first.approval.status == "rejected"
    assert len(model.requests) == 4  # two steps, one sampling, the last step
    runtime.close()


async def test_a_form_is_answered_with_add_tool_result_and_checked_against_the_schema(
    asking,
) -> None:
    model = ScriptedModel([call("sign_up", id="c1"), "done"])
    runtime = gu.Runtime(model=model, tools=[asking()])
    run = runtime.send("sign me up")
    form = await card(runtime)
    assert form.tool_name == "mcp_elicitation" and form.approval is None
    assert form.args["mode"] == "form" and form.args["message"] == "Please sign up"
    assert form.args["server"] == "ipygenui-asking"
    schema = form.args["schema"]
    assert set(schema["properties"]) == {"name", "age", "agree"}
    with pytest.raises(gu.errors.DecisionError, match="'age' must be at most 150"):
        runtime.add_tool_result(form.tool_call_id, {"name": "Ada", "age": 200})
    with pytest.raises(gu.errors.DecisionError, match="not approved"):
        runtime.approve(form.tool_call_id)
    assert not form.has_result  # nothing changed
    runtime.add_tool_result(
        form.tool_call_id, {"action": "accept", "content": {"name": "Ada", "age": 36}}
    )
    message = await run
    assert text_of(message.tool_calls[0]) == 'accepted {"name":"Ada","age":36,"agree":false}'
    assert form.result == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    with pytest.raises(gu.errors.DecisionError, match="already answered"):
        runtime.add_tool_result(form.tool_call_id, {"action": "decline"})
    runtime.close()


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_form_declined_or_cancelled(asking, action: str) -> None:
    runtime = gu.Runtime(model=ScriptedModel([call("sign_up", id="c1"), "done"]), tools=[asking()])
    run = runtime.send("go")
    form = await card(runtime)
    runtime.add_tool_result(form.tool_call_id, {"action": action})
    message = await run
    assert text_of(message.tool_calls[0]) == action
    runtime.close()


async def test_url_mode_shows_the_url_and_reports_the_users_choice(asking) -> None:
    model = ScriptedModel([call("authorize", {"url": "https://example.org/auth?x=1"}), "done"])
    runtime = gu.Runtime(model=model, tools=[asking()])
    run = runtime.send("go")
    request = await card(runtime)
    assert request.args["mode"] == "url"
    assert request.args["url"] == "https://example.org/auth?x=1"
    runtime.add_tool_result(request.tool_call_id, {"action": "accept"})
    message = await run
    assert text_of(message.tool_calls[0]) == "accept"
    assert request.completion_status_message == "Link opened"
    runtime.close()


async def test_capabilities_are_advertised_only_with_a_chat_that_answers(asking) -> None:
    alone = asking()
    await alone.connect()
    [tool] = [t for t in alone.as_tools() if t.name == "capabilities"]
    assert json.loads((await tool.func({}))["result"]) == {
        "sampling": False,
        "elicitation": False,
    }
    # connected before the chat: the chat's runtime opens it again, advertising both
    model = ScriptedModel([call("capabilities", id="c1"), "done"])
    runtime = gu.Runtime(model=model, tools=[alone])
    message = await runtime.send("what can you do?")
    assert json.loads(text_of(message.tool_calls[0])) == {"sampling": True, "elicitation": True}
    runtime.close()


async def test_a_pending_request_in_a_saved_thread_is_answered_cancelled_on_load(
    asking, tmp_path: Path
) -> None:
    path = tmp_path / "thread.json"
    runtime = gu.Runtime(
        model=ScriptedModel([call("sign_up", id="c1"), "done"]), tools=[asking()], persist=path
    )
    runtime.send("go")
    form = await card(runtime)
    runtime.save(path)  # as the kernel would have it when it died
    runtime.close()
    loaded = gu.Runtime.load(path, model=ScriptedModel(["hi"]))
    [request] = loaded.thread.last_assistant.server_requests
    assert request.tool_call_id == form.tool_call_id
    assert request.has_result and request.result["action"] == "cancel"
    loaded.close()


async def test_a_cancelled_run_cancels_its_open_request(asking) -> None:
    runtime = gu.Runtime(model=ScriptedModel([call("summarize", {"text": "x"})]), tools=[asking()])
    run = runtime.send("go")
    request = await card(runtime)
    runtime.cancel()
    await run
    assert request.has_result and request.result["action"] == "cancel"
    assert request.approval.status == "rejected"
    with pytest.raises(gu.errors.DecisionError, match="not waiting"):
        runtime.approve(request.tool_call_id)
    runtime.close()


async def test_the_sampling_limit_reaches_an_openai_server_as_max_completion_tokens(
    make_model, openai_server
) -> None:
    from ipygenui.models.base import ModelRequest
    from openai_helpers import HI, collect
    from openai_server import Reply

    for own, limit, sent in ((None, 200, 200), (100, 200, 100), (None, None, None)):
        openai_server.script(Reply.text_reply("ok"))
        options = {} if own is None else {"max_completion_tokens": own}
        await collect(make_model(**options), ModelRequest(messages=HI, max_tokens=limit))
        assert openai_server.requests[-1].get("max_completion_tokens") == sent


async def test_the_sampling_limit_reaches_a_pydantic_ai_model_as_max_tokens() -> None:
    from collections.abc import AsyncIterator

    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from ipygenui.models.base import ModelRequest
    from ipygenui.models.providers import ProviderModel

    seen: list[object] = []

    async def text(messages: object, info: AgentInfo) -> AsyncIterator[str]:
        seen.append(info.model_settings.get("max_tokens") if info.model_settings else None)
        yield "ok"

    hi = [{"role": "user", "content": "hi"}]
    for own, limit in ((None, 200), (100, 200), (None, None)):
        options = {} if own is None else {"max_tokens": own}
        model = ProviderModel(FunctionModel(stream_function=text), **options)
        _ = [d async for d in model.stream(ModelRequest(messages=hi, max_tokens=limit))]
    assert seen == [200, 100, None]
