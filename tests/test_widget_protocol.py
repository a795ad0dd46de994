"""Frontend messages parse to their types (the forged ones: tests/faults/test_comm.py)."""

from __future__ import annotations

from ipygenui.widget._protocol import (
    AlwaysMsg,
    ApproveMsg,
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
