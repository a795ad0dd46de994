"""A tool call's arguments are parsed once, where the part is owned.

The accumulator feeds each streamed chunk to its incremental parser and, at
the step's end, records the parse on the part (``ToolCallPart.parsed_args``);
the tool runner, the history, the widget's snapshot and the decisions on a
loaded thread read that record instead of parsing ``args_text`` again. A
loaded thread's calls are parsed on first read, once, and the record is
never written to the thread file.

Counted here by wrapping ``json.loads`` (calls on the argument text only) and
``PartialJSONParser.feed`` (every character of the text is fed once), then
checked end to end through the real ``openai`` client against the local
server (``tests/openai_server.py``): a gated call streamed, approved and
resumed sends the model the history it always did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui import persistence
from ipygenui._internal.partial_json import PartialJSONParser
from ipygenui.messages import (
    ARGS_STREAMING,
    Message,
    RequiresAction,
    TextPart,
    Thread,
    ToolCallPart,
)
from ipygenui.models.base import ToolCallDelta
from ipygenui.models.history import check_openai_history, to_openai_messages
from ipygenui.runtime._loop.accumulator import Accumulator
from ipygenui.widget._protocol import message_for_browser
from openai_server import OpenAIServer, Reply, ToolCall

ROWS = [{"id": i, "name": f"row {i}", "ok": i % 2 == 0} for i in range(40)]
ARGS = {
    "_status_message": "deploying to prod",
    "_completion_status_message": "deployed to prod",
    "env": "prod",
    "rows": ROWS,
}
TEXT = json.dumps(ARGS)
VALIDATED = json.dumps({"env": "prod", "rows": ROWS})  # what the user approves


class Parses:
    """Counts the parses of one argument text while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *texts: str) -> None:
        self.loads = 0
        """Calls of ``json.loads`` on one of ``texts`` (whatever module made them)."""
        self.fed = 0
        """Characters fed to incremental parsers."""
        self.feeds = 0
        wanted = {t.strip() for t in texts}
        real_loads, real_feed = json.loads, PartialJSONParser.feed

        def loads(s: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(s, str) and s.strip() in wanted:
                self.loads += 1
            return real_loads(s, *args, **kwargs)

        def feed(parser: PartialJSONParser, chunk: str) -> None:
            self.feeds += 1
            self.fed += len(chunk)
            real_feed(parser, chunk)

        monkeypatch.setattr(json, "loads", loads)
        monkeypatch.setattr(PartialJSONParser, "feed", feed)


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def streamed(text: str, size: int = 9) -> tuple[Message, Accumulator, int]:
    """An assistant message holding one call whose ``text`` streamed in chunks."""
    message = Message(role="assistant")
    acc = Accumulator(message, tools={})
    pieces = chunks(text, size)
    acc.apply(ToolCallDelta(0, id="c1", name="deploy", arguments=pieces[0]))
    for piece in pieces[1:]:
        acc.apply(ToolCallDelta(0, arguments=piece))
    return message, acc, len(pieces)


# --- unit: who parses what ------------------------------------------------------


def test_the_accumulator_parses_each_chunk_once_and_records_the_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parses = Parses(monkeypatch, TEXT)
    message, acc, n = streamed(TEXT)
    acc.finish()
    part = message.parts[0]
    assert isinstance(part, ToolCallPart)
    assert (parses.feeds, parses.fed, parses.loads) == (n, len(TEXT), 0)  # no parse at finish
    assert part.parsed_args.text is part.args_text
    assert part.parsed_args.value == ARGS and part.parsed_args.error is None
    assert part.args == {"env": "prod", "rows": ROWS}


def test_history_and_snapshot_read_the_recorded_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    message, acc, _ = streamed(TEXT)
    acc.finish()
    user = Message(role="user", parts=[TextPart(text="go")])
    parses = Parses(monkeypatch, TEXT)
    for _ in range(3):  # each later step sends the history again
        sent = to_openai_messages([user, message])
        wire = message_for_browser(message)
    assert parses.loads == 0
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == TEXT
    assert wire["parts"][0]["args"] == {}  # the browser derives them from the text
    check_openai_history(sent)


def test_a_snapshot_mid_stream_parses_nothing_and_sends_the_partial_args(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    half = TEXT[: len(TEXT) // 2]
    message, acc, _ = streamed(half)
    parses = Parses(monkeypatch, half)
    acc.materialize()  # what a read of the message does
    part = message.parts[0]
    assert isinstance(part, ToolCallPart)
    wire = message_for_browser(message)
    assert parses.loads == 0
    assert part.parsed_args.error == ARGS_STREAMING
    assert wire["parts"][0]["args"] == part.args != {}


def test_a_call_ended_mid_stream_is_parsed_from_its_text() -> None:
    """A stop while the call streamed ends it without ``finish``: the record
    taken mid-stream no longer holds, the text is read as it is."""
    message, acc, _ = streamed('{"env": "prod"}')
    acc.materialize()
    part = message.parts[0]
    assert isinstance(part, ToolCallPart) and part.parsed_args.error == ARGS_STREAMING
    part.args_complete = True  # what ``end_message`` does
    assert part.parsed_args.value == {"env": "prod"} and part.parsed_args.error is None


def test_bad_json_keeps_the_decoders_message_for_the_model() -> None:
    message, acc, _ = streamed('{"env": "prod" "x": 1}')
    acc.finish()
    part = message.parts[0]
    assert isinstance(part, ToolCallPart)
    assert part.parsed_args.value is None
    assert part.parsed_args.error == "Expecting ',' delimiter: line 1 column 16 (char 15)"
    assert to_openai_messages([message])[0]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_a_new_args_text_is_parsed_again_once() -> None:
    part = ToolCallPart(tool_call_id="c", tool_name="t", args_text='{"a": 1}')
    first = part.parsed_args
    assert part.parsed_args is first  # kept
    part.args_text = '{"a": 2}'
    assert part.parsed_args.value == {"a": 2}


# --- the thread file ------------------------------------------------------------


def test_the_parse_is_not_saved_and_an_old_file_loads(tmp_path: Path) -> None:
    message, acc, _ = streamed(TEXT)
    acc.finish()
    thread = Thread(messages=[Message(role="user", parts=[TextPart(text="go")]), message])
    path = tmp_path / "t.json"
    persistence.save_thread(thread, path)
    saved = json.loads(path.read_text())["thread"]["messages"][1]["parts"][0]
    assert set(saved) == {
        "type", "tool_call_id", "tool_name", "args_text", "args", "args_complete", "result",
        "has_result", "is_error", "approval", "status_message", "completion_status_message",
        "component", "component_state", "traceback",
    }  # fmt: skip
    # a part as a file written before the parse was recorded has it: fields left out
    old = {"type": "tool-call", "tool_call_id": "c1", "tool_name": "deploy", "args_text": TEXT}
    data = {"format": persistence.FORMAT, "version": persistence.VERSION}
    data["thread"] = {"messages": [{"role": "assistant", "parts": [old]}]}
    path.write_text(json.dumps(data))
    loaded = persistence.load_thread(path)
    part = loaded.messages[0].parts[0]
    assert isinstance(part, ToolCallPart)
    assert part.parsed_args.value == ARGS  # derived on load, from the text


# --- end to end: the real openai client, a gated call ---------------------------


@gu.tool(requires_approval=True)
def deploy(env: str, rows: list[dict[str, Any]]) -> str:
    """Deploy rows to an environment."""
    return f"deployed {len(rows)} rows to {env}"


def expected_history(*users: str) -> list[dict[str, Any]]:
    """The history the model reads after the call ran (as it was before the
    parse was recorded once): the approved, validated arguments."""
    call = {"id": "d", "type": "function", "function": {"name": "deploy", "arguments": VALIDATED}}
    return [
        {"role": "user", "content": users[0]},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "d", "content": "deployed 40 rows to prod"},
        *(
            [{"role": "assistant", "content": "Deployed."}, {"role": "user", "content": users[1]}]
            if len(users) > 1
            else []
        ),
    ]


def conversation(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] != "system"]


async def test_a_gated_call_streamed_approved_and_resumed_is_parsed_once(
    openai_server: OpenAIServer, make_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(
        Reply.calls(ToolCall("deploy", TEXT, id="d"), chunk_size=7),
        Reply.text_reply("Deployed."),
        Reply.text_reply("Anything else?"),
    )
    parses = Parses(monkeypatch, TEXT, VALIDATED)
    rt = gu.Runtime(model=make_model(), tools=[deploy])
    message = await rt.send("deploy the rows")
    assert message.status == RequiresAction()
    part = message.tool_call("d")
    assert part is not None and part.approval is not None
    assert part.approval.status == "pending"
    message_for_browser(message)  # the widget's snapshot of the pending call
    await rt.approve("d")  # type: ignore[misc]
    await rt.send("thanks")

    assert parses.fed == len(TEXT)  # each character parsed once, as it streamed
    assert parses.loads == 0  # not by the tool runner, the history or the snapshot
    assert conversation(openai_server.requests[1]) == expected_history("deploy the rows")
    assert conversation(openai_server.requests[2]) == expected_history("deploy the rows", "thanks")
    for request in openai_server.requests:
        check_openai_history(request["messages"])


async def test_a_loaded_call_is_parsed_once_however_often_it_is_read(
    openai_server: OpenAIServer,
    make_model: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = tmp_path / "chat.json"
    openai_server.script(
        Reply.calls(ToolCall("deploy", TEXT, id="d"), chunk_size=50),
        Reply.text_reply("Deployed."),
        Reply.text_reply("Anything else?"),
    )
    first = gu.Runtime(model=make_model(), tools=[deploy], persist=path)
    await first.send("deploy the rows")  # saved while the call waits for the user

    parses = Parses(monkeypatch, TEXT, VALIDATED)
    rt = gu.Runtime(model=make_model(), tools=[deploy], persist=path)  # distrust_loaded
    part = rt.thread.messages[-1].tool_call("d")
    assert part is not None and part.approval is not None
    assert part.approval.status == "pending"
    message_for_browser(rt.thread.messages[-1])
    await rt.approve("d")  # type: ignore[misc]
    await rt.send("thanks")

    assert parses.fed == 0
    assert parses.loads == 1  # on load, once; then the record
    assert conversation(openai_server.requests[2]) == expected_history("deploy the rows", "thanks")


def test_an_integer_too_long_to_read_is_a_parse_error_not_a_crash() -> None:
    from ipygenui._internal.partial_json import PartialJSONError

    parser = PartialJSONParser()
    parser.feed('{"a": 1, "n": ' + "7" * 5000)
    assert parser.value == {"a": 1}  # the number in progress is not shown
    with pytest.raises(PartialJSONError, match="5,000 digits"):
        parser.feed("}")


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ('{"s": "x\\ud83dy"}', {"s": "x\ufffdy"}),  # a lone surrogate written as an escape
        ('{"n": 12345678901234567890}', {"n": "12345678901234567890"}),  # past 2**53
        ('{"f": 1e999}', {"f": "Infinity"}),
        ('{"n": 123456789012345, "f": 1.5e99}', {"n": 123456789012345, "f": 1.5e99}),
    ],
)
def test_the_recorded_parse_is_json_safe(text: str, safe: dict[str, Any]) -> None:
    message, acc, _ = streamed(text, size=3)
    acc.finish()
    part = message.parts[0]
    assert isinstance(part, ToolCallPart)
    assert part.parsed_args.value == safe == part.args
