"""Issue 2 end to end: the quickstart notebook's chat streams a reply typed in the browser."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .harness import LabPage
from .widget import (
    assistant,
    install_stream_recorder,
    read_stream_samples,
    send_from_ui,
    text_of,
)

pytestmark = pytest.mark.e2e

TYPED = "Tell me what you can do, please."


def _plain(text: str) -> str:
    """Markdown-ish text reduced to words: what survives rendering either way."""
    return re.sub(r"\s+", " ", re.sub(r"[*_`#>\[\]()|~-]", "", text)).strip()


def test_typed_message_streams_into_the_dom_and_the_kernel_thread(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("01_quickstart.ipynb")
    lab.run_all()
    chat = lab.chat(0)
    chat.scroll_into_view_if_needed()  # JupyterLab renders only the cells in view
    expect(chat.locator(".gu-offline-badge")).to_be_visible()
    # the header names the offline demo once (the badge), not also as the model name
    header = chat.locator(".gu-header").inner_text().lower()
    assert header.count("offline demo") == 1, header
    before = lab.run_json("len(chat.thread.messages)")
    replies_before = chat.locator('.gu-message[data-role="assistant"]').count()

    install_stream_recorder(chat, replies_before)
    send_from_ui(chat, TYPED)

    reply = assistant(chat, replies_before)
    expect(reply).to_have_attribute("data-status", "complete", timeout=60_000)
    expect(chat).to_have_attribute("data-phase", "idle")
    final = text_of(reply)
    samples = read_stream_samples(chat)
    assert final.strip(), "the reply rendered no text"
    # streaming: the DOM showed the reply growing, at least two partial lengths
    partial = [s["len"] for s in samples if s["status"] == "running" and 0 < s["len"] < len(final)]
    assert len(partial) >= 2 and partial[0] < max(partial), samples

    chat.screenshot(path=screenshots / "quickstart.png")

    user = chat.locator('.gu-message[data-role="user"]').last
    expect(user).to_contain_text(TYPED)
    added = lab.run_json(
        "[{'id': m.id, 'role': m.role, 'text': m.text} for m in chat.thread.messages]"
    )[before:]
    assert [m["role"] for m in added] == ["user", "assistant"]
    assert added[0]["text"] == TYPED
    assert added[1]["id"] == reply.get_attribute("data-message-id")
    longest_line = max(final.splitlines(), key=len)
    assert _plain(longest_line) in _plain(added[1]["text"])


def test_the_model_section_shows_the_picker_and_the_demos_estimated_usage(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("01_quickstart.ipynb")
    lab.run_all()
    chat = lab.chat(2)  # picker_chat: after the first chat and the weather chat
    expect(chat.locator(".gu-header button.gu-model-picker-button")).to_be_visible()
    reply = assistant(chat, 0)
    expect(reply).to_have_attribute("data-status", "complete", timeout=60_000)
    tokens = reply.locator(".gu-footer .gu-footer-item").first
    # the offline demo's tokens are its estimate, and the footer says so
    estimate = re.compile(r"^≈[\d,]+ tokens \([\d,]+ in, [\d,]+ out, estimated\)$")
    expect(tokens).to_have_text(estimate)
    assert lab.run_json("picker_chat.usage_total()['estimated']") is True
    chat.scroll_into_view_if_needed()
    try:
        for theme, name in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
            lab.set_theme(theme)
            chat.screenshot(path=screenshots / f"quickstart-usage-{name}-1280.png")
            chat.evaluate("(el) => { el.style.width = '500px'; }")
            chat.screenshot(path=screenshots / f"quickstart-usage-{name}-500.png")
            chat.evaluate("(el) => { el.style.width = ''; }")
    finally:
        lab.set_theme("JupyterLab Light")  # the theme is a saved setting: restore it
