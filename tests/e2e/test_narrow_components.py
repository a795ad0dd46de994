"""A Table and a Form in a 500 px chat, light and dark (the status texts'
narrow test is in test_status.py).

One page on ``e2e/small_things.ipynb`` (a scripted Table and Form). Faults
tried: the Table's filter, row count and CSV button pushed out of the chat
or cut; the Form's fields or Submit wider than the chat. Screenshots
``narrow-*-{light,dark}-500.png`` go to ``docs/screenshots/`` with
UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assert_title_above_toolbar, assistant, narrow, send_from_ui, shoot_narrow

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2


def show(lab: LabPage, factory: str) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = {factory}()\ndisplay(chat)")
    chat = lab.chat(before)
    narrow(chat)
    return chat


@pytest.fixture(scope="module")
def small_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/small_things.ipynb") as lab:
        yield lab


@pytest.fixture
def components(
    request: pytest.FixtureRequest, small_page: LabPage, lab_server: LabServer
) -> LabPage:
    report_on_failure(request, lab_server, [small_page])
    small_page.keep_cells(SETUP_CELLS)
    return small_page


def test_a_narrow_table_keeps_its_filter_count_and_csv_button(
    components: LabPage, screenshots: Path
) -> None:
    chat = show(components, "make_chat")
    send_from_ui(chat, "show the table")
    table = chat.locator('.gu-component[data-component="Table"]')
    expect(table.locator("tbody tr")).to_have_count(3, timeout=LONG_WAIT)
    for part in ("input.gu-c-table-filter", ".gu-c-table-count", "button.gu-c-table-csv"):
        expect(table.locator(part)).to_be_visible()
    assert_title_above_toolbar(table, "Top products")
    shoot_narrow(components, table, screenshots, "table")


def test_a_narrow_form_fits_its_fields_and_submit(components: LabPage, screenshots: Path) -> None:
    chat = show(components, "make_chat")
    send_from_ui(chat, "show the form")
    form = chat.locator('.gu-component[data-component="Form"]')
    expect(form.locator("button.gu-c-form-submit")).to_be_enabled(timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    shoot_narrow(components, form, screenshots, "form")
