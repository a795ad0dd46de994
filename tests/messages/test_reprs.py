"""How messages and threads show in a notebook: a short ``repr``, a compact
transcript as markdown and HTML, and the pydantic models left as they were.

Faults tried: ``chat.thread`` or a ``send`` result printing a whole pydantic
dump (every part, id and timestamp); a long text or a long argument making the
line unbounded; the display changing what the models dump, compare or accept.
"""

from __future__ import annotations

import asyncio
import re

import mistune

import ipygenui as gu
from ipygenui._internal.message_display import CALL_TEXT, LINE_TEXT, MAX_CALLS, MAX_MESSAGES
from ipygenui.messages import Approval, Message, TextPart, Thread, ToolCallPart


def _weather_thread() -> tuple[Thread, Message]:
    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city, "temperature_c": 21, "sky": "clear"}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    reply = asyncio.run(rt.send("What's the weather in Paris?"))
    return rt.thread, reply


def test_a_reply_reprs_as_one_short_line() -> None:
    thread, reply = _weather_thread()
    assert repr(reply) == 'Message(assistant, 2 parts, complete: "It\'s 21 °C and clear in Paris.")'
    assert str(reply) == repr(reply)
    assert repr(thread) == f"Thread(2 messages, id={thread.id})"
    call, text = reply.parts
    assert repr(text) == 'TextPart("It\'s 21 °C and clear in Paris.")'
    assert repr(call).startswith('ToolCallPart(get_weather(city="Paris") → {"city": "Paris"')


def test_a_repr_stays_short_whatever_the_message_holds() -> None:
    long = Message(role="assistant", parts=[TextPart(text="word " * 10_000)])
    assert len(repr(long)) < 120 and repr(long).endswith('…")')
    calls = [
        ToolCallPart(tool_call_id=f"c{i}", tool_name="drop_table", args={"name": "t" * 5000})
        for i in range(3)
    ]
    waiting = Message(role="assistant", parts=calls, status={"type": "requires-action"})
    line = repr(waiting)
    assert line.startswith("Message(assistant, 3 parts, requires-action: drop_table(name=")
    assert line.endswith("…) +2)") and len(line) < 150
    titled = Thread(title="Trip planning " * 50)
    assert len(repr(titled)) < 120 and "Trip planning" in repr(titled)


def test_the_transcript_shows_roles_text_and_calls_one_line_each() -> None:
    thread, _ = _weather_thread()
    markdown = thread._repr_markdown_()
    html = thread._repr_html_()
    lines = [line for line in markdown.splitlines() if line.strip()]
    assert len(lines) == 4  # heading, user, assistant, its call
    rendered = str(mistune.html(markdown)).replace("&quot;", '"').replace("&#x27;", "'")
    assert "<strong>user</strong>: What's the weather in Paris?" in rendered
    assert 'get_weather(city="Paris") → {"city": "Paris"' in rendered
    assert html.count("<div") == 5  # the box, the heading, three rows
    assert "<b>assistant</b>: It&#x27;s 21 °C and clear in Paris." in html
    assert "<code>get_weather(city=&quot;Paris&quot;) → " in html


def test_a_send_result_displays_as_its_own_lines_only() -> None:
    """What a cell ending in ``await chat.send(...)`` shows: one line for a plain reply."""
    plain = Message(role="assistant", parts=[TextPart(text="Hello **there**")])
    assert plain._repr_html_().count("<div") == 2  # the box and one row
    assert plain._repr_markdown_() == "- **assistant**: Hello \\*\\*there\\*\\*\n"
    _, reply = _weather_thread()
    assert reply._repr_html_().count("<div") == 3  # its text, its call
    waiting = Message(role="assistant", status={"type": "requires-action"})
    assert "<b>assistant (waiting for you)</b>: </div>" in waiting._repr_html_()


def test_a_pending_or_rejected_call_says_so() -> None:
    pending = ToolCallPart(
        tool_call_id="d1", tool_name="drop_table", args={"name": "t"}, approval=Approval()
    )
    rejected = ToolCallPart(
        tool_call_id="d2",
        tool_name="drop_table",
        args={"name": "u"},
        approval=Approval(status="rejected", reason="not today"),
        has_result=True,
        is_error=True,
        result={"error": "The user rejected this tool call: not today"},
    )
    html = Message(role="assistant", parts=[pending, rejected])._repr_html_()
    assert "drop_table(name=&quot;t&quot;) waiting for approval" in html
    assert "drop_table(name=&quot;u&quot;) rejected: not today" in html


def test_a_long_thread_shows_its_last_messages_cut_to_a_bounded_size() -> None:
    messages = [
        Message(
            role="assistant",
            parts=[
                TextPart(text="x" * 50_000),
                *[
                    ToolCallPart(
                        tool_call_id=f"c{i}-{j}",
                        tool_name="lookup",
                        args={"q": "y" * 20_000},
                        has_result=True,
                        result="z" * 20_000,
                    )
                    for j in range(MAX_CALLS + 3)
                ],
            ],
        )
        for i in range(200)
    ]
    thread = Thread(messages=messages)
    html = thread._repr_html_()
    markdown = thread._repr_markdown_()
    row_bound = 300 + LINE_TEXT + 2 * CALL_TEXT
    rows = MAX_MESSAGES * (MAX_CALLS + 2) + 2
    assert len(html) < rows * row_bound and len(markdown) < rows * row_bound * 2
    assert f"{200 - MAX_MESSAGES} earlier messages" in html
    assert "and 3 more calls" in html
    assert max(len(line) for line in markdown.splitlines()) < 2 * (LINE_TEXT + 2 * CALL_TEXT)


def test_the_display_leaves_dump_equality_and_validation_as_they_were() -> None:
    thread, reply = _weather_thread()
    dumped = thread.model_dump()
    assert set(dumped) == {"id", "messages", "metadata", "title", "forks"}
    assert set(dumped["messages"][1]) == {"id", "role", "parts", "status", "created_at", "metadata"}
    again = Thread.model_validate_json(thread.model_dump_json())
    assert again == thread and again.messages[1] == reply
    assert again._repr_html_() == thread._repr_html_()
    try:
        Message.model_validate({"role": "robot"})
    except ValueError as exc:
        assert "role" in str(exc)
    else:
        raise AssertionError("an invalid role was accepted")


def test_a_send_result_in_a_notebook_prints_one_line() -> None:
    """IPython's plain-text display of a ``send`` result: the short repr."""
    from IPython.core.formatters import PlainTextFormatter

    _, reply = _weather_thread()
    shown = PlainTextFormatter()(reply)
    assert shown == repr(reply) and "\n" not in shown
    assert re.fullmatch(
        r"Thread\(2 messages, id=thread_\w+\)",
        PlainTextFormatter()(Thread(messages=[Message(role="user"), Message(role="assistant")])),
    )


def test_a_call_shows_its_arguments_without_the_standard_parameters() -> None:
    only_standard = ToolCallPart(
        tool_call_id="q1", tool_name="query_orders", args_text='{"_status_message": "querying"}'
    )
    assert repr(only_standard) == "ToolCallPart(query_orders() no result yet)"
    broken = ToolCallPart(tool_call_id="q2", tool_name="query_orders", args_text='{"min": 4')
    assert repr(broken) == 'ToolCallPart(query_orders({"min": 4) no result yet)'


def test_a_users_attachments_are_named_on_its_line() -> None:
    from ipygenui.messages import AttachmentPart

    sent = Message(
        role="user",
        parts=[
            TextPart(text="What is in this file?"),
            AttachmentPart(name="sales.csv", kind="data"),
        ],
    )
    assert "<b>user</b>: What is in this file? (attached: sales.csv)</div>" in sent._repr_html_()
