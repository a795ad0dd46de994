"""The code highlighter is not in the widget bundle: the browser asks the
kernel for it (``load_module``) when a code block first shows.

Checked: the bundle that goes with every comm_open leaves highlight.js out;
the kernel answers with the built module's source, with or without a running
loop (a saved notebook reopened before any cell ran); a checkout without the
built file answers an error the view can live with (code stays plain), and a
name outside the list is refused without reading any file.
"""

from __future__ import annotations

from typing import Any

import pytest

from comm_helpers import click, customs, settle
from ipygenui.testing import ScriptedModel
from ipygenui.widget import static_files
from ipygenui.widget.chat import Chat

HIGHLIGHT = static_files.STATIC / "highlight.js"
BUNDLE = static_files.STATIC / "widget.js"

# highlight.js's core says this when asked for an unregistered language: in
# whichever file carries the highlighter, and only there.
HLJS_MARKER = "Could not find the language"


def test_the_bundle_leaves_the_highlighter_out() -> None:
    assert HLJS_MARKER in HIGHLIGHT.read_text("utf-8")
    assert HLJS_MARKER not in BUNDLE.read_text("utf-8")
    assert "load_module" in BUNDLE.read_text("utf-8")  # the view knows how to ask for it


async def test_the_kernel_sends_the_highlighter_on_request(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["hi"]))
    click(chat, {"type": "load_module", "name": "highlight"})
    await settle(chat)
    [answer] = customs(wire, "module")
    assert answer["name"] == "highlight"
    assert answer["source"] == HIGHLIGHT.read_text("utf-8")
    assert "export" in answer["source"] and "error" not in answer
    assert customs(wire, "error") == []


def test_it_answers_without_a_running_loop(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["hi"]))
    click(chat, {"type": "load_module", "name": "highlight"})
    [answer] = customs(wire, "module")
    assert answer["source"].startswith(HIGHLIGHT.read_text("utf-8")[:200])


def test_a_missing_file_answers_an_error_not_a_notice(
    wire: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr(static_files, "STATIC", tmp_path)
    static_files.lazy_module_source.cache_clear()
    try:
        chat = Chat(model=ScriptedModel(["hi"]))
        click(chat, {"type": "load_module", "name": "highlight"})
    finally:
        static_files.lazy_module_source.cache_clear()
    [answer] = customs(wire, "module")
    assert "source" not in answer
    assert "highlight module is missing" in answer["error"] and "npm run build" in answer["error"]
    assert customs(wire, "error") == []  # nothing for the user to read: code shows plain


@pytest.mark.parametrize("name", ["../../etc/passwd", "widget", "", None])
def test_only_listed_modules_are_served(wire: list[Any], name: Any) -> None:
    chat = Chat(model=ScriptedModel(["hi"]))
    click(chat, {"type": "load_module", "name": name})
    assert customs(wire, "module") == []
    [error] = customs(wire, "error")
    assert error["request"] == "load_module" and "invalid 'load_module' message" in error["message"]
