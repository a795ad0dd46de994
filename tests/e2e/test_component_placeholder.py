"""A component call shows a placeholder from its name on, in real JupyterLab.

Gemini, Ollama and Groq send a call's whole arguments in one piece, maybe a
while after its name. ``e2e/placeholder.ipynb`` scripts exactly that: a Table
call by name, its arguments held until the test sets ``HOLD``. The browser
must show "Preparing the table…" (a busy status) meanwhile, then the table,
settled in one step; a stop while the arguments are held leaves no
placeholder behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2

# Records every data-status a component slot takes, in order (the slot is
# made after this runs: the observer watches the whole chat).
_STATUS_RECORDER_JS = """
(root) => {
  const seen = [];
  const note = (el) => {
    const status = el.dataset.status;
    if (seen[seen.length - 1] !== status) seen.push(status);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const node of r.addedNodes ?? []) {
        if (node.nodeType === 1) node.querySelectorAll?.('.gu-component').forEach(note);
      }
      if (r.type === 'attributes' && r.target.classList?.contains('gu-component')) note(r.target);
    }
  }).observe(root, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'],
  });
  root.__guSlotStatuses = seen;
}
"""


@pytest.fixture(scope="module")
def placeholder_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/placeholder.ipynb") as lab:
        yield lab


@pytest.fixture
def page(
    request: pytest.FixtureRequest, placeholder_page: LabPage, lab_server: LabServer
) -> Iterator[LabPage]:
    report_on_failure(request, lab_server, [placeholder_page])
    placeholder_page.keep_cells(SETUP_CELLS)
    yield placeholder_page
    placeholder_page.run_code("HOLD.set()")  # nothing stays held for the next test


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    return lab.chat(before)


def test_the_placeholder_names_the_table_then_the_table_settles_in_one_step(
    page: LabPage, screenshots: Path
) -> None:
    chat = show_chat(page)
    chat.evaluate(_STATUS_RECORDER_JS)
    send_from_ui(chat, "show the trip")
    slot = chat.locator('.gu-component[data-component="Table"]')
    # the placeholder is the slot's busy status (the settled table has a row-count status)
    placeholder = slot.locator('[role="status"][aria-busy="true"]')
    expect(placeholder).to_have_text("Preparing the table…", timeout=LONG_WAIT)
    expect(placeholder).to_have_attribute("aria-busy", "true")
    expect(slot).to_have_attribute("data-status", "preparing")
    expect(slot.locator("table")).to_have_count(0)
    expect(assistant(chat)).to_have_attribute("data-status", "running")

    colors = "(el) => getComputedStyle(el).backgroundColor + ' ' + getComputedStyle(el).color"
    light = placeholder.evaluate(colors)
    chat.screenshot(path=screenshots / "component-placeholder-light.png")
    try:
        page.set_theme("JupyterLab Dark")  # returns once the theme's splash is gone
        expect(placeholder).to_be_visible()
        dark = placeholder.evaluate(colors)
        chat.screenshot(path=screenshots / "component-placeholder-dark.png")
    finally:
        page.set_theme("JupyterLab Light")  # the theme is a saved setting: restore it
    assert dark != light, "the placeholder ignores JupyterLab's theme"

    page.run_code("HOLD.set()")
    table = slot.locator("table")
    expect(table.locator("tbody tr")).to_have_count(3, timeout=LONG_WAIT)
    expect(table.locator("caption")).to_have_text("Trip")
    expect(placeholder).to_have_count(0)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    chat.screenshot(path=screenshots / "component-placeholder-settled.png")
    # whole arguments: from the placeholder straight to the settled table
    assert chat.evaluate("(root) => root.__guSlotStatuses") == ["preparing", "complete"]
    shown = page.run_json("[(s.name, len(s.props.rows)) for s in chat.shown_components()]")
    assert shown == [["Table", 3]]


def test_a_stop_while_the_arguments_are_held_leaves_no_placeholder(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show the trip")
    slot = chat.locator('.gu-component[data-component="Table"]')
    expect(slot.locator('[role="status"][aria-busy="true"]')).to_have_text(
        "Preparing the table…", timeout=LONG_WAIT
    )
    chat.locator("button.gu-stop").click()
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)
    expect(slot.locator(".gu-component-placeholder")).to_have_count(0)
    expect(slot).to_have_attribute("data-status", "error")
    expect(slot.locator(".gu-component-invalid")).to_contain_text("Not shown:")
