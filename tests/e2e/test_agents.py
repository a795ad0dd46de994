"""Notebook 04 end to end: a pydantic-ai agent over AG-UI drives the widget
in real JupyterLab: its component renders, its approval-gated call waits for
a click, and the agent finishes once it reads the result. The MCP server's
tools that ask mid-call leave a form and a sampling card waiting after Run
All; filled in and approved in the page, their calls finish."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, expect

from .harness import LabPage
from .widget import assistant, send_from_ui, shoot_in_narrow_chat, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
FIRST_SENTENCE = "MCP lets a tool server ask its client for help in the middle of a call."


def shoot(lab: LabPage, chat: Locator, card: Locator, shots: Path, name: str) -> None:
    """The chat light at full width, then its ``card`` light and dark in a
    500 px chat (nothing clipped)."""
    chat.scroll_into_view_if_needed()
    chat.screenshot(path=shots / f"agents-{name}-light-1280.png")
    shoot_in_narrow_chat(lab, chat, card, shots, f"agents-{name}")


def test_an_agent_over_agui_drives_the_widget(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("04_agents.ipynb")
    lab.run_all()  # the notebook approves its call from code
    chat = lab.chat(0)
    # Run All leaves the page at the notebook's end, and JupyterLab does not
    # render cells out of view: scroll up to the chat, as a reader would
    chat.scroll_into_view_if_needed()
    metric = chat.locator('.gu-component[data-component="Metric"]')
    expect(metric).to_contain_text("42", timeout=LONG_WAIT)
    expect(tool_card(chat, "drop_table")).to_have_attribute("data-status", "done")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(assistant(chat)).to_contain_text("Done: dropped t.")
    assert lab.run_json("chat.agent_state") == {"note": "drop t"}

    # The MCP chat is still there after Run All, its note approved and answered in words
    mcp = lab.chat(1)
    mcp.scroll_into_view_if_needed()
    expect(tool_card(mcp, "save_note")).to_have_attribute("data-status", "done")
    expect(assistant(mcp, 0)).to_contain_text("It's 22 °C and partly cloudy in Oslo.")
    expect(assistant(mcp)).to_contain_text("Saved the note 'water the plants' to notes.txt.")
    mcp.screenshot(path=screenshots / "agents-mcp-chat.png")

    # The server's form waits in the booking chat: filled in and submitted, the call books
    booking = lab.chat(2)
    booking.scroll_into_view_if_needed()
    request = tool_card(booking, "mcp_elicitation")
    form = request.locator("form.gu-c-form")
    expect(form).to_be_visible(timeout=LONG_WAIT)
    expect(tool_card(booking, "book_table")).to_have_attribute("data-status", "running")
    form.locator('[data-field="date"]').fill("2026-12-04")
    form.locator('[data-field="party_size"]').fill("4")
    shoot(lab, booking, request, screenshots, "mcp-form")
    form.locator("button.gu-c-form-submit").click()
    expect(assistant(booking)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(assistant(booking)).to_contain_text("Booked a table for 4 people on Friday 4 December")

    # The sampling card waits in the summary chat: approved, the demo answers; approved again,
    # the answer goes to the server, which returns the summary
    summary = lab.chat(3)
    summary.scroll_into_view_if_needed()
    card = tool_card(summary, "mcp_sampling")
    expect(card.locator("button.gu-approve")).to_be_visible(timeout=LONG_WAIT)
    shoot(lab, summary, card, screenshots, "mcp-sampling")
    card.locator("button.gu-approve").click()
    expect(card.locator(".gu-request-reply")).to_have_text(FIRST_SENTENCE, timeout=LONG_WAIT)
    shoot(lab, summary, card, screenshots, "mcp-sampling-answer")
    card.locator("button.gu-approve").click()
    expect(assistant(summary)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(assistant(summary)).to_contain_text(f"Summary by offline demo: {FIRST_SENTENCE}")
    expect(tool_card(summary, "summarize")).to_have_attribute("data-status", "done")

    # A second chat on the same agent, driven from the browser: the click approves.
    before = lab.chats().count()
    lab.run_code(
        "chat2 = gu.Chat(agent=gu.AGUIAgent(AGENT_URL), tools=[drop_table], "
        "components=[gu.Metric])\ndisplay(chat2)"
    )
    second = lab.chat(before)
    send_from_ui(second, "Please drop the table t")
    card = tool_card(second, "drop_table")
    approve = card.locator("button.gu-approve")
    expect(approve).to_be_visible(timeout=LONG_WAIT)
    expect(second.locator('.gu-component[data-component="Metric"]')).to_contain_text("42")
    assert lab.run_json("DROPPED") == ["t"], "the tool ran before anyone approved it"
    approve.click()
    expect(assistant(second)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(assistant(second)).to_contain_text("Done: dropped t.")
    assert lab.run_json("DROPPED") == ["t", "t"]
