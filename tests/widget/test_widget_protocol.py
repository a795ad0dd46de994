"""Frontend messages parse to their types (the forged ones: tests/faults/test_comm.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from ipygenui.widget._protocol import (
    MAX_ID,
    MAX_UPLOAD_NAME,
    A2UIActionMsg,
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


NAMING = [
    lambda name: {"type": "revoke_always", "tool_name": name},
    lambda name: {"type": "regenerate", "message_id": name},
    lambda name: {"type": "switch_thread", "thread_id": name},
    lambda name: {"type": "choose_model", "model": name},
]


def a2ui_action(**names: str) -> dict[str, Any]:
    return {"type": "a2ui_action", "tool_call_id": "c", "surface_id": "s", "component_id": "b"} | (
        names
    )


@pytest.mark.parametrize("message", NAMING)
def test_every_id_the_browser_names_has_one_bound(message: Any) -> None:
    parse_client_message(message("x" * MAX_ID))
    with pytest.raises(ProtocolError):
        parse_client_message(message("x" * (MAX_ID + 1)))


@pytest.mark.parametrize("field", ["surface_id", "component_id"])
def test_an_a2ui_action_s_ids_have_the_same_bound(field: str) -> None:
    A2UIActionMsg.model_validate(a2ui_action(**{field: "x" * MAX_ID}))
    with pytest.raises(ValidationError):
        A2UIActionMsg.model_validate(a2ui_action(**{field: "x" * (MAX_ID + 1)}))


@pytest.mark.parametrize(
    "upload",
    [
        lambda name: {"kind": "file", "name": name, "size": 1, "buffer": 0},
        lambda name: {"kind": "file", "name": "a.txt", "mime": name, "size": 1, "buffer": 0},
        lambda name: {"kind": "data", "name": name},
    ],
)
def test_an_upload_s_names_have_one_bound(upload: Any) -> None:
    send = {"type": "send", "text": "hi"}
    parse_client_message({**send, "attachments": [upload("x" * MAX_UPLOAD_NAME)]})
    with pytest.raises(ProtocolError):
        parse_client_message({**send, "attachments": [upload("x" * (MAX_UPLOAD_NAME + 1))]})
