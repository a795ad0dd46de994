"""Notebook 04 end to end: a pydantic-ai agent over AG-UI drives the widget
in real JupyterLab: its component renders, its approval-gated call waits for
a click, and the agent finishes once it reads the result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .harness import LabPage
from .widget import assistant, send_from_ui, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed


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
    assert lab.run_json("chat.state") == {"note": "drop t"}

    # The MCP chat is still there after Run All, its note approved and answered in words
    mcp = lab.chat(1)
    mcp.scroll_into_view_if_needed()
    expect(tool_card(mcp, "save_note")).to_have_attribute("data-status", "done")
    expect(assistant(mcp, 0)).to_contain_text("It's 22 °C and partly cloudy in Oslo.")
    expect(assistant(mcp)).to_contain_text("Saved the note 'water the plants' to notes.txt.")
    mcp.screenshot(path=screenshots / "agents-mcp-chat.png")

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
