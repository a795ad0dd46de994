"""Switching model mid-thread (``rt.model = ...``, ``chat.model = ...``) and the
models a chat offers (``models=[...]``, the header's picker).

The request to the new provider must be valid for it: no other provider's
data, every call answered. The local OpenAI-compatible server
(``tests/openai_server.py``) answers as OpenAI does (``refuse_missing="openai"``:
HTTP 400 with OpenAI's own text for a field it does not know, such as
Gemini's ``extra_content``, or a call left without its tool message).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.models.base import ModelDelta, ReasoningDelta, ToolCallDelta
from ipygenui.models.demo import DemoModel
from ipygenui.models.openai import OpenAIModel
from ipygenui.models.scripted import ScriptedReply
from ipygenui.runtime._model_choices import SAVED_CHOICE
from ipygenui.testing import ScriptedCall, ScriptedModel
from openai_server import OpenAIServer, Reply

GEMINI = "google-gla"
SIGNED = {GEMINI: {"thought_signature": "c2lnLWZyb20tZ2VtaW5p"}}


@gu.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@gu.tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Deletes a file."""
    return f"deleted {path}"


class GeminiLike(ScriptedModel):
    """A scripted model whose calls and reasoning carry Gemini-keyed provider
    data, as a native Gemini adapter leaves them on the parts."""

    provider_key = GEMINI

    def _deltas(self, reply: ScriptedReply) -> Iterator[ModelDelta]:
        for delta in super()._deltas(reply):
            if isinstance(delta, ToolCallDelta) and delta.id is not None:
                yield replace(delta, provider_data=SIGNED)
            elif isinstance(delta, ReasoningDelta):
                yield replace(delta, provider_data={GEMINI: {"signature": "thought-sig"}})
            else:
                yield delta


def openai_at(server: OpenAIServer) -> OpenAIModel:
    return OpenAIModel("gpt-4o-mini", base_url=server.base_url, api_key="k", max_retries=0)


def leaked(request: dict[str, Any]) -> list[str]:
    wire = json.dumps(request)
    return [
        word
        for word in ("extra_content", "thought_signature", "thought-sig", "_provider_data")
        if word in wire
    ]


async def wait_until(condition: Any, turns: int = 400) -> None:
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the condition never held")


# --- rt.model and chat.model --------------------------------------------------


async def test_the_next_reply_uses_the_model_set_on_the_runtime() -> None:
    alpha = ScriptedModel(default="from alpha", name="alpha")
    beta = ScriptedModel(default="from beta", name="beta")
    rt = gu.Runtime(model=alpha)
    first = await rt.send("hi")
    rt.model = beta
    second = await rt.send("hi again")
    assert (first.text, second.text) == ("from alpha", "from beta")
    assert (first.metadata["model"], second.metadata["model"]) == ("alpha", "beta")
    assert rt.model is beta
    assert beta.requests[0].messages[-2]["content"] == "from alpha"  # it reads the thread


async def test_a_name_is_made_as_model_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = gu.Runtime(model=ScriptedModel(default="x"))
    rt.model = "demo"
    assert isinstance(rt.model, DemoModel)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    rt.model = "openai:gpt-4.1-nano"
    assert isinstance(rt.model, OpenAIModel) and rt.model.spec == "openai:gpt-4.1-nano"


@pytest.mark.parametrize("value", [3, "gpt-4o", object()])
def test_a_wrong_model_gets_the_error_model_argument_gives(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as given:
        gu.Runtime(model=value)
    rt = gu.Runtime(model="demo")
    with pytest.raises(type(given.value)) as set_later:
        rt.model = value
    assert str(set_later.value) == str(given.value)
    assert isinstance(rt.model, DemoModel)  # unchanged
    chat = gu.Chat(model="demo")
    with pytest.raises(type(given.value)) as on_chat:
        chat.model = value
    assert str(on_chat.value) == str(given.value).replace("Runtime(", "Chat(")
    chat.close()


async def test_a_run_in_progress_keeps_its_model() -> None:
    alpha = ScriptedModel(
        [ScriptedCall("add", {"a": 1, "b": 2}), "alpha says 3"], name="alpha", delay=0.002
    )
    beta = ScriptedModel(default="from beta", name="beta")
    rt = gu.Runtime(model=alpha, tools=[add])
    run = rt.send("1 + 2?")
    await wait_until(lambda: alpha.request_count == 1)
    rt.model = beta  # mid-stream: the run's second step is alpha's too
    message = await run
    assert message.text == "alpha says 3"
    assert (alpha.request_count, beta.request_count) == (2, 0)
    assert message.metadata["model"] == "alpha"
    assert (await rt.send("next")).text == "from beta"


async def test_chat_model_is_the_runtimes_and_the_header_follows() -> None:
    alpha = ScriptedModel(default="x", name="alpha")
    chat = gu.Chat(model=alpha)
    assert chat.model is chat.runtime.model is alpha
    assert (chat.model_name, chat.offline) == ("alpha", True)
    chat.model = "demo"
    assert chat.runtime.model is chat.model
    assert (chat.model_name, chat.offline) == ("offline demo", True)
    chat.runtime.model = OpenAIModel("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert (chat.model_name, chat.offline, chat.model_choice) == ("gpt-4o-mini", False, "")
    chat.close()


# --- the request to the new provider is valid for it -----------------------------


async def test_a_switch_sends_the_new_provider_none_of_the_old_ones_data(
    openai_server: OpenAIServer,
) -> None:
    gemini = GeminiLike(
        [
            ScriptedReply(reasoning="add them", tool_calls=[ScriptedCall("add", {"a": 1, "b": 2})]),
            "It is 3.",
        ],
        name="gemini-like",
    )
    rt = gu.Runtime(model=gemini, tools=[add])
    await rt.send("1 + 2?")
    call = rt.thread.messages[1].tool_calls[0]
    assert call.provider_data == SIGNED  # kept on the part, for Gemini
    openai_server.script(Reply(text="From OpenAI.", refuse_missing="openai"))
    rt.model = openai_at(openai_server)
    reply = await rt.send("and 2 + 2?")
    assert reply.text == "From OpenAI.", reply.status
    (request,) = openai_server.requests
    assert leaked(request) == []
    calls = [m for m in request["messages"] if m.get("tool_calls")]
    assert [c["id"] for c in calls[0]["tool_calls"]] == [call.tool_call_id]
    # and back to Gemini: its own data goes back to it
    rt.model = gemini
    gemini.script = ["Still 3."]
    gemini._next = 0
    await rt.send("again?")
    sent = gemini.requests[-1].messages
    assert any(c.get("_provider_data") == SIGNED for m in sent for c in m.get("tool_calls", []))


async def test_a_call_waiting_for_approval_is_answered_for_the_new_model(
    openai_server: OpenAIServer,
) -> None:
    gemini = GeminiLike([ScriptedCall("delete_file", {"path": "a.txt"})], name="gemini-like")
    rt = gu.Runtime(model=gemini, tools=[delete_file])
    waiting = await rt.send("delete a.txt")
    assert rt.phase == "waiting"
    rt.model = openai_at(openai_server)  # the call still waits; the user decides
    assert rt.phase == "waiting"
    openai_server.script(Reply(text="Deleted.", refuse_missing="openai"))
    run = rt.approve(waiting.tool_calls[0].tool_call_id)
    assert run is not None
    assert (await run).text == "Deleted."
    (request,) = openai_server.requests
    assert leaked(request) == []
    tool = [m for m in request["messages"] if m["role"] == "tool"]
    assert tool[0]["content"] == "deleted a.txt"


async def test_a_call_rejected_after_the_switch_reaches_the_new_model_answered(
    openai_server: OpenAIServer,
) -> None:
    gemini = GeminiLike([ScriptedCall("delete_file", {"path": "a.txt"})], name="gemini-like")
    rt = gu.Runtime(model=gemini, tools=[delete_file])
    waiting = await rt.send("delete a.txt")
    rt.model = openai_at(openai_server)
    openai_server.script(Reply(text="Kept it.", refuse_missing="openai"))
    run = rt.reject(waiting.tool_calls[0].tool_call_id, "keep it")
    assert run is not None
    assert (await run).text == "Kept it."
    (request,) = openai_server.requests
    assert leaked(request) == []
    (tool,) = [m for m in request["messages"] if m["role"] == "tool"]
    assert "keep it" in tool["content"]


async def test_a_call_left_waiting_then_a_new_message_reaches_the_new_model_answered(
    openai_server: OpenAIServer,
) -> None:
    gemini = GeminiLike([ScriptedCall("delete_file", {"path": "a.txt"})], name="gemini-like")
    rt = gu.Runtime(model=gemini, tools=[delete_file])
    await rt.send("delete a.txt")
    rt.model = openai_at(openai_server)
    openai_server.script(Reply(text="Not deleted, then.", refuse_missing="openai"))
    assert (await rt.send("never mind")).text == "Not deleted, then."
    (request,) = openai_server.requests
    assert leaked(request) == []
    (tool,) = [m for m in request["messages"] if m["role"] == "tool"]
    assert "new message" in tool["content"]


async def test_an_interrupted_run_reaches_the_new_model_answered(
    openai_server: OpenAIServer,
) -> None:
    gemini = GeminiLike(
        [ScriptedCall("add", {"a": 1, "b": 2, "note": "x" * 400})], name="gemini-like", delay=0.002
    )
    rt = gu.Runtime(model=gemini, tools=[add])
    run = rt.send("1 + 2?")
    await wait_until(lambda: bool(rt.thread.messages[-1].tool_calls))
    rt.cancel()  # mid-arguments: the call never ran
    await run
    rt.model = openai_at(openai_server)
    openai_server.script(Reply(text="Fresh start.", refuse_missing="openai"))
    assert (await rt.send("try again")).text == "Fresh start."
    (request,) = openai_server.requests
    assert leaked(request) == []
    assert [m["role"] for m in request["messages"]].count("tool") == 1


async def test_a_run_saved_mid_stream_reaches_the_new_model_answered(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """The kernel died mid-run: the file holds a call with no result."""
    path = tmp_path / "t.json"
    gemini = GeminiLike([ScriptedCall("add", {"a": 1, "b": 2})], name="gemini-like")
    rt = gu.Runtime(model=gemini, tools=[add], persist=path)
    await rt.send("1 + 2?")
    saved = json.loads(path.read_text(encoding="utf-8"))
    reply = saved["thread"]["messages"][-1]
    reply["status"] = {"type": "running"}
    for part in reply["parts"]:
        part.pop("result", None)
        part.pop("is_error", None)
    path.write_text(json.dumps(saved), encoding="utf-8")
    openai_server.script(Reply(text="Recovered.", refuse_missing="openai"))
    loaded = gu.Runtime(model=openai_at(openai_server), tools=[add], persist=path)
    assert (await loaded.send("where were we?")).text == "Recovered."
    assert leaked(openai_server.requests[0]) == []


# --- models=[...] ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("models", "error", "says"),
    [
        ("demo", TypeError, "takes a list"),
        ([], ValueError, "at least one"),
        (["demo", "demo"], ValueError, "lists 'demo' twice"),
        (["gpt-4o"], ValueError, "item 0: model name 'gpt-4o' needs a provider"),
        (["demo", 3], TypeError, "item 1: "),
        ([None], TypeError, "item 0 is None"),
    ],
)
def test_a_wrong_models_list_says_which_item(models: Any, error: type, says: str) -> None:
    for owner in (gu.Runtime, gu.Chat):
        with pytest.raises(error, match=f"{owner.__name__}\\(models=\\.\\.\\.\\)") as raised:
            owner(models=models)
        assert says in str(raised.value)


def test_listed_names_are_made_only_when_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rt = gu.Runtime(models=["demo", "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"])
    assert rt.models == ["demo", "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"]
    assert isinstance(rt.model, DemoModel) and rt.model_choice == "demo"
    assert rt.model_choices[1:] == [
        {"id": "openai:gpt-4o-mini", "name": "gpt-4o-mini", "provider": "openai"},
        {"id": "anthropic:claude-sonnet-4-5", "name": "claude-sonnet-4-5", "provider": "anthropic"},
    ]
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    rt.model = "openai:gpt-4o-mini"
    made = rt.model
    rt.model = "demo"
    rt.model = "openai:gpt-4o-mini"
    assert rt.model is made  # made once


def test_model_picks_the_first_and_defaults_to_the_first_listed() -> None:
    alpha = ScriptedModel(default="a", name="alpha")
    beta = ScriptedModel(default="b", name="beta")
    assert gu.Runtime(models=[alpha, beta]).model is alpha
    assert gu.Runtime(models=[alpha, beta], model="beta").model is beta
    rt = gu.Runtime(models=[alpha, beta], model=beta)
    assert rt.model is beta and rt.model_choice == "beta"
    gamma = ScriptedModel(default="c", name="gamma")
    other = gu.Runtime(models=[alpha, beta], model=gamma)  # not listed: listed first
    assert other.models == ["gamma", "alpha", "beta"] and other.model_choice == "gamma"


async def test_the_choice_is_saved_with_the_thread_and_restored(tmp_path: Path) -> None:
    path = tmp_path / "t.json"

    def models() -> list[Any]:
        return [
            ScriptedModel(default="from alpha", name="alpha"),
            "demo",
            ScriptedModel(default="from beta", name="beta"),
        ]

    rt = gu.Runtime(models=models(), persist=path)
    rt.model = "beta"
    saved = json.loads(path.read_text(encoding="utf-8"))["thread"]["metadata"]
    assert saved[SAVED_CHOICE] == "beta"
    await rt.send("hi")
    chat = gu.Chat(models=models(), persist=path)
    assert chat.runtime.model_choice == "beta" and chat.model.name == "beta"
    assert (chat.model_choice, chat.model_name) == ("beta", "beta")
    assert [c["id"] for c in chat.model_choices] == ["alpha", "demo", "beta"]
    chat.close()
    # a list without the saved choice: the default stays
    fewer = gu.Runtime(models=[ScriptedModel(default="x", name="alpha"), "demo"], persist=path)
    assert fewer.model_choice == "alpha"


async def test_each_thread_keeps_its_choice(tmp_path: Path) -> None:
    alpha = ScriptedModel(default="from alpha", name="alpha")
    beta = ScriptedModel(default="from beta", name="beta")
    rt = gu.Runtime(models=[alpha, beta], persist=f"{tmp_path}/threads/")
    await rt.send("in the first thread")
    first = rt.thread.id
    rt.new_thread()
    rt.model = "beta"
    assert (await rt.send("in the second")).text == "from beta"
    rt.switch_thread(first)
    assert rt.model is alpha
    assert (await rt.send("back")).text == "from alpha"


async def test_a_choice_from_the_widget_applies_to_the_next_reply(wire: Any) -> None:
    from comm_helpers import click, customs

    alpha = ScriptedModel(default="from alpha", name="alpha")
    beta = ScriptedModel(default="from beta", name="beta")
    chat = gu.Chat(models=[alpha, beta])
    assert chat.model_choices == [
        {"id": "alpha", "name": "alpha", "provider": "offline"},
        {"id": "beta", "name": "beta", "provider": "offline"},
    ]
    click(chat, {"type": "choose_model", "model": "beta"})
    await asyncio.sleep(0)
    assert chat.model is beta and chat.model_choice == "beta" and chat.model_name == "beta"
    assert customs(wire, "error") == []
    assert (await chat.send("hi")).text == "from beta"
    chat.close()
