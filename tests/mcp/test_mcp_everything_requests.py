"""The MCP reference server's tools that ask the client mid-call
(``@modelcontextprotocol/server-everything``, listed once the chat answers
sampling and elicitation), through ``gu.MCPTools.stdio``: its sampling
request answered by the chat's model after the user's two approvals, its
form accepted and declined, its URL elicitation accepted. The rest of its
tools: tests/mcp/test_mcp_everything.py."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import Complete
from ipygenui.testing import ScriptedModel
from mcp_asking import card, sample_approved
from mcp_helpers import EVERYTHING, SAMPLING_AND_ELICITATION
from runtime_helpers import call

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not EVERYTHING.exists(),
    reason="needs Node and tests/peers installed (make installs them)",
)


def reply_text(result: Any) -> str:
    return result if isinstance(result, str) else str(result.get("text", result))


async def asked(*replies: Any) -> tuple[gu.Runtime, Any]:
    tools = gu.MCPTools.stdio("node", [str(EVERYTHING), "stdio"], requires_approval=False)
    model = ScriptedModel([*replies, "done"])
    runtime = gu.Runtime(model=model, tools=[tools])
    return runtime, runtime.send("ask me")


async def test_a_chat_answering_requests_is_offered_the_tools_that_ask() -> None:
    runtime, run = await asked()
    assert set(runtime.tools) >= SAMPLING_AND_ELICITATION
    await run
    runtime.close()


async def test_its_sampling_request_is_answered_by_the_chats_model() -> None:
    runtime, run = await asked(
        call("trigger-sampling-request", {"prompt": "a haiku", "maxTokens": 50}, id="c1"),
        "An answer from the chat's model",
    )
    await sample_approved(runtime, "a haiku")
    message = await run
    assert isinstance(message.status, Complete)
    said = reply_text(message.tool_calls[0].result)
    assert said.startswith("LLM sampling result") and "An answer from the chat's model" in said
    runtime.close()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"action": "accept", "content": {"name": "Ada"}}, "User provided the requested"),
        ({"action": "decline"}, "User declined to provide"),
    ],
)
async def test_its_form_is_accepted_or_declined(answer: dict, expected: str) -> None:
    runtime, run = await asked(call("trigger-elicitation-request", {}, id="c1"))
    form = await card(runtime)
    assert form.tool_name == "mcp_elicitation" and form.args["mode"] == "form"
    assert "name" in form.args["schema"]["properties"]
    runtime.add_tool_result(form.tool_call_id, answer)
    message = await run
    assert expected in reply_text(message.tool_calls[0].result)
    runtime.close()


async def test_its_url_elicitation_is_accepted() -> None:
    runtime, run = await asked(
        call("trigger-url-elicitation", {"url": "https://example.com/authorize"}, id="c1")
    )
    link = await card(runtime)
    assert link.args["mode"] == "url" and link.args["url"] == "https://example.com/authorize"
    runtime.add_tool_result(link.tool_call_id, {"action": "accept"})
    message = await run
    assert "User completed the URL elicitation" in reply_text(message.tool_calls[0].result)
    runtime.close()
