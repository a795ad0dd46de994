"""Small things in real JupyterLab: a Form's Submit starts a turn, the Table
says its size, filters and downloads CSV, and the ``@`` menu lists the
notebook's own DataFrames with their kind and shape.

One page and kernel on ``e2e/small_things.ipynb`` (a scripted model that
shows a Form or a Table). Screenshots of the Table and the Form, light and
dark, go to ``docs/screenshots/`` with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assert_title_above_toolbar, assistant, messages, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2


@pytest.fixture(scope="module")
def small_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/small_things.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, small_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [small_page])
    small_page.keep_cells(SETUP_CELLS)
    return small_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    return lab.chat(before)


def light_and_dark(lab: LabPage, el: Locator, shots: Path, name: str) -> None:
    el.screenshot(path=shots / f"13-{name}-light-1280.png")
    try:
        lab.set_theme("JupyterLab Dark")
        el.screenshot(path=shots / f"13-{name}-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")  # a saved setting: restore it


def test_a_forms_submit_sends_its_values_as_the_users_message(
    page: LabPage, screenshots: Path
) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show the form")
    form = chat.locator('.gu-component[data-component="Form"] form')
    expect(form).to_be_visible(timeout=LONG_WAIT)
    expect(form.locator("label").first).to_have_text("Start date")
    form.locator('[data-field="start_date"]').fill("2026-05-01")
    form.locator('[data-field="city_name"]').fill("Oslo")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    form.locator("button.gu-c-form-submit").click()
    expect(form.locator(".gu-c-form-done")).to_have_text("Sent as your message.")
    user = messages(chat, "user").nth(1)
    expect(user).to_contain_text("Submitted the form “Trip”", timeout=LONG_WAIT)
    expect(user).to_contain_text("City name: Oslo")
    expect(assistant(chat)).to_contain_text("Thanks, got your trip.", timeout=LONG_WAIT)
    assert page.run_json("chat.shown_components()[0].state.values['city_name']") == "Oslo"
    light_and_dark(page, chat.locator('.gu-component[data-component="Form"]'), screenshots, "form")


def test_the_table_says_its_size_filters_and_downloads_csv(
    page: LabPage, screenshots: Path, tmp_path: Path
) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show the table")
    table = chat.locator('.gu-component[data-component="Table"]')
    expect(table.locator("tbody tr")).to_have_count(3, timeout=LONG_WAIT)
    expect(table.locator(".gu-c-table-count")).to_have_text("3 rows × 3 columns")
    expect(table.locator("tbody tr").first.locator("td").first).to_have_text("1001")
    assert_title_above_toolbar(table, "Top products")
    light_and_dark(page, table, screenshots, "table")
    table.locator("input.gu-c-table-filter").fill("gadg")
    expect(table.locator("tbody tr")).to_have_count(1)
    expect(table.locator(".gu-c-table-count")).to_have_text("1 of 3 rows × 3 columns")
    table.locator("input.gu-c-table-filter").fill("")
    with page.page.expect_download() as download:
        table.locator("button.gu-c-table-csv").click()
    assert download.value.suggested_filename == "Top products.csv"
    saved = tmp_path / "table.csv"
    download.value.save_as(saved)
    text = saved.read_text(encoding="utf-8-sig")
    assert text.splitlines()[0] == "product_id,product,units"
    assert "1001,'=HYPERLINK(1),1200" in text  # a formula never runs in a spreadsheet


def test_the_at_menu_lists_the_notebooks_dataframes_and_attaches_one(page: LabPage) -> None:
    chat = show_chat(page)
    box = chat.locator("textarea.gu-input")
    box.fill("")
    box.press_sequentially("look at @ord")
    item = chat.locator('.gu-mention-item[data-name="orders"]')
    expect(item).to_be_visible(timeout=LONG_WAIT)
    expect(item).to_have_text("@orders · DataFrame · 3 × 3")  # what the name holds
    box.press("Enter")
    expect(chat.locator(".gu-chip-pending")).to_contain_text("@orders")
    chat.locator("button.gu-send").click()
    chip = messages(chat, "user").first.locator('.gu-attachment[data-kind="data"]')
    expect(chip).to_have_text("orders", timeout=LONG_WAIT)  # no "orders as orders"
    assert page.run_json("chat.data['orders'] is orders") is True
    box.press_sequentially("@o")  # now the chat's own data: its details too
    expect(item).to_have_text("@orders · DataFrame · 3 × 3", timeout=LONG_WAIT)
    box.press("Escape")


def test_a_default_matplotlib_figure_reads_in_the_dark_theme(
    page: LabPage, screenshots: Path
) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show the plot")
    figure = chat.locator('.gu-component[data-component="Plot"] img.gu-c-themed-figure')
    expect(figure).to_be_visible(timeout=LONG_WAIT)
    try:
        page.set_theme("JupyterLab Dark")
        assert "invert(1)" in figure.evaluate("(img) => getComputedStyle(img).filter")
        figure.screenshot(path=screenshots / "13-figure-dark-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    assert figure.evaluate("(img) => getComputedStyle(img).filter") == "none"


def test_a_tools_exception_is_said_once_on_screen(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "the weather in Paris?")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(chat.locator(".gu-tool-call")).to_have_attribute("data-status", "error")
    # the card's status line says it; the traceback and the error JSON wait, folded
    shown = chat.evaluate("(el) => el.innerText")
    assert shown.count("station offline") == 1
    assert "Traceback (most recent call last)" not in shown
