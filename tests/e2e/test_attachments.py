"""Attachments and run_python end to end, in JupyterLab and Chromium.

One page and kernel on ``e2e/attachments.ipynb`` (the offline demo model, the
``run_python`` tool and ``Table``). Faults tried:
- a CSV dropped on the composer not attached (the browser opens it, or the
  drop is ignored), its bytes lost on the comm (binary buffers), or arriving
  as text instead of a DataFrame reference in the chat's data;
- the pending chip or the text left in the composer after the kernel took
  the message, or no chip on the sent message;
- run_python's code not shown highlighted, edits in the card ignored, or the
  code running somewhere else than the notebook's namespace.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, messages, send_from_ui, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2

# A CSV file dropped on the composer, as a user's drag from the desktop delivers it.
_DROP_CSV_JS = """
(box) => {
  const transfer = new DataTransfer();
  const csv = "region,units\\nnorth,3\\nsouth,5\\n";
  transfer.items.add(new File([csv], "sales.csv", { type: "text/csv" }));
  const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
  const over = new DragEvent("dragover", init);
  box.dispatchEvent(over);
  const drop = new DragEvent("drop", init);
  box.dispatchEvent(drop);
  return [over.defaultPrevented, drop.defaultPrevented];
}
"""


@pytest.fixture(scope="module")
def attachments_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/attachments.ipynb") as lab:
        yield lab


@pytest.fixture
def page(
    request: pytest.FixtureRequest, attachments_page: LabPage, lab_server: LabServer
) -> LabPage:
    report_on_failure(request, lab_server, [attachments_page])
    attachments_page.keep_cells(SETUP_CELLS)
    return attachments_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    return lab.chat(before)


def test_dropped_csv_arrives_as_a_dataframe_reference(page: LabPage) -> None:
    chat = show_chat(page)
    prevented = chat.locator(".gu-composer-box").evaluate(_DROP_CSV_JS)
    assert prevented == [True, True]  # the browser and JupyterLab leave the file to us
    pending = chat.locator(".gu-chip-pending")
    expect(pending).to_contain_text("sales.csv")

    send_from_ui(chat, "what is in it?")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    chip = messages(chat, "user").first.locator('.gu-attachment[data-kind="data"]')
    expect(chip).to_contain_text("sales.csv")
    expect(chip).to_contain_text("as sales")
    expect(pending).to_have_count(0)  # taken by the kernel: the composer is empty again
    expect(chat.locator("textarea.gu-input")).to_have_value("")

    kernel = page.run_json(
        "[chat.thread.messages[0].attachments[0].ref, type(chat.runtime.data['sales']).__name__,"
        " chat.runtime.data['sales']['units'].tolist()]"
    )
    assert kernel == ["sales", "DataFrame", [3, 5]]
    table = chat.locator('.gu-component[data-component="Table"]')
    expect(table.locator("tbody tr")).to_have_count(2, timeout=LONG_WAIT)  # by reference
    expect(table).to_contain_text("north")


def test_run_python_edited_and_approved_in_the_card_defines_a_variable(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "Run this python:\n```python\nanswer = 6 * 7\nanswer\n```")
    card = tool_card(chat, "run_python")
    expect(card).to_have_attribute("data-status", "approval", timeout=LONG_WAIT)
    expect(card.locator(".gu-code-view .hljs-number").first).to_have_text("6")
    assert page.run_json("'answer' in globals()") is False  # nothing ran before the click

    card.locator("button.gu-code-edit").click()
    card.locator("textarea.gu-code-editor").fill("answer = 6 * 7 + 1\nanswer")
    card.locator("button.gu-approve").click()
    expect(card).to_have_attribute("data-status", "done", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert page.run_json("answer") == 43
