"""run_python's card in real JupyterLab: after approval it reads like a cell.

One page and kernel on ``e2e/attachments.ipynb`` (the offline demo model and
``run_python``). Faults tried: the approved code shown as a JSON string with
``\\n`` escapes instead of highlighted Python; the printed output, the figure
or a new table buried in a wall of result JSON (outside the Details fold);
a default-styled figure left white in the dark theme;
the card overflowing a 500 px page. Screenshots at 1280 and 500 px, light
and dark (into ``docs/screenshots/`` with ``UPDATE_SCREENSHOTS=1``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2

CODE = """import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
sales = pd.DataFrame({"region": ["north", "south", "east", "west"], "units": [3, 5, 2, 7]})
print("total units:", sales.units.sum())
sales.plot.bar(x="region", y="units", rot=0, figsize=(4, 2.5))"""


@pytest.fixture(scope="module")
def python_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/attachments.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, python_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [python_page])
    python_page.keep_cells(SETUP_CELLS)
    return python_page


def test_an_approved_run_shows_code_output_figure_and_table(
    page: LabPage, screenshots: Path
) -> None:
    before = page.chats().count()
    page.run_code("chat = make_chat()\ndisplay(chat)")
    chat = page.chat(before)
    send_from_ui(chat, f"Run this python:\n```python\n{CODE}\n```")
    card = tool_card(chat, "run_python")
    expect(card).to_have_attribute("data-status", "approval", timeout=LONG_WAIT)
    card.locator("button.gu-approve").click()
    expect(card).to_have_attribute("data-status", "done", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)

    code = card.locator(".gu-py-code")
    expect(code).to_be_visible()
    expect(code.locator(".hljs-keyword").first).to_have_text("import")
    expect(code).not_to_contain_text("\\n")
    expect(card.locator("pre.gu-py-stdout")).to_have_text("total units: 17\n")
    figure = card.locator(".gu-tool-figures img")
    expect(figure).to_have_count(1)
    assert figure.evaluate("(img) => img.complete && img.naturalWidth > 0")
    # a default-styled figure: transparent, recoloured in the dark theme (below)
    assert figure.evaluate("(img) => getComputedStyle(img).filter") == "none"
    table = card.locator(".gu-py-table")
    expect(table.locator(".gu-py-shape")).to_have_text("4 × 2")
    # the column's type on hover (pandas 3 names text columns "str", earlier ones "object")
    assert table.locator("thead th").first.get_attribute("title") in ("object", "str")
    expect(table.locator("tbody tr")).to_have_count(4)
    expect(table.locator("tbody tr").first).to_contain_text("north")
    # The JSON is only in the closed Details fold.
    details = card.locator("details.gu-tool-details")
    assert details.evaluate("(d) => !d.open")
    expect(card.locator(".gu-tool-result")).not_to_be_visible()
    assert page.run_json("int(sales.units.sum())") == 17  # it ran in the notebook

    shots = [("light", 1280), ("light", 500), ("dark", 1280), ("dark", 500)]
    try:
        for theme, width in shots:
            if (
                theme == "dark"
                and page.page.evaluate("document.body.dataset.jpThemeName") != "JupyterLab Dark"
            ):
                page.set_theme("JupyterLab Dark")
                # its ink turned light on the dark page, as a component's figure is
                assert "invert(1)" in figure.evaluate("(img) => getComputedStyle(img).filter")
            chat.evaluate("(el, w) => { el.style.width = w === 500 ? '500px' : ''; }", width)
            assert card.evaluate(
                "(el) => el.scrollWidth <= el.clientWidth + 1"
            )  # nothing sticks out
            card.evaluate("(el) => el.scrollIntoView({ block: 'start' })")  # the code first
            chat.screenshot(path=screenshots / f"2-run-python-card-{theme}-{width}.png")
    finally:
        page.set_theme("JupyterLab Light")  # a saved setting: restore it
        chat.evaluate("(el) => { el.style.width = ''; }")
