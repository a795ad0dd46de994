"""An agent's own approval-gated tool, in real JupyterLab: a pydantic-ai agent
behind its own AG-UI adapter (``tests/agui_agents.py``, served in the kernel)
ends its run with an interrupt; the chat shows the same approval card as for
its own gated tools, a click on Approve resumes the agent, which runs its tool
and answers. Faults tried: the card missing or not the approval card, the
agent's tool running before the click, the agent not resumed by the click."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .harness import REPO, LabPage
from .widget import assistant, send_from_ui, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed


def test_a_click_approves_the_agents_own_call(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("e2e/agent_interrupt.ipynb")
    lab.run_all()
    lab.run_code(
        f"import contextlib, sys\nsys.path.insert(0, {str(REPO / 'tests')!r})\n"
        "from agui_agents import DELETED, agui_app, gated_agent, serve\n"
        "_agent_server = contextlib.ExitStack()\n"
        "AGENT_URL = _agent_server.enter_context(serve(agui_app(gated_agent())))\n"
        "chat = gu.Chat(agent=gu.AGUIAgent(AGENT_URL))\ndisplay(chat)"
    )
    chat = lab.chat(0)
    send_from_ui(chat, "Delete everything")
    card = tool_card(chat, "delete_everything")
    approve = card.locator("button.gu-approve")
    expect(approve).to_be_visible(timeout=LONG_WAIT)
    expect(card).to_contain_text('The agent asks: Approve delete_everything({"where":"prod"})?')
    assert lab.run_json("DELETED") == [], "the agent's tool ran before anyone approved it"
    chat.screenshot(path=screenshots / "agent-interrupt-light-1280.png")
    try:
        lab.set_theme("JupyterLab Dark")
        chat.screenshot(path=screenshots / "agent-interrupt-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")
    chat.evaluate("(el) => { el.style.width = '500px'; }")
    assert card.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")  # nothing sticks out
    chat.screenshot(path=screenshots / "agent-interrupt-light-500.png")
    chat.evaluate("(el) => { el.style.width = ''; }")
    approve.click()
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(assistant(chat)).to_contain_text("The agent read: deleted prod.")
    expect(card).to_have_attribute("data-status", "done")
    assert lab.run_json("DELETED") == ["prod"]
    assert lab.run_json("chat.thread.messages[-1].tool_calls[0].approval.decided_by") == "user"
    lab.run_code("_agent_server.close()")
