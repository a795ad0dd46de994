"""Signing in to an MCP server at the chat's card, in real JupyterLab and
Chromium, against tests/mcp_oauth_server.py (the MCP SDK's OAuth server,
whose authorization page signs the user in at once): the card shows the
whole authorization URL; "Open sign-in page" opens it in a new tab with no
opener; the server sends that tab to the kernel's loopback listener, which
answers "Signed in"; the card goes and the server's tool answers. One page
and kernel on ``e2e/sign_in.ipynb``. Screenshots of the card, light and dark
in a 500 px chat (``narrow-sign-in-{light,dark}-500.png``) and at full width
(``sign-in-card-{light,dark}-1280.png``), go to the ``screenshots`` folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui, shoot_in_narrow_chat, shoot_themes

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2
SERVER = REPO / "tests" / "mcp_oauth_server.py"


@pytest.fixture(scope="module")
def sign_in_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/sign_in.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, sign_in_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [sign_in_page])
    sign_in_page.keep_cells(SETUP_CELLS)
    return sign_in_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({str(SERVER)!r})\ndisplay(chat)")
    return lab.chat(before)


def test_the_card_signs_in_through_the_browser_and_the_loopback(
    page: LabPage, screenshots: Path
) -> None:
    chat = show_chat(page)
    card = chat.locator(".gu-sign-in")
    expect(card).to_be_visible(timeout=LONG_WAIT)
    expect(card.locator(".gu-request-title")).to_contain_text("asks you to sign in")
    url = page.run_json("chat.sign_ins[0]['url']")
    expect(card.locator(".gu-request-url")).to_have_text(url)  # the whole address
    expect(card.locator(".gu-sign-in-wait")).to_be_visible()  # the page is on this machine
    shoot_themes(page, card, lambda theme: screenshots / f"sign-in-card-{theme}-1280.png")
    shoot_in_narrow_chat(page, chat, card, screenshots, "sign-in")
    with page.page.context.expect_page(timeout=LONG_WAIT) as opened:
        card.locator("button.gu-approve").click()
    tab = opened.value
    tab.wait_for_load_state()
    expect(tab.locator("h1")).to_have_text("Signed in", timeout=LONG_WAIT)
    assert tab.evaluate("() => window.opener") is None  # noopener
    tab.close()
    expect(card).to_have_count(0, timeout=LONG_WAIT)
    send_from_ui(chat, "read the note")
    expect(assistant(chat)).to_contain_text("Got it.", timeout=LONG_WAIT)
    result = page.run_json("chat.thread.last_assistant.tool_calls[0].result")
    assert result == {"result": "the signed-in note"}
    state = page.run_json("str(chat.get_state())")
    assert "code-" not in state and "access-" not in state and "refresh-" not in state
