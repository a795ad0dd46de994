"""The status texts say what happens, in real JupyterLab.

``e2e/status.ipynb`` scripts a Chart call whose arguments wait for ``HOLD``
(the header names the chart meanwhile) and a gated tool: after a click on
Approve its card says who decided; "Always allow" shows a grant chip whose ×
takes the grant back in the kernel. In a 500 px chat, light and dark, those
texts read whole and an approval's Reject stays beside its reason
(screenshots ``narrow-status-*``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, narrow, send_from_ui, shoot_narrow, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2


@pytest.fixture(scope="module")
def status_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/status.ipynb") as lab:
        yield lab


@pytest.fixture
def page(
    request: pytest.FixtureRequest, status_page: LabPage, lab_server: LabServer
) -> Iterator[LabPage]:
    report_on_failure(request, lab_server, [status_page])
    status_page.keep_cells(SETUP_CELLS)
    yield status_page
    status_page.run_code("HOLD.set()")  # nothing stays held for the next test


def show(lab: LabPage, factory: str) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = {factory}()\ndisplay(chat)")
    return lab.chat(before)


def test_the_header_names_the_chart_while_its_props_stream(
    page: LabPage, screenshots: Path
) -> None:
    chat = show(page, "chart_chat")
    send_from_ui(chat, "chart the sales")
    phase = chat.locator(".gu-phase")
    expect(phase).to_have_text("Drawing a chart…", timeout=LONG_WAIT)
    expect(chat).to_have_attribute("data-activity", "drawing")
    chat.screenshot(path=screenshots / "status-drawing-light-1280.png")
    try:
        page.set_theme("JupyterLab Dark")
        expect(phase).to_have_text("Drawing a chart…")
        chat.screenshot(path=screenshots / "status-drawing-dark-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    chat.locator("button.gu-stop").click()
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)
    expect(phase).to_have_text("")


def test_a_click_is_approved_by_you_and_a_grant_shows_and_is_revoked(
    page: LabPage, screenshots: Path
) -> None:
    chat = show(page, "approval_chat")
    send_from_ui(chat, "drop sales")
    expect(chat.locator(".gu-phase")).to_have_text("Waiting for your approval", timeout=LONG_WAIT)
    card = tool_card(chat, "drop_table").first
    card.locator("button.gu-approve").click()
    status = card.locator(".gu-tool-status")
    expect(status).to_have_text("Done · Approved by you", timeout=LONG_WAIT)
    assert page.run_json('chat.thread.find_tool_call("d1")[1].approval.decided_by') == "user"

    send_from_ui(chat, "drop staff")
    second = tool_card(chat, "drop_table").nth(1)
    second.locator("button.gu-always").click()
    expect(second.locator(".gu-tool-status")).to_have_text(
        "Done · Approved by you", timeout=LONG_WAIT
    )
    chip = chat.get_by_role("button", name="Stop allowing drop table without asking")
    expect(chip).to_be_visible(timeout=LONG_WAIT)
    expect(chat.get_by_role("group", name="Tools allowed without asking")).to_contain_text(
        "Allowed without asking:"
    )
    chat.screenshot(path=screenshots / "status-grant-light-1280.png")
    try:
        page.set_theme("JupyterLab Dark")
        expect(chip).to_be_visible()
        chat.screenshot(path=screenshots / "status-grant-dark-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    chip.click()
    expect(chip).to_have_count(0, timeout=LONG_WAIT)
    assert page.run_json("sorted(chat.runtime.always_allowed)") == []


def test_narrow_status_texts_read_whole(page: LabPage, screenshots: Path) -> None:
    chat = show(page, "chart_chat")
    narrow(chat)
    send_from_ui(chat, "chart the sales")
    expect(chat.locator(".gu-phase")).to_have_text("Drawing a chart…", timeout=LONG_WAIT)
    shoot_narrow(page, chat.locator(".gu-header"), screenshots, "status-drawing")
    chat.locator("button.gu-stop").click()
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)

    chat = show(page, "approval_chat")
    narrow(chat)
    send_from_ui(chat, "drop sales")
    card = tool_card(chat, "drop_table").first
    expect(card).to_have_attribute("data-status", "approval", timeout=LONG_WAIT)
    # the optional reason stays beside the Reject it goes with
    reason, reject = card.locator("input.gu-reject-reason"), card.locator("button.gu-reject")
    tops = [box["y"] for box in (reason.bounding_box(), reject.bounding_box()) if box]
    assert len(tops) == 2 and abs(tops[0] - tops[1]) <= 4, tops
    shoot_narrow(page, card, screenshots, "status-approval")
    card.locator("textarea.gu-args-editor").fill('{"name": "sales_2025_archive"}')
    card.locator("button.gu-approve").click()
    status = card.locator(".gu-tool-status")
    # the model wrote its status texts for its own arguments: the line names those that ran
    expect(status).to_have_text(
        "Ran with name: sales_2025_archive · Approved by you, edited", timeout=LONG_WAIT
    )
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    shoot_narrow(page, card, screenshots, "status-approved")
