"""``gu.Chat`` drives its runtime with the runtime's own methods.

Faults tried:
- a Chat method re-declared by hand that drifts from the Runtime's (a lost
  keyword such as ``add_tool_result(..., is_error=)``, another default, a
  stale docstring);
- a new public Runtime method, property or setting that Chat silently lacks
  (every one is either on Chat or in the one list below, with the reason);
- ``Chat.send`` typed as returning a Run while its dict form (ipywidgets'
  custom message) returns None.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm

import ipygenui as gu
from ipygenui.runtime.arguments import renamed_attribute, renamed_method
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget.chat import Chat

RUNTIME_ONLY = {
    # methods
    "run_sync": "a notebook always runs an event loop, so Chat.run_sync could only raise: "
    "await chat.send(...) there, or chat.runtime.run_sync(...) in a script",
    "subscribe": "listener plumbing: chat.runtime.subscribe(...)",
    "subscribe_agui": "listener plumbing: chat.runtime.subscribe_agui(...)",
    "agui_events": "listener plumbing: chat.runtime.agui_events()",
    "ag_ui_app": "serving over HTTP is the runtime's: chat.runtime.ag_ui_app()",
    "set_state": "deprecated (Runtime.set_agent_state); on Chat the name is ipywidgets'",
    "always_approved": "deprecated (Runtime.always_allowed, on Chat the trait of that name)",
    # properties
    "tools": "the tool objects: chat.runtime.tools",
    "current_suggestions": "Chat's synced trait is suggestions",
    "human_tool_names": "Chat's synced trait is human_tools",
    # attributes set in Runtime.__init__: the run's settings, read through chat.runtime
    "agent": "chat.runtime.agent",
    "components": "chat.runtime.components",
    "instructions": "chat.runtime.instructions",
    "suggestions": "chat.runtime.suggestions (a flag); Chat's trait of that name lists them",
    "max_steps": "chat.runtime.max_steps",
    "max_run_seconds": "chat.runtime.max_run_seconds",
    "max_result_chars": "chat.runtime.max_result_chars",
    "tool_choice": "chat.runtime.tool_choice",
    "persist": "chat.runtime.persist",
}
"""The one list of Runtime's public members that Chat deliberately leaves to
``chat.runtime`` (every other one is on Chat: forwarded, or a synced trait of
the same name), each with the reason."""

RETURNS_OWN_CLASS = {"load"}

WIDGET_MEANING = {
    "close": "Chat.close is the widget's close (ipywidgets), which also closes its runtime",
}
"""Methods Chat has as a widget already, documented as such, that also call the runtime's."""


def public_methods(cls: type) -> dict[str, Any]:
    """Methods, an old name kept for one release (``renamed_method``) among them."""
    return {
        name: getattr(cls, name)
        for name, raw in vars(cls).items()
        if not name.startswith("_")
        and not isinstance(raw, property)
        and (isinstance(raw, renamed_method) or callable(getattr(cls, name)))
    }


def public_properties(cls: type) -> set[str]:
    """Properties, an old name kept for one release (``renamed_attribute``) among them."""
    return {
        n
        for n, raw in vars(cls).items()
        if not n.startswith("_") and (isinstance(raw, property) or type(raw) is renamed_attribute)
    }


def parameters(func: Any) -> list[inspect.Parameter]:
    """The parameters after ``self`` / ``cls``."""
    params = list(inspect.signature(func).parameters.values())
    bound = inspect.ismethod(func)  # a classmethod read from its class has cls bound
    return params if bound else params[1:]


class QuietComm(BaseComm):
    sent: typing.ClassVar[list[Any]] = []

    def publish_msg(self, msg_type: str, data: Any = None, *args: Any, **kwargs: Any) -> None:
        self.sent.append(data or {})


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    sent: list[Any] = []
    monkeypatch.setattr(QuietComm, "sent", sent)
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: QuietComm(*a, **k))
    yield sent


def test_every_public_runtime_method_is_on_chat_with_the_same_signature(wire: Any) -> None:
    runtime_methods = public_methods(gu.Runtime)
    assert {"send", "approve", "add_tool_result", "run_sync"} <= set(runtime_methods)
    chat = Chat(model=ScriptedModel(["ok"]))
    for name, method in runtime_methods.items():
        if name in RUNTIME_ONLY:
            continue
        assert hasattr(Chat, name), f"Chat lacks Runtime.{name}"
        if name == "send":  # Chat.send also carries ipywidgets' dict form: see below
            chat_side: Any = typing.get_overloads(Chat.send)[0]
        else:
            chat_side = getattr(Chat, name)
        assert parameters(chat_side) == parameters(method), name
        if name not in RETURNS_OWN_CLASS:
            assert (
                inspect.signature(chat_side).return_annotation
                == inspect.signature(method).return_annotation
            ), name
        if name not in {"send", *RETURNS_OWN_CLASS}:  # what chat.<name>? shows in a notebook
            bound = getattr(chat, name)
            assert inspect.signature(bound) == inspect.signature(getattr(chat.runtime, name)), name
            if name not in WIDGET_MEANING:
                assert inspect.getdoc(bound) == inspect.getdoc(method), name
    chat.close()


def runtime_members() -> dict[str, str]:
    """Runtime's public members: name -> "method", "property" or "attribute"
    (the attributes ``__init__`` sets, read from an instance)."""
    members = {name: "method" for name in public_methods(gu.Runtime)}
    members.update((name, "property") for name in public_properties(gu.Runtime))
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    members.update((n, "attribute") for n in vars(rt) if not n.startswith("_"))
    return members


def test_runtime_only_members_are_a_listed_decision() -> None:
    members = runtime_members()
    chat_names = set(vars(Chat))
    for name in RUNTIME_ONLY:
        assert name in members, f"{name} is no Runtime member: drop it from RUNTIME_ONLY"
        if name != "suggestions":  # the one same-named trait with another meaning (above)
            assert name not in chat_names, f"Chat.{name} exists: drop it from RUNTIME_ONLY"


def test_every_public_runtime_member_is_on_chat_or_listed() -> None:
    """A new verb, property or setting of Runtime fails here until Chat
    forwards it or RUNTIME_ONLY says why not."""
    chat_names = set(vars(Chat))  # Chat's own: a widget method of the same name is no forwarder
    missing = [n for n in runtime_members() if n not in RUNTIME_ONLY and n not in chat_names]
    assert missing == [], f"Chat lacks Runtime.{missing}: forward it or list it in RUNTIME_ONLY"


def test_chat_forwards_the_runtime_s_own_objects(wire: Any) -> None:
    chat = Chat(model=ScriptedModel(["ok"]), data={"t": [1, 2]})
    rt = chat.runtime
    for name in ("thread", "model", "data", "agent_state", "threads", "models"):
        assert getattr(chat, name) == getattr(rt, name), name
    assert chat.thread is rt.thread and chat.data is rt.data
    assert chat.agent_state is rt.agent_state
    chat.close()


@gu.tool(human=True)
def ask_user(question: str) -> str:
    """Ask the user."""
    raise AssertionError("a human tool's body never runs")


async def test_chat_add_tool_result_can_answer_with_an_error(wire: Any) -> None:
    chat = Chat(
        model=ScriptedModel([ScriptedCall("ask_user", {"question": "sure?"}), "Fine."]),
        tools=[ask_user],
    )
    waiting = await chat.send("go")
    part = waiting.tool_calls[0]
    run = chat.add_tool_result(part.tool_call_id, "the user walked away", is_error=True)
    assert run is not None
    message = await run
    assert part.is_error and part.result == "the user walked away"
    assert message.text == "Fine."
    chat.close()


async def test_chat_send_has_a_str_form_and_a_dict_form(wire: Any) -> None:
    text_form, dict_form = typing.get_overloads(Chat.send)
    hints = typing.get_type_hints(text_form)
    assert hints["text"] is str and hints["return"] is gu.Run
    hints = typing.get_type_hints(dict_form)
    assert typing.get_origin(hints["content"]) is dict and hints["return"] is type(None)

    chat = Chat(model=ScriptedModel(["ok"]))
    assert chat.send({"type": "custom"}) is None
    assert {"method": "custom", "content": {"type": "custom"}} in wire
    run = chat.send("hi")
    assert isinstance(run, gu.Run)
    assert (await run).text == "ok"
    with pytest.raises(TypeError, match="buffers"):
        chat.send("hi", buffers=[b"x"])  # type: ignore[call-overload]
    chat.close()
