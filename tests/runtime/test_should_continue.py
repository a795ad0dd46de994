"""gu.should_continue: every branch of assistant-ui's rule."""

from __future__ import annotations

import ipygenui as gu
from ipygenui.messages import (
    Approval,
    Complete,
    Incomplete,
    Message,
    RequiresAction,
    Running,
    ToolCallPart,
)


def call(name: str = "t", *, result: bool = False, approval: str | None = None) -> ToolCallPart:
    return ToolCallPart(
        tool_call_id=f"c_{name}_{approval}_{result}",
        tool_name=name,
        has_result=result,
        result="r" if result else None,
        approval=Approval(status=approval) if approval else None,  # type: ignore[arg-type]
    )


def msg(*parts: ToolCallPart, status: object = None) -> Message:
    return Message(role="assistant", parts=list(parts), status=status or RequiresAction())


def test_only_requires_action_continues() -> None:
    for status in (
        Running(),
        Complete(),
        Incomplete(reason="cancelled"),
        Incomplete(reason="error"),
    ):
        assert not gu.should_continue(msg(call(result=True), status=status))
    assert gu.should_continue(msg(call(result=True)))


def test_pending_approval_stops() -> None:
    assert not gu.should_continue(msg(call("a", result=True), call("b", approval="pending")))


def test_pending_approval_with_a_result_does_not_stop() -> None:
    assert gu.should_continue(msg(call("b", approval="pending", result=True)))


def test_decided_approval_counts_as_resolved_even_for_a_human_tool() -> None:
    assert gu.should_continue(msg(call("h", approval="approved")), human_tool_names=["h"])
    assert gu.should_continue(msg(call("h", approval="rejected")), human_tool_names=["h"])


def test_unanswered_human_tool_stops_but_other_tools_do_not() -> None:
    assert not gu.should_continue(msg(call("h")), human_tool_names=["h"])
    assert gu.should_continue(msg(call("other")), human_tool_names=["h"])
    assert gu.should_continue(msg(call("h", result=True)), human_tool_names=["h"])


def test_all_calls_must_be_resolved() -> None:
    both = msg(call("h", result=True), call("h2"))
    assert not gu.should_continue(both, human_tool_names=["h", "h2"])
    assert gu.should_continue(both, human_tool_names=["h"])


def test_pure_it_changes_nothing() -> None:
    message = msg(call("a", approval="pending"))
    before = message.model_dump()
    gu.should_continue(message, ["a"])
    assert message.model_dump() == before
