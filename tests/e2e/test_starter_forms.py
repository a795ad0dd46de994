"""Starters with a form in real JupyterLab and Chromium, with a real MCP server
written with the ``mcp`` SDK (tests/mcp_changing_server.py): the server's
prompt with arguments is a starter; its form opens, the city field gets the
server's completions as the user types, one is picked, Send has the server
fill the prompt and the filled text goes as the user's message, answered by
the chat's model. A Send without the required city stays in the form. The
open chat's starters follow the server's ``list_changed``: a prompt added
shows, one removed goes with its open form, the view never drawn again.

One page and kernel on ``e2e/starter_forms.ipynb``. Screenshots of the form,
light, dark and in a 500 px window, go to ``docs/screenshots/`` with
UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, messages, shoot_500px_window

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2
SERVER = REPO / "tests" / "mcp_changing_server.py"


@pytest.fixture(scope="module")
def forms_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/starter_forms.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, forms_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [forms_page])
    forms_page.keep_cells(SETUP_CELLS)
    return forms_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({str(SERVER)!r})\ndisplay(chat)")
    return lab.chat(before)


def shoot(lab: LabPage, form: Locator, shots: Path) -> None:
    """The empty thread with its open form, light and dark at 1280 px, and
    light in a 500 px window."""
    form = form.locator("xpath=ancestor::div[contains(@class, 'gu-empty')]")
    form.scroll_into_view_if_needed()
    form.screenshot(path=shots / "starter-form-light-1280.png")
    try:
        lab.set_theme("JupyterLab Dark")
        form.screenshot(path=shots / "starter-form-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")  # a saved setting: restore it
    shoot_500px_window(lab, form, shots / "starter-form-light-500.png")


def test_a_prompt_with_arguments_is_filled_in_its_form_completed_and_sent(
    page: LabPage, screenshots: Path
) -> None:
    chat = show_chat(page)
    starters = chat.get_by_role("group", name="Starters to fill in")
    starters.get_by_role("button", name="plan_trip…").click()
    form = chat.get_by_role("form", name="plan_trip")
    expect(form).to_be_visible()
    expect(form.locator(".gu-starter-form-description")).to_have_text("Plan a trip.")
    form.get_by_role("button", name="Send").click()  # no city yet: the form says so
    expect(form.get_by_role("alert")).to_have_text("Fill in city first.")
    city = form.get_by_role("combobox", name="city (required)")
    city.press_sequentially("Pa", delay=50)
    expect(form.get_by_role("alert")).to_be_hidden()  # typing answers it
    suggestions = form.get_by_role("listbox", name="Suggestions for city")
    expect(suggestions.get_by_role("option")).to_have_text(["Paris", "Padua"], timeout=LONG_WAIT)
    form.get_by_role("combobox", name="days").fill("4")
    city.focus()
    city.press("End")
    city.press_sequentially("d", delay=50)  # "Pad": asked again, with days as context
    expect(suggestions.get_by_role("option")).to_have_text(["Padua"], timeout=LONG_WAIT)
    shoot(page, form, screenshots)
    suggestions.get_by_role("option", name="Padua").click()
    expect(city).to_have_value("Padua")
    form.get_by_role("button", name="Send").click()
    expect(messages(chat, "user").locator(".gu-text")).to_have_text(
        ["Plan a 4-day trip to Padua"], timeout=LONG_WAIT
    )
    expect(assistant(chat).locator(".gu-text")).to_have_text(
        "You asked: Plan a 4-day trip to Padua", timeout=LONG_WAIT
    )
    expect(form).to_have_count(0)  # accepted: the form closed, the thread took over


def test_the_open_chats_starters_follow_the_servers_list_changes(page: LabPage) -> None:
    chat = show_chat(page)
    forms = chat.get_by_role("group", name="Starters to fill in")
    plain = chat.get_by_role("group", name="Conversation starters")
    expect(forms.get_by_role("button")).to_have_text(["plan_trip…"], timeout=LONG_WAIT)
    forms.get_by_role("button", name="plan_trip…").click()
    expect(chat.get_by_role("form", name="plan_trip")).to_be_visible()
    chat.evaluate("(el) => { el.__guSameView = true; }")  # a view drawn again would lose it
    # the server's own tools change its prompts (its list_changed): the chat is not shown again
    page.run_code('await chat.runtime.tools["add_prompt"]({})')
    expect(plain.get_by_role("button", name="Welcome me to the changed server")).to_be_visible(
        timeout=LONG_WAIT
    )
    page.run_code('await chat.runtime.tools["remove_prompt"]({})')
    expect(forms.get_by_role("button")).to_have_count(0, timeout=LONG_WAIT)
    expect(chat.get_by_role("form", name="plan_trip")).to_have_count(0)  # its prompt went
    assert chat.evaluate("(el) => el.__guSameView === true")
