"""Frontend messages are untrusted: every bad one becomes a ProtocolError with a reason."""

from __future__ import annotations

from typing import Any

import pytest

from ipygenui.widget.protocol import (
    AlwaysMsg,
    ApproveMsg,
    ProtocolError,
    RejectMsg,
    SendMsg,
    ToolResultMsg,
    parse_client_message,
)


def test_valid_messages_parse_to_their_types() -> None:
    assert parse_client_message({"type": "send", "text": "hi"}) == SendMsg(type="send", text="hi")
    approve = parse_client_message({"type": "approve", "tool_call_id": "c1", "args": {"n": 1}})
    assert isinstance(approve, ApproveMsg) and approve.args == {"n": 1}
    assert isinstance(parse_client_message({"type": "always", "tool_call_id": "c1"}), AlwaysMsg)
    reject = parse_client_message({"type": "reject", "tool_call_id": "c1", "reason": None})
    assert isinstance(reject, RejectMsg) and reject.reason is None
    result = parse_client_message({"type": "tool_result", "tool_call_id": "c", "result": [1]})
    assert isinstance(result, ToolResultMsg) and result.result == [1]
    for kind in ("cancel", "retry", "hello"):
        assert parse_client_message({"type": kind}).type == kind


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "not an object"),
        ("send", "not an object"),
        ({}, "unknown message type"),
        ({"type": "rm -rf"}, "unknown message type"),
        ({"type": "send"}, "text"),
        ({"type": "send", "text": ""}, "text"),
        ({"type": "send", "text": 5}, "text"),
        ({"type": "send", "text": "x" * 100_001}, "text"),
        ({"type": "approve"}, "tool_call_id"),
        ({"type": "approve", "tool_call_id": ""}, "tool_call_id"),
        ({"type": "approve", "tool_call_id": "c", "args": [1, 2]}, "args"),
        ({"type": "reject", "tool_call_id": "c", "reason": {"x": 1}}, "reason"),
        ({"type": "hello", "extra": 1}, "extra"),
        ({"type": "tool_result", "tool_call_id": "c"}, "result"),
    ],
)
def test_bad_messages_raise_a_readable_protocol_error(content: Any, fragment: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client_message(content)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)
