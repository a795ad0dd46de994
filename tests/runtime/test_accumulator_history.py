"""The accumulator's patch ops and the thread -> OpenAI history conversion."""

from __future__ import annotations

import json

import pytest

import ipygenui as gu
from ipygenui.messages import (
    Approval,
    Incomplete,
    Message,
    ReasoningPart,
    TextPart,
    Thread,
    ToolCallPart,
)
from ipygenui.models.base import (
    FinishDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)
from ipygenui.models.history import (
    InvalidHistory,
    check_openai_history,
    step_ranges,
    to_openai_messages,
)
from ipygenui.runtime._loop.accumulator import Accumulator


@gu.tool
def plot(title: str, rows: list[dict]) -> str:
    return "ok"


def apply_ops(doc: dict, ops: list[dict]) -> None:
    """A reference implementation of the patch ops in patch_ops.py."""
    for op in ops:
        if op["op"] == "add_part":
            assert op["part"] == len(doc["parts"])
            doc["parts"].append(json.loads(json.dumps(op["value"])))
        elif op["op"] == "append":
            doc["parts"][op["part"]][op["field"]] += op["value"]
        elif op["op"] == "set":
            doc["parts"][op["part"]][op["field"]] = json.loads(json.dumps(op["value"]))


def test_ops_rebuild_the_message_exactly() -> None:
    message = Message(role="assistant")
    acc = Accumulator(message, {"plot": plot})
    args = json.dumps(
        {"_status_message": "plotting", "title": "Sales", "rows": [{"m": i} for i in range(30)]}
    )
    deltas = [
        ReasoningDelta("think"),
        ReasoningDelta("ing"),
        TextDelta("Here "),
        TextDelta("it is"),
        ToolCallDelta(0, id="c0", name="plot"),
        *[ToolCallDelta(0, arguments=args[i : i + 7]) for i in range(0, len(args), 7)],
        ToolCallDelta(1, id="c1", name="other", arguments='{"x": 1}'),
        TextDelta("after"),
        UsageDelta(5, 7),
        FinishDelta("tool_calls"),
    ]
    doc: dict = {"parts": []}
    for delta in deltas:
        apply_ops(doc, acc.apply(delta))
    apply_ops(doc, acc.finish())
    assert doc["parts"] == [p.model_dump(mode="json") for p in message.parts]
    kinds = [type(p).__name__ for p in message.parts]
    assert kinds == ["ReasoningPart", "TextPart", "ToolCallPart", "ToolCallPart", "TextPart"]
    first = message.parts[2]
    assert isinstance(first, ToolCallPart)
    assert first.args_text == args and first.args_complete
    assert first.args["title"] == "Sales" and len(first.args["rows"]) == 30
    assert "_status_message" not in first.args and first.status_message == "plotting"
    other = message.parts[3]
    assert isinstance(other, ToolCallPart) and other.args == {"x": 1}  # unknown tool: kept
    assert acc.usage.output_tokens == 7 and acc.finish_reason == "tool_calls"


def test_streamed_bytes_stay_proportional_to_the_text() -> None:
    message = Message(role="assistant")
    acc = Accumulator(message, {})
    text = "word " * 2000
    sizes = [
        len(json.dumps(op))
        for i in range(0, len(text), 3)
        for op in acc.apply(TextDelta(text[i : i + 3]))
    ]
    acc.materialize()  # streamed pieces are joined on read, not per delta
    assert message.text == text
    assert max(sizes) < 80  # no op grows with the message: total bytes are linear


def test_invalid_argument_json_is_kept_raw() -> None:
    message = Message(role="assistant")
    acc = Accumulator(message, {"plot": plot})
    acc.apply(ToolCallDelta(0, id="c", name="plot", arguments='{"title": ]'))
    acc.finish()
    part = message.parts[0]
    assert isinstance(part, ToolCallPart) and part.args_text == '{"title": ]' and part.args_complete


def test_thread_round_trips_through_json() -> None:
    thread = Thread(
        messages=[
            Message(role="user", parts=[TextPart(text="hi")]),
            Message(
                role="assistant",
                status=Incomplete(reason="error", error="boom"),
                parts=[
                    ReasoningPart(text="r"),
                    ToolCallPart(
                        tool_call_id="c",
                        tool_name="t",
                        args={"a": [1, {"b": None}]},
                        result={"x": 1.5},
                        has_result=True,
                        approval=Approval(status="rejected", reason="no"),
                        component="Chart",
                        component_state={"zoom": 2},
                    ),
                ],
                metadata={"steps": [{"start": 0, "end": 2}]},
            ),
        ],
        metadata={"always_approved": ["t"]},
    )
    assert Thread.model_validate_json(thread.model_dump_json()) == thread


def test_history_splits_steps_and_answers_every_call() -> None:
    message = Message(
        role="assistant",
        parts=[
            TextPart(text="Let me check."),
            ToolCallPart(
                tool_call_id="a", tool_name="t", args_text='{"q": 1}', result=1, has_result=True
            ),
            ToolCallPart(tool_call_id="b", tool_name="t", args_text="{bad"),
            TextPart(text="Done."),
        ],
    )
    assert step_ranges(message) == [(0, 3), (3, 4)]
    history = to_openai_messages([Message(role="user", parts=[TextPart(text="q")]), message], "sys")
    check_openai_history(history)
    assert [m["role"] for m in history] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert history[2]["tool_calls"][1]["function"]["arguments"] == "{}"
    assert "interrupted" in json.loads(history[4]["content"])["error"]
    assert history[5] == {"role": "assistant", "content": "Done."}


def test_history_checker_catches_broken_histories() -> None:
    call = {"id": "x", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    with pytest.raises(InvalidHistory, match="answered"):
        check_openai_history([{"role": "assistant", "content": None, "tool_calls": [call]}])
    with pytest.raises(InvalidHistory, match="not preceded"):
        check_openai_history([{"role": "tool", "tool_call_id": "x", "content": "1"}])
    twice = [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "x", "content": "1"},
        {"role": "tool", "tool_call_id": "x", "content": "1"},
    ]
    with pytest.raises(InvalidHistory):
        check_openai_history(twice)
