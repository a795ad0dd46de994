"""A2UI end to end: a streamed surface renders progressively, a button's
event reaches the kernel with its context, an unknown component is refused.

One page and kernel on ``e2e/a2ui.ipynb``; screenshots of the demo model's
surface (``a2ui-{light,dark}-1280.png``, ``narrow-a2ui-{light,dark}-500.png``)
go to ``docs/screenshots/`` with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, narrow, send_from_ui, shoot_narrow

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2


@pytest.fixture(scope="module")
def a2ui_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/a2ui.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, a2ui_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [a2ui_page])
    a2ui_page.run_code("GATE.set()")
    a2ui_page.keep_cells(SETUP_CELLS)
    return a2ui_page


def show(lab: LabPage, factory: str = "make_chat") -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = {factory}()\ndisplay(chat)")
    return lab.chat(before)


def surface_of(chat: Locator) -> Locator:
    return chat.locator('.gu-component[data-component="A2UI"]')


def test_a_streamed_surface_renders_progressively_and_its_button_reaches_the_kernel(
    page: LabPage,
) -> None:
    chat = show(page)
    page.run_code("GATE.clear()")  # hold the arguments after the title
    send_from_ui(chat, "show the form")
    slot = surface_of(chat)
    title = slot.locator('[data-a2ui-id="title"]')
    expect(title).to_have_text("Sign up", timeout=LONG_WAIT)
    # half a surface: the title is drawn, the field and button not yet
    expect(slot).to_have_attribute("data-status", "streaming")
    expect(slot.locator(".gu-a2ui-pending").first).to_be_visible()
    expect(slot.locator("input")).to_have_count(0)
    expect(slot.locator("button.gu-a2ui-button")).to_have_count(0)

    page.run_code("GATE.set()")
    expect(slot).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(slot.locator(".gu-a2ui-pending")).to_have_count(0)
    expect(slot.locator("h3")).to_have_text("Sign up")  # its variant streamed after the text
    slot.get_by_label("Name").fill("Grace")
    slot.get_by_label("Yearly plan").check()
    slot.get_by_role("button", name="Join").click()
    # the kernel resolved the event's context against the data model and replied
    expect(assistant(chat)).to_contain_text(
        'Got {"source": "e2e", "who": "Grace", "yearly": true}', timeout=LONG_WAIT
    )
    # the press shows as a line; its JSON waits behind Details
    pressed = chat.locator('.gu-message[data-role="user"]').last
    expect(pressed.locator(".gu-user-summary")).to_have_text("Pressed Join: who, yearly on, source")
    expect(pressed.locator("pre.gu-code")).to_be_hidden()
    pressed.get_by_text("Details", exact=True).click()
    expect(pressed.locator("pre.gu-code")).to_contain_text('"sourceComponentId"')
    # the model's answer updates the surface: redrawn where it first appeared
    expect(slot.first.locator("h3")).to_have_text("Welcome, Grace!", timeout=LONG_WAIT)
    expect(slot.nth(1)).to_have_text("Updated the A2UI surface “signup” shown earlier.")
    expect(slot.first.get_by_label("Name")).to_have_value("Grace")
    surfaces = page.run_json("chat.surfaces()")
    assert surfaces[0]["surface_id"] == "signup"
    assert surfaces[0]["data"] == {"name": "Grace", "yearly": True}


def test_an_unknown_component_is_refused_in_the_browser_and_to_the_model(page: LabPage) -> None:
    chat = show(page)
    send_from_ui(chat, "show something bad")
    slot = surface_of(chat)
    expect(slot).to_have_attribute("data-status", "error", timeout=LONG_WAIT)
    expect(slot).to_contain_text("'Iframe' (id 'frame') is not in A2UI's basic catalog")
    expect(assistant(chat)).to_contain_text("Sorry, that surface was refused.", timeout=LONG_WAIT)
    assert chat.locator("iframe").count() == 0
    assert page.run_json("chat.surfaces()") == []


def test_the_demo_models_a2ui_form_light_dark_and_narrow(page: LabPage, screenshots: Path) -> None:
    chat = show(page, "make_demo_chat")
    send_from_ui(chat, "Show me an A2UI form")
    slot = surface_of(chat)
    expect(slot.get_by_role("button", name="Join")).to_be_enabled(timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    slot.get_by_label("Name").fill("Ada")
    try:
        for theme in ("light", "dark"):
            if theme == "dark":
                page.set_theme("JupyterLab Dark")
            chat.scroll_into_view_if_needed()
            page.page.mouse.move(0, 0)
            chat.screenshot(path=screenshots / f"a2ui-{theme}-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    narrow(chat)
    shoot_narrow(page, slot, screenshots, "a2ui")
