"""The MCP reference server, ``@modelcontextprotocol/server-everything``
(tests/peers), through ``gu.MCPTools.stdio`` in a chat: every tool it lists,
each called by the model and answered as the server means it (text, images,
embedded resources, resource links read back with ``read_resource``,
structured content, an error, progress on the card, the roots the user
allowed).

The server lists some tools only for a client that advertises a capability:
``get-roots-list`` for roots (``roots=``); the sampling and elicitation ones
for sampling and elicitation (``SAMPLING_AND_ELICITATION`` in tests/mcp_helpers.py: answered
in tests/mcp/test_mcp_everything_requests.py); the ``-async`` ones for a client
that runs sampling and elicitation as tasks. Its task-only tool,
``simulate-research-query``, is called in tests/mcp/test_mcp_everything_tasks.py.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from comm_helpers import customs, settle
from ipygenui.mcp._results import USER_ONLY_NOTE
from ipygenui.messages import Complete
from ipygenui.testing import ScriptedModel, last_user_text
from ipygenui.widget.chat import Chat
from mcp_helpers import ASYNC_REQUESTS, EVERYTHING, SAMPLING_AND_ELICITATION
from runtime_helpers import assert_valid, call, tool_messages

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not EVERYTHING.exists(),
    reason="needs Node and tests/peers installed (make installs them)",
)

GZIPPED = "data:text/plain;base64,aGVsbG8gZnJvbSB0aGUgdGVzdHM="  # "hello from the tests"


def text_of(result: Any) -> str:
    return result if isinstance(result, str) else str(result.get("text", ""))


def is_image(result: Any, key: str = "images") -> bool:
    images = result.get(key, []) if isinstance(result, dict) else []
    return bool(images) and all(i["src"].startswith("data:image/png;base64,") for i in images)


# Each call the model makes, and what its result must be (the tool card's
# result; the model reads it without its "for_user" entry).
CALLS: list[tuple[str, dict[str, Any], Callable[[Any], bool]]] = [
    ("echo", {"message": "hi there"}, lambda r: r == "Echo: hi there"),
    ("get-sum", {"a": 2, "b": 3.5}, lambda r: r == "The sum of 2 and 3.5 is 5.5."),
    ("get-env", {}, lambda r: '"PATH"' in r),
    (
        "get-structured-content",
        {"location": "Chicago"},
        lambda r: set(r) == {"temperature", "conditions", "humidity"},
    ),
    ("get-tiny-image", {}, lambda r: is_image(r) and "MCP logo" in r["text"]),
    (
        # the image is for the user only: on the card, not sent to the model
        "get-annotated-message",
        {"messageType": "success", "includeImage": True},
        lambda r: (
            r["text"] == USER_ONLY_NOTE
            and r["for_user"]["text"] == "Operation completed successfully"
            and is_image(r["for_user"])
        ),
    ),
    (
        "get-annotated-message",  # for both: the model reads it
        {"messageType": "error"},
        lambda r: r == "Error: Operation failed",
    ),
    (
        "get-annotated-message",  # for the assistant only: read by the model too
        {"messageType": "debug"},
        lambda r: r.startswith("Debug: Cache hit ratio"),
    ),
    (
        "get-resource-reference",
        {"resourceType": "Text", "resourceId": 1},
        lambda r: (
            r["content"][0]["uri"] == "demo://resource/dynamic/text/1"
            and "plaintext resource" in r["content"][0]["text"]
        ),
    ),
    (
        "get-resource-reference",
        {"resourceType": "Blob", "resourceId": 2},
        lambda r: (
            r["content"][0]["uri"] == "demo://resource/dynamic/blob/2"
            and r["content"][0]["base64_length"] > 0
        ),
    ),
    (
        "get-resource-links",
        {"count": 2},
        lambda r: (
            [c["uri"] for c in r["content"]]
            == ["demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"]
        ),
    ),
    (
        "read_resource",  # a link the last call gave
        {"uri": "demo://resource/dynamic/text/2"},
        lambda r: "Resource 2" in r["content"][0]["text"],
    ),
    (
        "gzip-file-as-resource",
        {"name": "hello.txt.gz", "data": GZIPPED, "outputType": "resourceLink"},
        lambda r: (
            r["content"][0]["type"] == "resource_link"
            and r["content"][0]["uri"].endswith("hello.txt.gz")
        ),
    ),
    (
        "gzip-file-as-resource",
        {"name": "hello2.txt.gz", "data": GZIPPED, "outputType": "resource"},
        lambda r: r["content"][0]["mime_type"] == "application/gzip",
    ),
    (
        "trigger-long-running-operation",
        {"duration": 0.2, "steps": 2},
        lambda r: r.startswith("Long running operation completed"),
    ),
    ("toggle-simulated-logging", {}, lambda r: r.startswith("Started simulated")),
    ("toggle-simulated-logging", {}, lambda r: r.startswith("Stopped simulated")),
    ("toggle-subscriber-updates", {}, lambda r: r.startswith("Started simulated")),
    ("toggle-subscriber-updates", {}, lambda r: r.startswith("Stopped simulated")),
]
FAILING = ("gzip-file-as-resource", {"data": "https://example.com/x"})
"""A fetch from a domain the server does not allow: an error result."""


def everything(**kwargs: Any) -> gu.MCPTools:
    return gu.MCPTools.stdio(
        "node",
        [str(EVERYTHING), "stdio"],
        env={"GZIP_ALLOWED_DOMAINS": "allowed.invalid"},
        **kwargs,
    )


async def test_every_tool_of_the_reference_server_answers_as_expected(tmp_path: Path) -> None:
    tools = everything(roots=[tmp_path], requires_approval=False)
    replies = [call(name, args, id=f"c{i}") for i, (name, args, _) in enumerate(CALLS)]
    replies.append(call(*FAILING, id="bad"))
    replies.append(call("get-roots-list", id="roots"))
    model = ScriptedModel([*replies, "done"])  # type: ignore[list-item]
    runtime = gu.Runtime(model=model, tools=[tools], max_steps=len(replies) + 1)
    listed = set(runtime.tools)
    called = {name for name, _, _ in CALLS} | {"get-roots-list"}
    # every tool it lists is called (its tasks: in test_mcp_everything_tasks.py)
    tasks = ASYNC_REQUESTS | {"simulate-research-query"}
    assert listed - SAMPLING_AND_ELICITATION - tasks == called
    assert "simulate-research-query" in listed and not tools.skipped
    assert tools.starters == ["This is a simple prompt without arguments."]

    message = await runtime.send("try every tool")
    assert isinstance(message.status, Complete)
    parts = {part.tool_call_id: part for part in message.tool_calls}
    for i, (name, args, expected) in enumerate(CALLS):
        part = parts[f"c{i}"]
        assert not part.is_error, (name, part.result)
        assert expected(part.result), (name, args, part.result)
    bad = parts["bad"]
    assert bad.is_error and "not in the allowed domains" in bad.result["error"]
    assert text_of(parts["roots"].result).count("URI: ") == 1
    assert tmp_path.resolve().as_uri() in parts["roots"].result
    # progress notifications (a token went with the call) moved the card's bar to the end
    long_running = next(
        parts[f"c{i}"] for i, c in enumerate(CALLS) if c[0] == "trigger-long-running-operation"
    )
    assert long_running.progress == 1.0
    # what the model read: no user-only image
    seen = tool_messages(model.requests[-1])
    annotated = next(f"c{i}" for i, c in enumerate(CALLS) if c[0] == "get-annotated-message")
    assert "for_user" not in seen[annotated]
    assert_valid(model)
    runtime.close()


async def test_without_roots_allowed_the_server_hears_of_none() -> None:
    tools = everything()
    runtime = gu.Runtime(model=ScriptedModel(["hi"]), tools=[tools])
    assert "get-roots-list" not in runtime.tools  # no roots advertised: the tool is not offered
    runtime.close()


async def test_the_reference_servers_prompts_with_arguments_are_filled_and_completed() -> None:
    tools = everything()
    try:
        await tools.connect()
        prompts = {p.name: p for p in tools.prompts}
        assert {"args-prompt", "completable-prompt"} <= set(prompts)
        fields = [(a.name, a.required) for a in prompts["args-prompt"].arguments]
        assert fields == [("city", True), ("state", False)]
        assert prompts["args-prompt"].arguments[0].description == "Name of the city"
        filled = await tools.fill_prompt("args-prompt", {"city": "Lyon"})
        assert filled == "What's weather in Lyon?"
        assert await tools.complete("completable-prompt", "department", "S") == [
            "Sales",
            "Support",
        ]
        # the argument filled already narrows the next one's suggestions
        names = await tools.complete("completable-prompt", "name", "", {"department": "Sales"})
        assert names == ["David", "Eve", "Frank"]
        text = await tools.fill_prompt("completable-prompt", {"department": "Sales", "name": "Eve"})
        assert text == "Please promote Eve to the head of the Sales team."
    finally:
        tools.close()


async def test_the_reference_servers_prompts_are_a_chats_starter_forms(wire: list[Any]) -> None:
    tools = everything()
    await tools.connect()
    chat = Chat(model=ScriptedModel(lambda r: f"echo: {last_user_text(r)}"), tools=[tools])
    named = {f["id"].split("/", 1)[1] for f in chat.starter_forms}
    assert {"args-prompt", "completable-prompt"} <= named
    promote = next(f for f in chat.starter_forms if f["id"].endswith("/completable-prompt"))
    assert [a["name"] for a in promote["arguments"]] == ["department", "name"]
    ask = {"type": "complete", "prompt": promote["id"], "argument": "name", "value": ""}
    chat._handlers._dispatch({**ask, "context": {"department": "Sales"}, "request": 1})
    for _ in range(500):
        if customs(wire, "completion"):
            break
        await asyncio.sleep(0.01)
    [answer] = customs(wire, "completion")
    assert answer["values"] == ["David", "Eve", "Frank"]  # narrowed by the context
    fields = {"department": "Sales", "name": "Eve"}
    submit = {"type": "starter_form", "prompt": promote["id"], "fields": fields}
    chat._handlers._dispatch({**submit, "ref": "v-1"})
    for _ in range(500):
        if customs(wire, "accepted"):
            break
        await asyncio.sleep(0.01)
    await settle(chat)
    text = "Please promote Eve to the head of the Sales team."
    assert [m.text for m in chat.thread.messages] == [text, f"echo: {text}"]
    assert customs(wire, "error") == []
    chat.close()
