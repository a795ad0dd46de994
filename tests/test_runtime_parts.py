"""The runtime's parts on their own: ending a message, the identical-call count,
the tool schema with standard parameters, suggestions that fail, the event fan-out."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import ipygenui as gu
from ipygenui._internal.standard_params import STATUS_PARAM, with_standard_parameters
from ipygenui._loop.ending import end_message
from ipygenui._loop.run_events import RunEvents
from ipygenui._loop.suggestions import ask_for_suggestions
from ipygenui._loop.tool_runner import identical_calls_before
from ipygenui.events import MessageReplaced, ThreadEvent
from ipygenui.messages import Approval, Incomplete, Message, TextPart, Thread, ToolCallPart
from ipygenui.testing import ScriptedModel, ScriptedReply


def _call(call_id: str, name: str = "t", args: dict[str, Any] | None = None) -> ToolCallPart:
    return ToolCallPart(tool_call_id=call_id, tool_name=name, args=args or {})


def test_end_message_answers_open_calls_and_rejects_pending_approvals() -> None:
    done = _call("a")
    done.result, done.has_result = "ok", True
    pending = _call("b")
    pending.approval = Approval(status="pending")
    open_call = _call("c")
    message = Message(
        role="assistant", parts=[done, pending, open_call], metadata={"steps": [{"start": 0}]}
    )
    answered: list[str] = []

    def answer(part: ToolCallPart, result: Any, is_error: bool) -> None:
        answered.append(part.tool_call_id)
        part.result, part.has_result, part.is_error = result, True, is_error

    end_message(message, Incomplete(reason="cancelled", error="stopped"), answer)

    assert answered == ["b", "c"]  # the call that had its result keeps it
    assert done.result == "ok"
    assert pending.approval == Approval(status="rejected", reason="stopped")
    assert open_call.result == {"error": "stopped"} and open_call.is_error
    assert all(p.args_complete for p in (done, pending, open_call))
    assert message.metadata["steps"][0]["end"] == 3


def test_identical_calls_count_only_earlier_calls_of_the_same_tool_and_arguments() -> None:
    parts = [_call("1", args={"x": 1, "y": 2}), _call("2", "other", {"x": 1, "y": 2})]
    parts += [_call("3", args={"y": 2, "x": 1}), _call("4", args={"x": 1, "y": 2})]
    message = Message(role="assistant", parts=parts)
    assert identical_calls_before(message, parts[0], {"x": 1, "y": 2}) == 0
    assert identical_calls_before(message, parts[3], {"x": 1, "y": 2}) == 2  # key order ignored


def test_openai_schema_with_standard_parameters_leaves_the_tool_schema_alone() -> None:
    @gu.tool
    def weather(city: str) -> str:
        return city

    plain = weather.openai_schema()
    full = weather.openai_schema(standard_parameters=True)
    assert full["function"]["parameters"] == with_standard_parameters(weather.parameters_schema)
    assert STATUS_PARAM not in plain["function"]["parameters"]["properties"]
    assert STATUS_PARAM not in weather.parameters_schema["properties"]


async def test_failing_suggestions_give_none_and_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel([ScriptedReply(error="provider down")])
    thread = Thread(messages=[Message(role="user", parts=[TextPart(text="hi")])])
    with caplog.at_level(logging.WARNING, logger="ipygenui"):
        assert await ask_for_suggestions(model, thread, None) is None
    assert "suggestions failed" in caplog.text


def test_a_broken_listener_does_not_stop_the_others() -> None:
    events = RunEvents()
    seen: list[ThreadEvent] = []

    def broken(event: ThreadEvent) -> None:
        raise RuntimeError("view bug")

    events.subscribe(broken)
    unsubscribe = events.subscribe(seen.append)
    message = Message(role="assistant")
    events.replace(message)
    unsubscribe()
    events.replace(message)
    assert seen == [MessageReplaced(message)]
