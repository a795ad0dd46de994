"""A thread's notebook display fed hostile text: a saved thread file, a model,
a tool or an MCP server wrote what ``chat.thread`` and a ``send`` result show.

Tried: script, image, iframe and link payloads in message text, attachment
names, tool names, arguments, results and a rejection's reason, shown through the HTML and the
markdown display (nothing runs, no tag, link or URL is made from them); a
right-to-left override and a lone surrogate (the output reorders nothing and
still encodes as UTF-8); a value no JSON encoder takes in a result; a thread
file with a 1 MB message and 400 calls (the display stays a few kilobytes).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import mistune
import pytest

from ipygenui.messages import AttachmentPart, Message, TextPart, Thread, ToolCallPart
from ipygenui.persistence import load_thread

PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src="http://127.0.0.1:9/x.png" onerror="alert(1)">',
    '<iframe src="http://127.0.0.1:9/"></iframe>',
    "![pixel](http://127.0.0.1:9/track.png)",
    "[click](javascript:alert(1))",
    "<http://127.0.0.1:9/auto>",
    "http://127.0.0.1:9/bare and www.example.com",
    '"><svg onload=alert(1)>',
    "`code` **bold** # heading\n- item\n> quote",
    "&lt;script&gt; &#60;b&#62;",
]


class _Tags(HTMLParser):
    """Every tag and attribute an HTML text makes, as a browser would parse it."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.extend(attrs)


def _hostile_thread(payload: str) -> dict[str, Any]:
    return Thread(
        title=payload,
        messages=[
            Message(
                role="user",
                parts=[TextPart(text=payload), AttachmentPart(name=payload, kind="text")],
            ),
            Message(
                role="assistant",
                parts=[
                    TextPart(text=payload),
                    ToolCallPart(
                        tool_call_id="c1",
                        tool_name=payload,
                        args={payload: payload},
                        args_text=json.dumps({payload: payload}),
                        args_complete=True,
                        has_result=True,
                        result={"text": payload},
                    ),
                    ToolCallPart(
                        tool_call_id="c2",
                        tool_name="drop_table",
                        args_text=payload,
                        approval={"status": "rejected", "reason": payload},
                        has_result=True,
                        is_error=True,
                        result={"error": payload},
                    ),
                ],
            ),
        ],
    ).model_dump(mode="json")


def _saved(tmp_path: Path, data: dict[str, Any]) -> Thread:
    """The thread as ``load_thread`` reads it back from a file someone else wrote."""
    path = tmp_path / "thread.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_thread(path)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_hostile_text_shows_as_text_in_the_html_and_markdown_displays(
    tmp_path: Path, payload: str
) -> None:
    thread = _saved(tmp_path, _hostile_thread(payload))
    for shown in (thread._repr_html_(), thread.messages[1]._repr_html_()):
        parsed = _Tags(shown)
        assert parsed.tags <= {"div", "b", "code"}, parsed.tags
        assert {name for name, _ in parsed.attrs} <= {"class", "style"}, parsed.attrs
        assert not any("url(" in (value or "") for _, value in parsed.attrs)
    for markdown in (thread._repr_markdown_(), thread.messages[1]._repr_markdown_()):
        rendered = mistune.create_markdown(escape=False, plugins=["url"])(markdown)
        parsed = _Tags(str(rendered))
        assert parsed.tags <= {"p", "ul", "li", "strong"}, (parsed.tags, rendered)
        assert parsed.attrs == [], rendered


def test_direction_overrides_and_lone_surrogates_do_not_reach_the_output(tmp_path: Path) -> None:
    tricky = "safe\u202etxt.exe \ud800 end\u2066x\u2069"
    data = _hostile_thread("ok")
    data["messages"][0]["parts"][0]["text"] = tricky
    data["messages"][1]["parts"][1]["result"] = {"text": tricky}
    thread = Thread.model_validate(data)  # a file's "\\ud800" escape reads back as this
    for shown in (
        thread._repr_html_(),
        thread._repr_markdown_(),
        repr(thread.messages[0]),
        repr(thread.messages[1].parts[1]),
    ):
        shown.encode("utf-8")  # a notebook output: must not raise
        assert "\u202e" not in shown and "\u2066" not in shown


def test_a_result_no_encoder_takes_still_displays() -> None:
    class Odd:
        def __repr__(self) -> str:
            return "<Odd <script>>"

    part = ToolCallPart(tool_call_id="c1", tool_name="odd", has_result=True)
    part.result = {"value": Odd(), "loop": float("nan")}
    message = Message(role="assistant", parts=[part])
    assert "&lt;Odd &lt;script&gt;&gt;" in message._repr_html_()
    assert "odd()" in repr(message)


def test_a_huge_thread_file_displays_in_a_few_kilobytes(tmp_path: Path) -> None:
    data = _hostile_thread("x")
    data["messages"][1]["parts"][0]["text"] = "word " * 200_000
    calls = data["messages"][1]["parts"]
    calls.extend(
        {**calls[1], "tool_call_id": f"k{i}", "args": {"q": "y" * 2000}} for i in range(400)
    )
    data["messages"].extend({**data["messages"][0], "id": f"msg_{i:016x}"} for i in range(500))
    thread = _saved(tmp_path, data)
    assert len(thread._repr_html_()) < 20_000
    assert len(thread._repr_markdown_()) < 20_000
    assert len(repr(thread)) < 100 and len(repr(thread.messages[1])) < 120
