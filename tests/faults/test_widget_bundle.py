"""The widget's code goes once per kernel, not once per chat.

A Chat's own ``_esm`` is the small ``static/loader.js``; the bundle
(``widget.js`` + ``widget.css``) is one shared model every Chat names. Checked:
a five-chat notebook's embedded widget state (what nbconvert and a saved
notebook keep) holds the bundle once and each chat in a few KB; the kernel
sends the bundle in one comm_open; a closed bundle model is replaced by the
next Chat; a checkout without the built files still makes a Chat, whose view
says what to do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ipywidgets.embed import dependency_state

import ipygenui as gu
from comm_helpers import Wire, browser_update, nbytes
from ipygenui.testing import ScriptedModel
from ipygenui.widget import _bundle, static_files
from ipygenui.widget._bundle import Bundle, shared_bundle
from ipygenui.widget.chat import Chat

WIDGET_JS = (static_files.STATIC / "widget.js").read_text("utf-8")
WIDGET_CSS = (static_files.STATIC / "widget.css").read_text("utf-8")
PER_CHAT_LIMIT = 10_000
"""Bytes a chat after the first may add to a saved notebook."""


@pytest.fixture(autouse=True)
def fresh_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new kernel does: no bundle model yet."""
    monkeypatch.setattr(_bundle, "_shared", None)


def _chats(n: int) -> list[Chat]:
    return [Chat(model=ScriptedModel(["hi"])) for _ in range(n)]


def _state(chats: list[Chat]) -> dict[str, Any]:
    state: dict[str, Any] = dependency_state(chats, drop_defaults=False)  # as the kernel sends it
    return state


def _quoted(source: str) -> str:
    """``source`` as it reads inside JSON."""
    return json.dumps(source)[1:-1]


def _ref(widget: Any) -> str:
    return f"IPY_MODEL_{widget.model_id}"


def test_five_chats_save_the_bundle_once() -> None:
    chats = _chats(5)
    state = _state(chats)
    text = json.dumps({"state": state})
    assert text.count(_quoted(WIDGET_JS[:300])) == 1  # the script, once
    assert text.count(_quoted(WIDGET_CSS[:300])) == 1  # the stylesheet, once
    bundles = [m for m in state.values() if "esm" in m["state"]]
    assert len(bundles) == 1 and bundles[0]["model_name"] == "WidgetModel"
    assert bundles[0]["model_module"] == "@jupyter-widgets/base"  # every manager knows it
    for chat in chats:
        own = state[chat.model_id]["state"]
        assert own["_bundle"] == _ref(shared_bundle())
        assert own["_esm"] == static_files.LOADER.read_text("utf-8")
        assert "_css" not in own
        assert nbytes(state[chat.model_id]) < PER_CHAT_LIMIT


def test_each_chat_after_the_first_adds_under_10_kb() -> None:
    one = nbytes(_state(_chats(1)))
    five = nbytes(_state(_chats(5)))
    assert one > len(WIDGET_JS)  # the first carries the bundle
    assert (five - one) / 4 < PER_CHAT_LIMIT


def test_the_loader_is_small_and_not_the_bundle() -> None:
    loader = static_files.LOADER.read_text("utf-8")
    assert len(loader) < 5_000
    assert "_bundle" in loader and "get_model" in loader
    assert WIDGET_JS[:300] not in loader


def test_the_kernel_sends_the_bundle_in_one_comm_open(wire: list[Any]) -> None:
    _chats(3)
    opens = [data for kind, _cid, data in wire if kind == "comm_open"]
    bundle_opens = [d for d in opens if "esm" in d["state"]]
    chat_opens = [d for d in opens if d["state"].get("_bundle")]
    assert len(bundle_opens) == 1 and len(chat_opens) == 3
    assert bundle_opens[0]["state"]["esm"] == WIDGET_JS
    assert bundle_opens[0]["state"]["css"] == WIDGET_CSS
    # the chat's own open carries no bundle (its messages have models of their own)
    assert all(nbytes(d) < PER_CHAT_LIMIT for d in chat_opens)
    assert opens.index(bundle_opens[0]) < opens.index(chat_opens[0])  # named after it exists


def test_chats_share_one_bundle_and_a_closed_one_is_replaced() -> None:
    first, second = _chats(2)
    assert first._bundle is second._bundle is shared_bundle()
    first._bundle.close()  # as Widget.close_all() does
    [third] = _chats(1)
    assert third._bundle is not first._bundle and third._bundle.comm is not None
    assert third._bundle.esm == WIDGET_JS


def test_a_checkout_without_the_built_bundle_still_makes_a_chat(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(static_files, "STATIC", tmp_path)
    [chat] = _chats(1)
    bundle = chat._bundle
    assert isinstance(bundle, Bundle) and bundle.esm == ""
    assert "bundle is missing" in bundle.error and "npm run build" in bundle.error


def test_a_browser_update_of_the_bundle_changes_nothing_and_is_not_echoed(wire: Wire) -> None:
    [chat] = _chats(1)
    bundle = chat._bundle
    sent = len(wire)
    # what a hostile view could write into the code every chat on the page runs
    browser_update(bundle, {"esm": "globalThis.pwned = 1", "css": "*{display:none}", "error": "x"})
    assert (bundle.esm, bundle.css, bundle.error) == (WIDGET_JS, WIDGET_CSS, "")
    assert [d for _, _, d in wire[sent:] if d.get("method") == "echo_update"] == []
    [later] = _chats(1)
    assert later._bundle is bundle and later._bundle.esm == WIDGET_JS


def test_a_browser_update_of_a_chat_s_own_module_changes_nothing(wire: Wire) -> None:
    [chat] = _chats(1)
    loader = chat._esm
    browser_update(chat, {"_esm": "globalThis.pwned = 1", "_css": "*{display:none}"})
    assert chat._esm == loader and "globalThis.pwned" not in json.dumps(chat.get_state())


def test_a_browser_update_of_the_workbench_changes_nothing_and_is_not_echoed(wire: Wire) -> None:
    bench = gu.Workbench(components=[gu.Metric])
    before = bench.get_state()
    sent = len(wire)
    browser_update(
        bench,
        {
            "_esm": "globalThis.pwned = 1",
            "_css": "*{display:none}",
            "components": [],
            "component_specs": [{"name": "x", "html": "<script>alert(1)</script>"}],
            "cost": {"total": {"tokens": -1}},
            "evaluation": {"table": "<script>"},
        },
    )
    assert bench.get_state() == before
    assert [d for _, _, d in wire[sent:] if d.get("method") == "echo_update"] == []
