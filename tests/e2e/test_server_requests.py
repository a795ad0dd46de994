"""An MCP server asking mid-call, in real JupyterLab and Chromium: a sampling
request approved, answered by the chat's model and approved again; a form
from the server's schema, filled and submitted; a link shown whole and
opened only on a click; a form still waiting after a page reload, declined.

One page and kernel on ``e2e/server_requests.ipynb`` (a scripted model calling
tools of tests/mcp_asking_server.py over stdio). Screenshots of each card,
light, dark and in a 500 px window, go to ``docs/screenshots/`` with
UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui, shoot_500px_window, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2
ASKING = REPO / "tests" / "mcp_asking_server.py"
# window.open recorded, not run: whether (and with what) the card opens the link
STUB_OPEN = """() => {
  window.__opened = [];
  window.open = (...a) => { window.__opened.push(a); return null; };
}"""
URL = "https://example.org/oauth/authorize?client_id=ipygenui&state=7f3a"


@pytest.fixture(scope="module")
def asking_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/server_requests.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, asking_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [asking_page])
    asking_page.keep_cells(SETUP_CELLS)
    return asking_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({str(ASKING)!r})\ndisplay(chat)")
    return lab.chat(before)


def shoot(lab: LabPage, card: Locator, shots: Path, name: str) -> None:
    """The card light and dark at 1280 px, and light in a 500 px window."""
    card.scroll_into_view_if_needed()
    card.screenshot(path=shots / f"mcp-{name}-light-1280.png")
    try:
        lab.set_theme("JupyterLab Dark")
        card.screenshot(path=shots / f"mcp-{name}-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")  # a saved setting: restore it
    shoot_500px_window(lab, card, shots / f"mcp-{name}-light-500.png")


def test_sampling_is_approved_then_its_answer_is_approved(page: LabPage, screenshots: Path) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "summarize the article")
    card = tool_card(chat, "mcp_sampling")
    expect(card.locator(".gu-request")).to_be_visible(timeout=LONG_WAIT)
    expect(card.locator(".gu-tool-name")).to_have_text("Sampling request")
    expect(card.locator(".gu-request-title")).to_contain_text("asks the chat's model to answer:")
    expect(card.locator(".gu-request-text").first).to_have_text("Summarize in one line.")
    expect(card.locator(".gu-request-meta")).to_contain_text("at most 50 tokens")
    shoot(page, card, screenshots, "sampling")
    card.locator("button.gu-approve").click()
    reply = card.locator(".gu-request-reply")
    expect(reply).to_have_text("A notebook chat that asks before it acts.", timeout=LONG_WAIT)
    shoot(page, card, screenshots, "sampling-answer")
    card.locator("button.gu-approve").click()
    expect(assistant(chat)).to_contain_text("The server got its answer.", timeout=LONG_WAIT)
    expect(card.locator(".gu-tool-status")).to_contain_text("Answer sent to the server")
    said = page.run_json("chat.thread.last_assistant.tool_calls[0].result['result']")
    assert said.endswith("said: A notebook chat that asks before it acts. [endTurn]")


def test_a_form_from_the_servers_schema_is_submitted(page: LabPage, screenshots: Path) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "sign me up")
    card = tool_card(chat, "mcp_elicitation")
    form = card.locator("form.gu-c-form")
    expect(form).to_be_visible(timeout=LONG_WAIT)
    expect(card.locator(".gu-tool-name")).to_have_text("Form request")
    expect(card.locator(".gu-request-text")).to_have_text("Please sign up")
    form.locator('[data-field="name"]').fill("Ada")
    form.locator('[data-field="age"]').fill("36")
    shoot(page, card, screenshots, "form")
    form.locator("button.gu-c-form-submit").click()
    expect(assistant(chat)).to_contain_text("The server got its answer.", timeout=LONG_WAIT)
    said = page.run_json("chat.thread.last_assistant.tool_calls[0].result['result']")
    assert said == 'accepted {"name":"Ada","age":36,"agree":false}'
    expect(card.locator(".gu-tool-status")).to_contain_text("Answered")


def test_a_link_is_shown_whole_and_opened_only_on_a_click(page: LabPage, screenshots: Path) -> None:
    page.page.evaluate(STUB_OPEN)
    chat = show_chat(page)
    send_from_ui(chat, "open the link")
    card = tool_card(chat, "mcp_elicitation")
    expect(card.locator(".gu-request-url")).to_have_text(URL, timeout=LONG_WAIT)
    expect(card.locator(".gu-tool-name")).to_have_text("Link request")
    shoot(page, card, screenshots, "link")
    assert page.page.evaluate("() => window.__opened.length") == 0  # never opened by itself
    card.locator("button.gu-approve").click()
    assert page.page.evaluate("() => window.__opened") == [[URL, "_blank", "noopener,noreferrer"]]
    expect(assistant(chat)).to_contain_text("The server got its answer.", timeout=LONG_WAIT)
    assert page.run_json("chat.thread.last_assistant.tool_calls[0].result['result']") == "accept"
    expect(card.locator(".gu-tool-status")).to_contain_text("Link opened")


def test_a_form_still_waits_after_a_page_reload_and_is_declined(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "sign me up")
    expect(tool_card(chat, "mcp_elicitation").locator("form")).to_be_visible(timeout=LONG_WAIT)
    page.command("docmanager:save")  # the output keeps the widget view across reload
    page.reload()
    card = tool_card(page.chat(0), "mcp_elicitation")
    expect(card.locator("form.gu-c-form")).to_be_visible(timeout=LONG_WAIT)  # the kernel still asks
    card.locator("button.gu-reject").click()
    expect(assistant(page.chat(0))).to_contain_text("The server got its answer.", timeout=LONG_WAIT)
    assert page.run_json("chat.thread.last_assistant.tool_calls[0].result['result']") == "decline"
    expect(card.locator(".gu-tool-status")).to_contain_text("Declined")
