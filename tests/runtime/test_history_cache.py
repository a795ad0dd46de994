"""The history is built once (issue 36, item 2): what the model receives after
edits, branch switches, regenerate, tool answers and a budget change is what a
fresh build of the active branch gives, and a long thread converts only what
is new at each reply.

The reference is ``to_openai_messages`` of the active branch, built from
nothing, compared with the request the scripted model received.
"""

from __future__ import annotations

from typing import Any

import ipygenui as gu
from ipygenui._internal.message_list import MessageList
from ipygenui._internal.per_message import PerMessage
from ipygenui.messages import Incomplete, Message, TextPart
from ipygenui.models.base import ModelRequest
from ipygenui.models.history import HistoryCache, to_openai_messages
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply


@gu.tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


def _script(request: ModelRequest) -> ScriptedReply:
    last = request.messages[-1]
    if last.get("role") == "tool":
        return ScriptedReply(text="looked up")
    content = last.get("content")
    if isinstance(content, str) and "look" in content:
        return ScriptedReply(tool_calls=[ScriptedCall("lookup", {"q": content})])
    return ScriptedReply(text=f"reply to {content}")


def _runtime() -> tuple[gu.Runtime, ScriptedModel]:
    model = ScriptedModel(_script, record=True)
    return gu.Runtime(model=model, tools=[lookup]), model


def _fresh(rt: gu.Runtime, request: ModelRequest) -> list[dict[str, Any]]:
    """The request's history built from nothing: the active branch before the
    reply (the reply's own steps are not cached, so they are left out)."""
    system = request.messages[0]["content"]
    before = rt.thread.messages[:-1]
    return to_openai_messages(before, system, max_result_chars=rt.max_result_chars)


def _before_reply(request: ModelRequest, rt: gu.Runtime) -> list[dict[str, Any]]:
    """The request's messages without those of the reply being written."""
    return request.messages[: len(_fresh(rt, request))]


async def _check_last(rt: gu.Runtime, model: ScriptedModel) -> None:
    request = model.requests[-1]
    assert _before_reply(request, rt) == _fresh(rt, request)


async def test_edit_switch_regenerate_send_the_active_branch() -> None:
    rt, model = _runtime()
    for text in ("one", "look up two", "three", "four"):
        await rt.send(text)
        await _check_last(rt, model)
    second = rt.thread.messages[2]  # "look up two"
    await rt.edit(second.id, "an edited two")
    await _check_last(rt, model)
    assert [m["content"] for m in model.requests[-1].messages if m["role"] == "user"] == [
        "one",
        "an edited two",
    ]
    await rt.send("five")
    await _check_last(rt, model)
    rt.switch_branch(rt.thread.messages[2].id, 0)  # back to "look up two" and what followed
    await rt.send("six")
    await _check_last(rt, model)
    users = [m["content"] for m in model.requests[-1].messages if m["role"] == "user"]
    assert users == ["one", "look up two", "three", "four", "six"]
    await rt.regenerate()
    await _check_last(rt, model)
    assert model.requests[-1].messages[-1] == {"role": "user", "content": "six"}


async def test_a_long_thread_converts_only_the_new_messages() -> None:
    rt, _ = _runtime()
    for n in range(40):
        await rt.send(f"look {n}" if n % 3 == 0 else f"hello {n}")
    cache: HistoryCache = rt._run_loop.history
    before = cache.built
    await rt.send("hello again")
    assert cache.built - before == 2  # the previous reply and the new user message


async def test_a_budget_change_rebuilds_every_result() -> None:
    rt, model = _runtime()
    await rt.send("look up a long one " + "x" * 50)
    rt.max_result_chars = 10
    await rt.send("next")
    await _check_last(rt, model)
    tool = next(m for m in model.requests[-1].messages if m["role"] == "tool")
    assert "more characters not shown" in tool["content"]


def test_an_unsettled_message_changed_in_place_is_built_again() -> None:
    cache = HistoryCache()
    stopped = Message(
        role="assistant", parts=[TextPart(text="half")], status=Incomplete(reason="cancelled")
    )
    done = Message(role="assistant", parts=[TextPart(text="whole")])
    thread = [Message(role="user", parts=[TextPart(text="hi")]), stopped, done]
    assert cache.messages(thread) == to_openai_messages(thread)
    stopped.parts[0].text = "half, then more"  # a late write into a stopped reply
    assert cache.messages(thread) == to_openai_messages(thread)
    thread[2] = Message(role="assistant", parts=[TextPart(text="another version")])
    assert cache.messages(thread) == to_openai_messages(thread)
    assert cache.messages(thread[:1]) == to_openai_messages(thread[:1])


def test_per_message_values_follow_identity_and_unsettled_keys() -> None:
    seen: list[str] = []

    def compute(message: Message) -> str:
        seen.append(message.text)
        return message.text

    cache = PerMessage(compute)
    a = Message(role="user", parts=[TextPart(text="a")])
    b = Message(role="assistant", parts=[TextPart(text="b")], status=Incomplete(reason="error"))
    assert cache.values([a, b]) == ["a", "b"]
    assert cache.values([a, b]) == ["a", "b"] and seen == ["a", "b"]  # nothing again
    b.parts.append(TextPart(text="!"))
    assert cache.values([a, b]) == ["a", "b!"]
    c = Message(role="user", parts=[TextPart(text="c")])
    assert cache.values([c, b]) == ["c", "b!"]
    assert seen == ["a", "b", "b!", "c", "b!"]


def _said(text: str) -> Message:
    return Message(role="user", parts=[TextPart(text=text)])


def test_a_threads_list_is_checked_by_its_revision_and_every_change_is_seen() -> None:
    thread = gu.Thread(messages=[_said(str(i)) for i in range(6)])
    messages = thread.messages
    assert isinstance(messages, MessageList)
    cache = HistoryCache()

    def same_as_fresh(stop: int | None = None) -> bool:
        built = cache.messages(messages, stop=stop)
        return built == to_openai_messages(list(messages)[:stop])

    assert same_as_fresh()
    messages.append(_said("appended"))
    before = cache.built
    assert same_as_fresh() and cache.built - before == 1  # only the new one
    # every other kind of change moves the revision: what it touched is built again
    changes = [
        lambda: messages.__setitem__(2, _said("set")),
        lambda: messages.__setitem__(slice(1, 3), [_said("s1"), _said("s2"), _said("s3")]),
        lambda: messages.__delitem__(0),
        lambda: messages.insert(1, _said("inserted")),
        lambda: messages.pop(2),
        lambda: messages.remove(messages[1]),
        lambda: messages.reverse(),
        lambda: messages.sort(key=lambda m: m.text),
        lambda: messages.__imul__(1),
    ]
    for change in changes:
        revision = messages.revision
        change()
        assert messages.revision > revision
        assert same_as_fresh()
    assert same_as_fresh(stop=2) and same_as_fresh()
    messages.clear()
    assert same_as_fresh()


def test_a_thread_keeps_its_list_through_a_file_and_a_copy() -> None:
    thread = gu.Thread(messages=[_said("a")])
    assert isinstance(gu.Thread().messages, MessageList)
    assert isinstance(gu.Thread.model_validate(thread.model_dump()).messages, MessageList)
    copied = thread.model_copy(deep=True)
    assert isinstance(copied.messages, MessageList) and copied.messages is not thread.messages
    assert thread.model_dump_json() == copied.model_dump_json()
