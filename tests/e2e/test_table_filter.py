"""A paged Table's filter in real JupyterLab: a 20,000-row DataFrame is paged
from the kernel, the filter box asks the kernel for the matching rows (any
case), the count reads "20 of 20,000 rows", the CSV holds only those rows,
and clearing the box brings every row back.

One page and kernel on ``e2e/table_filter.ipynb`` (a scripted model that
shows the notebook's ``orders`` DataFrame in a Table). Screenshots of the
filtered table and of the ``@`` menu's details, light and dark at 1280 and
500 px, go to ``docs/screenshots/`` with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2


@pytest.fixture(scope="module")
def filter_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/table_filter.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, filter_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [filter_page])
    filter_page.keep_cells(SETUP_CELLS)
    return filter_page


def show_table(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    chat = lab.chat(before)
    send_from_ui(chat, "show the orders")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    return chat.locator('.gu-component[data-component="Table"]')


def test_a_paged_tables_filter_runs_in_the_kernel_and_its_csv_holds_the_matches(
    page: LabPage, tmp_path: Path
) -> None:
    table = show_table(page)
    mount = table.locator(".gu-component-body")
    note = table.locator(".gu-c-table-view .gu-c-note")
    expect(mount).to_have_attribute("data-total-rows", "20000", timeout=LONG_WAIT)
    expect(note).to_have_text("20,000 rows × 3 columns")
    box = table.locator("input.gu-c-table-filter")
    expect(box).to_be_visible()
    box.fill("NORTH bay")
    expect(note).to_have_text("20 of 20,000 rows × 3 columns", timeout=LONG_WAIT)
    expect(mount).to_have_attribute("data-total-rows", "20")
    cities = table.locator("tbody tr[data-row] td:nth-child(2)")
    expect(cities).to_have_count(20)
    assert set(cities.all_text_contents()) == {"North Bay"}
    first_id = table.locator('tbody tr[data-row="0"] td').first
    expect(first_id).to_have_text("7")  # an id column: plain digits

    with page.page.expect_download() as download:
        table.locator("button.gu-c-table-csv").click()
    saved = tmp_path / "orders.csv"
    download.value.save_as(saved)
    with saved.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 20 and {r["city"] for r in rows} == {"North Bay"}
    assert rows[0]["order_id"] == "7" and rows[-1]["order_id"] == "19007"

    box.fill("a.b")  # plain text, no pattern: nothing holds it
    expect(note).to_have_text("0 of 20,000 rows × 3 columns", timeout=LONG_WAIT)
    box.fill("")
    expect(note).to_have_text("20,000 rows × 3 columns", timeout=LONG_WAIT)
    expect(mount).to_have_attribute("data-total-rows", "20000")
    expect(table.locator('tbody tr[data-row="1"] td:nth-child(2)')).to_have_text("Southport")


def test_the_filtered_table_and_the_at_menus_details_read_in_both_themes(
    page: LabPage, screenshots: Path
) -> None:
    table = show_table(page)
    chat = page.chat(page.chats().count() - 1)
    table.locator("input.gu-c-table-filter").fill("north")
    note = table.locator(".gu-c-table-view .gu-c-note")
    expect(note).to_have_text("20 of 20,000 rows × 3 columns", timeout=LONG_WAIT)
    box = chat.locator("textarea.gu-input")
    item = chat.locator('.gu-mention-item[data-name="orders"]')
    try:
        for width in (1280, 500):
            page.page.set_viewport_size({"width": width, "height": 900})
            if width == 500:  # sidebars closed, as a narrow window would have them
                page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
            for theme in ("light", "dark"):
                if theme == "dark":
                    page.set_theme("JupyterLab Dark")
                table.scroll_into_view_if_needed()
                table.screenshot(path=screenshots / f"13-table-filter-{theme}-{width}.png")
                box.fill("")
                box.press_sequentially("compare @ord")
                expect(item).to_have_text("@orders · DataFrame · 20,000 × 3", timeout=LONG_WAIT)
                menu = chat.locator(".gu-mention-menu").bounding_box()
                composer = chat.locator(".gu-composer").bounding_box()
                assert menu is not None and composer is not None
                top = min(menu["y"], composer["y"])  # the menu opens above the box
                bottom = max(menu["y"] + menu["height"], composer["y"] + composer["height"])
                clip = {"x": composer["x"], "y": top, "width": composer["width"]}
                page.page.screenshot(
                    path=screenshots / f"13-at-menu-{theme}-{width}.png",
                    clip={**clip, "height": bottom - top},
                )
                box.press("Escape")
            page.set_theme("JupyterLab Light")
    finally:
        page.set_theme("JupyterLab Light")  # a saved setting: restore it
        page.page.set_viewport_size({"width": 1280, "height": 900})


# A reply with a long text before its table: the table (and its visually
# hidden caption) sits far down a thread taller than the chat.
_TALL_CHAT = """
LONG = "\\n\\n".join(f"Line {i}: the quick brown fox jumps over the lazy dog." for i in range(60))

def tall_reply(request):
    if request.messages and request.messages[-1].get("role") == "tool":
        return ScriptedReply(text="Here they are.")
    return ScriptedReply(
        text=LONG, tool_calls=[ScriptedCall("show_component_Table", {"dataframe": "orders"})]
    )

chat = gu.Chat(model=ScriptedModel(tall_reply), components=[gu.Table])
display(chat)
"""

# How far each box from the chat out to the notebook's scroller reaches past its
# own height, and how far it is scrolled (the notebook's own scrolling is fine).
_ANCESTOR_OVERFLOW_JS = """
(chat) => {
  const found = [];
  const notebook = chat.closest('.jp-WindowedPanel-outer, .jp-Notebook');
  for (let el = chat; el && el !== notebook; el = el.parentElement) {
    found.push({cls: el.className, extra: el.scrollHeight - el.clientHeight, top: el.scrollTop});
  }
  return found;
}
"""


def test_a_table_deep_in_the_thread_adds_no_height_outside_the_chat(
    page: LabPage, screenshots: Path
) -> None:
    before = page.chats().count()
    page.run_code(_TALL_CHAT)
    chat = page.chat(before)
    for _ in range(2):
        send_from_ui(chat, "show the orders")
        expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(chat.locator(".gu-c-table caption").first).to_be_attached(timeout=LONG_WAIT)
    thread = chat.locator(".gu-thread")
    assert thread.evaluate("(el) => el.scrollHeight > 2 * el.clientHeight")
    # nothing in the thread (a caption: 4,305 px of scroll) stretches a box around the chat
    spill = [a for a in chat.evaluate(_ANCESTOR_OVERFLOW_JS) if a["extra"] > 2]
    assert not spill, spill
    # a wheel past the thread's end leaves the chat in view (it was an empty box)
    thread.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")
    box = assistant(chat).locator(".gu-text").last.bounding_box()  # not over a table
    assert box is not None
    page.page.mouse.move(box["x"] + 20, box["y"] + box["height"] / 2)
    for _ in range(5):
        page.page.mouse.wheel(0, 800)
        page.page.wait_for_timeout(100)
    moved = [a for a in chat.evaluate(_ANCESTOR_OVERFLOW_JS) if a["top"] > 0]
    assert not moved, moved
    chat.screenshot(path=screenshots / "table-deep-in-thread-1280.png")
