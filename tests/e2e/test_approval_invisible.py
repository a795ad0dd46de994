"""Invisible and bidirectional characters on the approval card, in JupyterLab and Chromium.

The scripted model of ``e2e/invisible.ipynb`` calls a gated tool, and ``run_python``,
with a RIGHT-TO-LEFT OVERRIDE and a ZERO WIDTH SPACE in what it asks to run (the
"Trojan Source" trick: ``report<RLO>fdp.exe`` reads as ``reportexe.pdf``). Faults tried:

- the characters reach the card unmarked (no chip, no warning), or the override still
  reorders the text after it (measured on the rendered glyphs, not on the DOM);
- the arguments editor holds them out of sight, or Approve changes them (the tool must
  receive the exact string the model sent);
- run_python's highlighted code loses its marks when the highlighter arrives late.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2  # markdown intro + setup code in invisible.ipynb
RLO, ZWSP = "\u202e", "\u200b"

# Whether the glyph of `first` is drawn left of the glyph of `last` in the text node of
# `root` that holds `word` (an override left unmarked draws the word backwards).
_READS_LEFT_TO_RIGHT_JS = """
(root, [word, first, last]) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(word);
    if (at < 0) continue;
    const box = (i) => {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      return range.getBoundingClientRect();
    };
    const a = box(at + word.indexOf(first));
    const b = box(at + word.lastIndexOf(last));
    return a.left < b.left;
  }
  return null;
}
"""


@pytest.fixture(scope="module")
def invisible_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/invisible.ipynb") as lab:
        yield lab


@pytest.fixture
def lab(request: pytest.FixtureRequest, invisible_page: LabPage, lab_server: LabServer) -> LabPage:
    """The notebook back to its setup cells, nothing received yet."""
    report_on_failure(request, lab_server, [invisible_page])
    invisible_page.run_code("RECEIVED.clear()")
    invisible_page.keep_cells(SETUP_CELLS)
    return invisible_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    return lab.chat(before)


def chip_labels(root: Locator) -> list[str]:
    labels: list[str] = root.locator(".gu-invisible").evaluate_all(
        "(chips) => chips.map((c) => c.dataset.codePoint)"
    )
    return labels


def visible_chip_widths(root: Locator) -> list[float]:
    widths: list[float] = root.locator(".gu-invisible").evaluate_all(
        "(chips) => chips.map((c) => c.getBoundingClientRect().width)"
    )
    return widths


def test_arguments_show_chips_and_approve_sends_the_exact_string(
    lab: LabPage, screenshots: Path, tmp_path: Path
) -> None:
    chat = show_chat(lab)
    send_from_ui(chat, "Please rename the report")
    card = tool_card(chat, "rename_file")
    expect(card.locator("button.gu-approve")).to_be_visible(timeout=LONG_WAIT)

    warning = card.locator(".gu-invisible-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text(
        "This call contains 2 invisible or bidirectional characters, shown as"
    )
    expect(warning).to_contain_text("what you read may not be what runs")
    expect(warning.locator("li")).to_have_text(["RIGHT-TO-LEFT OVERRIDE", "ZERO WIDTH SPACE"])
    # the editor cannot hold chips: it writes them as JSON escapes, in sight
    editor = card.get_by_role("textbox", name="Arguments for rename_file")
    assert "report\\u202efdp.exe" in editor.input_value()
    assert RLO not in editor.input_value() and ZWSP not in editor.input_value()

    card.locator("summary", has_text="Details").click()
    args_view = card.locator(".gu-tool-args")
    # coloured by the highlighter, which the page fetched only after this card showed
    expect(args_view.locator(".hljs-attr").first).to_be_visible(timeout=LONG_WAIT)
    assert chip_labels(args_view) == ["U+202E", "U+200B"]
    assert all(width > 12 for width in visible_chip_widths(args_view)), "a chip is not seen"
    # the override no longer turns "fdp.exe" into "exe.pdf" on screen
    assert args_view.evaluate(_READS_LEFT_TO_RIGHT_JS, ["fdp.exe", "f", "e"]) is True

    chat.screenshot(path=screenshots / "approval-invisible-light.png")
    try:
        lab.set_theme("JupyterLab Dark")  # returns once the theme's splash is gone
        chat.screenshot(path=tmp_path / "approval-invisible-dark.png")
    finally:
        lab.set_theme("JupyterLab Light")  # the theme is a saved setting: restore it
    chat.evaluate("(el) => { el.style.width = '500px'; }")
    chat.screenshot(path=tmp_path / "approval-invisible-500px.png")
    chat.evaluate("(el) => { el.style.width = ''; }")

    card.get_by_role("button", name="Approve", exact=True).click()
    expect(assistant(chat)).to_contain_text("Done.", timeout=LONG_WAIT)
    received = lab.run_json("RECEIVED")
    assert received == [{"name": f"report{RLO}fdp.exe", "note": f"keep{ZWSP} a copy"}]


def test_run_python_code_is_marked_highlighted_and_runs_as_sent(
    lab: LabPage, tmp_path: Path
) -> None:
    chat = show_chat(lab)
    send_from_ui(chat, "Run some python")
    card = tool_card(chat, "run_python")
    expect(card).to_have_attribute("data-status", "approval", timeout=LONG_WAIT)
    view = card.locator(".gu-code-view")
    # highlighted and still marked
    expect(view.locator(".hljs-string").first).to_be_visible(timeout=LONG_WAIT)
    assert chip_labels(view) == ["U+202E", "U+200B"]
    assert all(width > 12 for width in visible_chip_widths(view)), "a chip is not seen"
    assert view.evaluate(_READS_LEFT_TO_RIGHT_JS, ["gnp", "g", "p"]) is True
    expect(card.locator(".gu-invisible-warning")).to_contain_text("In the code, line 1")
    card.screenshot(path=tmp_path / "approval-invisible-code.png")

    card.get_by_role("button", name="Approve", exact=True).click()
    expect(card).to_have_attribute("data-status", "done", timeout=LONG_WAIT)
    assert lab.run_json("label") == f"safe{RLO}gnp{ZWSP}.exe"
