"""The chat's controls end to end, keyboard only, in real JupyterLab and Chromium:
each message's actions are one Tab stop (arrows inside), Enter on Approve keeps
the focus in the chat, Esc stops a streaming reply, and the icons are drawn
(SVG with a size, no emoji). Screenshots in light and dark, at 1280 and 500 px.

Uses ``e2e/flows.ipynb`` (its scripted model and tools, see test_flows.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, messages, send_from_ui, tab_to, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2  # markdown intro + setup code in flows.ipynb
ACTIONS = {"Copy message", "Edit message", "Regenerate reply", "Good reply", "Bad reply"}


@pytest.fixture(scope="module")
def flows_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/flows.ipynb") as lab:
        yield lab


@pytest.fixture
def flows(request: pytest.FixtureRequest, flows_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [flows_page])
    flows_page.run_code("RUNS.clear()\nMODELS.clear()\nGATE.set()\nFAILURES[0] = 1")
    flows_page.keep_cells(SETUP_CELLS)
    return flows_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    return lab.chat(before)


def focused_name(chat: Locator) -> str | None:
    name: str | None = chat.evaluate(
        "(root) => root.contains(document.activeElement)"
        " ? document.activeElement.getAttribute('aria-label') || document.activeElement.className"
        " : null"
    )
    return name


def test_four_turns_take_one_tab_stop_per_message_and_arrows_move_inside(
    flows: LabPage, screenshots: Path
) -> None:
    chat = show_chat(flows)
    for turn in range(4):
        send_from_ui(chat, f"hello {turn}")
        expect(messages(chat, "assistant")).to_have_count(turn + 1, timeout=LONG_WAIT)
        expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    box = chat.get_by_role("textbox", name="Message")
    stops = tab_to(chat, box)
    actions = [s for s in stops if s in ACTIONS]
    assert len(actions) == 8, stops  # eight messages, one stop each (was five a reply)
    assert len(stops) < 16, stops

    # arrows move inside a toolbar; the key stays out of JupyterLab (no cell moved)
    toolbar = chat.get_by_role("toolbar").last
    toolbar.get_by_role("button", name="Copy message").focus()
    cells = flows.cell_count()
    flows.page.keyboard.press("ArrowRight")
    assert focused_name(chat) == "Regenerate reply"
    flows.page.keyboard.press("End")
    assert focused_name(chat) == "Bad reply"
    assert flows.cell_count() == cells

    # "/" in the chat comes back to the box
    flows.page.keyboard.press("/")
    expect(box).to_be_focused()
    expect(box).to_have_value("")

    # icons are drawn: every visible icon has a box, and no emoji is left as text
    sizes = chat.evaluate(
        "(root) => [...root.querySelectorAll('svg.gu-icon')]"
        ".filter((s) => s.getClientRects().length)"
        ".map((s) => [s.getBoundingClientRect().width, s.childElementCount])"
    )
    assert sizes and all(w >= 12 and n > 0 for w, n in sizes), sizes
    text = chat.inner_text()
    assert not any(ch in text for ch in "📎👍👎⤓‹›▸"), text

    # no empty band under a user bubble: its actions sit beside it
    gap = chat.evaluate(
        """(root) => {
          const user = root.querySelector('.gu-message[data-role="user"]');
          const bubble = user.querySelector('.gu-bubble');
          return user.getBoundingClientRect().bottom - bubble.getBoundingClientRect().bottom;
        }"""
    )
    assert gap < 4, gap
    chat.locator(".gu-message").last.hover()
    chat.screenshot(path=screenshots / "controls-actions-light-1280.png")
    chat.evaluate("(el) => { el.style.width = '500px'; }")
    chat.screenshot(path=screenshots / "controls-actions-light-500.png")
    flows.set_theme("JupyterLab Dark")
    try:
        chat = flows.chat(flows.chats().count() - 1)
        chat.locator(".gu-message").last.hover()
        chat.screenshot(path=screenshots / "controls-actions-dark-500.png")
        chat.evaluate("(el) => { el.style.width = ''; }")
        chat.screenshot(path=screenshots / "controls-actions-dark-1280.png")
    finally:
        flows.set_theme("JupyterLab Light")


def test_enter_on_approve_keeps_the_focus_in_the_chat(flows: LabPage) -> None:
    chat = show_chat(flows)
    send_from_ui(chat, "Please drop the sales table")
    card = tool_card(chat, "drop_table")
    approve = card.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=LONG_WAIT)
    # a reply waiting for approval is not rated or regenerated yet
    expect(assistant(chat).get_by_role("button", name="Regenerate reply")).to_be_hidden()
    expect(assistant(chat).get_by_role("button", name="Good reply")).to_be_hidden()
    approve.focus()
    flows.page.keyboard.press("Enter")
    expect(approve).to_have_count(0, timeout=LONG_WAIT)
    expect(chat.get_by_role("textbox", name="Message")).to_be_focused()
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert flows.run_json("RUNS") == ["sales"]


def test_esc_in_the_chat_stops_a_streaming_reply(flows: LabPage) -> None:
    chat = show_chat(flows)
    flows.run_code("GATE.clear()")
    send_from_ui(chat, "write something long")
    expect(assistant(chat).locator(".gu-text")).to_contain_text("Word99", timeout=LONG_WAIT)
    chat.get_by_role("textbox", name="Message").focus()
    flows.page.keyboard.press("Escape")
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)
    flows.run_code("GATE.set()")
    assert flows.run_json("chat.thread.messages[-1].status.reason") == "cancelled"
    # a stopped reply offers Retry alone
    expect(chat.get_by_role("button", name="Retry", exact=True)).to_be_visible()
    expect(assistant(chat).get_by_role("button", name="Regenerate reply")).to_be_hidden()
