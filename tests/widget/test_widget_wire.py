"""The wire contract, replayed from ``tests/fixtures/wire.json``.

``js/test/protocol.test.js`` replays the same file in the browser.

The kernel side must produce what the fixture holds: the accumulator's patch
ops for a scripted stream, the frames the widget sends for them, every
kernel -> browser message its constructors build; and it must accept every
browser -> kernel message the fixture holds (the browser builds them). The
browser side applies the same ops and frames and must reach the same message.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from ipygenui._internal.patch_ops import PatchOp
from ipygenui._internal.standard_params import STANDARD_PARAMETERS
from ipygenui.messages import Message, Running
from ipygenui.models.base import ModelDelta, ReasoningDelta, TextDelta, ToolCallDelta
from ipygenui.runtime._loop.accumulator import Accumulator
from ipygenui.widget._protocol import (
    MAX_ATTACHMENTS,
    MAX_ERROR,
    MAX_FILTER,
    MAX_UPLOAD_BYTES,
    MAX_WINDOW,
    SERVER_MESSAGES,
    WIRE_LIMITS,
    AcceptedMessage,
    CompleteMsg,
    DataWindowMsg,
    ErrorMessage,
    ModuleMessage,
    accepted_message,
    completion_message,
    component_call,
    component_output_message,
    data_window_message,
    error_message,
    message_for_browser,
    message_type,
    module_message,
    ops_for_browser,
    parse_client_message,
    snapshot_message,
)
from ipygenui.widget._sync import FrameCoalescer

FIXTURE = pathlib.Path(__file__).parents[1] / "fixtures" / "wire.json"
WIRE: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))


def delta(raw: dict[str, Any]) -> ModelDelta | None:
    """A fixture delta; None for the step's end."""
    if "text" in raw:
        return TextDelta(raw["text"])
    if "reasoning" in raw:
        return ReasoningDelta(raw["reasoning"])
    if "tool_call" in raw:
        return ToolCallDelta(**raw["tool_call"])
    assert raw == {"finish_step": True}
    return None


class _NoTimer:
    def cancel(self) -> None:
        pass


def replay_stream() -> dict[str, Any]:
    """Run the fixture's deltas through the accumulator and the frame coalescer,
    one frame per group of deltas, as the widget does."""
    stream = WIRE["stream"]
    message = Message(id="msg_wire", role="assistant", status=Running(), created_at=0.0)
    start = message_for_browser(message)
    acc = Accumulator(message, {})
    frames: list[dict[str, Any]] = []
    coalescer = FrameCoalescer(
        frames.append,
        lambda _d, _f: _NoTimer(),
        lambda: 0.0,
        prepare=lambda _id, ops: ops_for_browser(ops, message),  # as the widget does
    )
    ops: list[list[PatchOp]] = []
    for group in stream["deltas"]:
        for raw in group:
            d = delta(raw)
            step = acc.finish() if d is None else acc.apply(d)
            ops.append(step)
            coalescer.add(message.id, step)
        coalescer.flush()
    acc.materialize()
    return {"message": start, "ops": ops, "frames": frames, "message_after_ops": message}


def test_standard_parameter_names_are_the_kernels() -> None:
    assert WIRE["standard_params"] == list(STANDARD_PARAMETERS)


def test_the_limits_are_the_kernels_and_reach_the_view_in_a_trait() -> None:
    # Defined once (WIRE_LIMITS); the browser reads them from the trait, not a copy.
    from ipygenui.testing import ScriptedModel
    from ipygenui.widget.chat import Chat

    assert WIRE["limits"] == WIRE_LIMITS
    assert WIRE_LIMITS["max_upload_bytes"] == MAX_UPLOAD_BYTES
    assert WIRE_LIMITS["max_attachments"] == MAX_ATTACHMENTS
    assert WIRE_LIMITS["max_window"] == MAX_WINDOW
    assert WIRE_LIMITS["max_filter"] == MAX_FILTER
    chat = Chat(model=ScriptedModel(["ok"]))
    try:
        assert chat.limits == WIRE_LIMITS
        assert chat.get_state()["limits"] == WIRE_LIMITS
    finally:
        chat.close()


def test_the_accumulator_produces_the_fixture_ops_and_message() -> None:
    got = replay_stream()
    stream = WIRE["stream"]
    assert got["message"] == stream["message"]
    assert got["ops"] == stream["ops"]
    assert got["message_after_ops"].model_dump(mode="json") == stream["message_after_ops"]


def test_the_widget_sends_the_fixture_frames() -> None:
    assert replay_stream()["frames"] == WIRE["stream"]["frames"]


def test_the_frames_rebuild_the_message_with_its_components_names() -> None:
    # what a view holds once the frames are applied: the message, plus the names
    # the browser reads on a components' call (and never derives)
    message = replay_stream()["message_after_ops"]
    expected = message.model_dump(mode="json")
    for raw in expected["parts"]:
        if raw["type"] == "tool-call":
            names = component_call(raw["tool_name"], raw["tool_call_id"])
            if names is not None:
                raw["component_call"] = names
    assert expected == WIRE["stream"]["result"]
    assert any("component_call" in p for p in expected["parts"])  # the fixture covers the names


def test_kernel_messages_are_built_as_the_fixture_holds() -> None:
    to_browser = WIRE["to_browser"]
    result = WIRE["stream"]["result"]
    last_seq = WIRE["stream"]["frames"][-1]["seq"]
    assert (
        snapshot_message(last_seq, [{"message": result, "rev": last_seq}])
        == (to_browser["snapshot"])
    )
    assert accepted_message("v1-1") == to_browser["accepted"]
    assert accepted_message(None) == to_browser["accepted_untagged"]
    refused = {"type": "send", "text": "hi", "ref": "v1-2"}
    busy = "a run is already streaming: wait for it or stop it"
    assert error_message(busy, refused) == to_browser["error"]
    assert (
        error_message("message from the browser is not an object", [1])
        == (to_browser["error_untagged"])
    )
    output = {
        "tool_call_id": "call_1",
        "component": "Table",
        "bundle": None,
        "props": {"rows": [{"x": 1}]},
        "error": None,
        "final": True,
        "seq": 3,
    }
    assert component_output_message(output) == to_browser["component_output"]
    windows = [e["message"] for e in WIRE["to_kernel"] if e["message"]["type"] == "data_window"]
    request = DataWindowMsg.model_validate(windows[-1])  # the sorted one
    window = {
        "columns": ["id", "amount"],
        "rows": [{"id": 7, "amount": 99.5}],
        "offset": 200,
        "total_rows": 1_000_000,
        "sort": "amount",
        "descending": True,
    }
    assert data_window_message(request, window) == to_browser["data_window"]
    bad = DataWindowMsg(
        type="data_window", tool_call_id="call_1", request=5, offset=0, limit=10, sort="nope"
    )
    failed = data_window_message(bad, error="no column 'nope' (columns: id, amount)")
    assert failed == to_browser["data_window_error"]
    filtered_request = DataWindowMsg.model_validate(windows[-2])  # the filtered one
    filtered = {
        "columns": ["id", "region"],
        "rows": [{"id": 7, "region": "North"}],
        "offset": 0,
        "total_rows": 12,
        "all_rows": 20_000,
    }
    assert data_window_message(filtered_request, filtered) == to_browser["data_window_filtered"]
    module = to_browser["module"]
    assert module_message("highlight", module["source"]) == module
    missing = module_message("highlight", error=to_browser["module_error"]["error"])
    assert missing == to_browser["module_error"]
    assert accepted_message("v1-3", "starter_form") == to_browser["accepted_starter_form"]
    [asked] = [c["message"] for c in WIRE["to_kernel"] if c["message"]["type"] == "complete"]
    completing = CompleteMsg.model_validate(asked)
    assert completion_message(completing, ["Paris", "Padua"]) == to_browser["completion"]
    again = completing.model_copy(update={"request": 8})
    busy_error = "too many completions at once"
    assert completion_message(again, [], busy_error) == to_browser["completion_error"]


@pytest.mark.parametrize("case", WIRE["to_kernel"], ids=lambda c: str(c["build"][0]))
def test_browser_messages_are_accepted_as_sent(case: dict[str, Any]) -> None:
    # one parse for every message, the components' and the MCP apps' too
    sent = case["message"]
    parsed = parse_client_message(sent)
    assert parsed.model_dump(mode="json", exclude_unset=True) == sent


@pytest.mark.parametrize("name", list(WIRE["to_browser"]))
def test_kernel_messages_are_their_models(name: str) -> None:
    # each example is its model's wire form (the model is what the browser's
    # validators are generated from)
    sent = WIRE["to_browser"][name]
    model = {message_type(m): m for m in SERVER_MESSAGES}[sent["type"]]
    assert model.model_validate(sent).wire() == sent


def test_a_kernel_message_that_breaks_its_model_is_refused() -> None:
    from pydantic import ValidationError

    for model, bad in (
        (AcceptedMessage, {"type": "accepted", "request": "retry"}),
        (ErrorMessage, {"type": "error", "message": "x" * (MAX_ERROR + 1)}),
        (ModuleMessage, {"type": "module", "name": "highlight", "source": 3}),
    ):
        with pytest.raises(ValidationError):
            model.model_validate(bad)


def test_a_component_calls_names_are_on_the_wire_only_never_in_a_thread_file(
    tmp_path: pathlib.Path,
) -> None:
    # component_call (was "ui") is derived from the tool name and call id on
    # every send: a thread file, old or new, holds none of it to migrate.
    from ipygenui.messages import Thread
    from ipygenui.persistence import load_thread, save_thread

    message = replay_stream()["message_after_ops"]  # a show call and an update call
    wire = message_for_browser(message)
    assert any("component_call" in p for p in wire["parts"])
    path = tmp_path / "thread.json"
    save_thread(Thread(messages=[message]), path)
    text = path.read_text(encoding="utf-8")

    def keys(value: Any) -> set[str]:
        if isinstance(value, dict):
            return set(value) | {k for v in value.values() for k in keys(v)}
        if isinstance(value, list):
            return {k for v in value for k in keys(v)}
        return set()

    assert not keys(json.loads(text)) & {"component_call", "ui", "update_of", "updates"}
    loaded = message_for_browser(load_thread(path).messages[0])
    assert [p.get("component_call") for p in loaded["parts"]] == [
        p.get("component_call") for p in wire["parts"]
    ]
