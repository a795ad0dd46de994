"""axe-core (WCAG 2.1 A and AA) on a chat in real JupyterLab and Chromium,
light and dark: a user message with a code fence, a reply with highlighted
code, a Metric (a rise and a fall), a Chart and the footer; no violation.

axe-core runs on the widget alone (``tests/e2e/axe.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from .axe import violations
from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
# Every kind of coloured text the reply holds: axe must have read each.
COLOURED = ("hljs-number", "hljs-title", "hljs-comment", "gu-up", "gu-down", "gu-footer")


@pytest.fixture(scope="module")
def lab(
    lab_server: LabServer, browser: Browser, request: pytest.FixtureRequest
) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/accessibility.ipynb") as page:
        report_on_failure(request, lab_server, [page])
        yield page


def test_axe_finds_no_wcag_aa_violation_in_light_and_dark(lab: LabPage, screenshots: Path) -> None:
    # the whole chat on screen: axe reads the contrast of visible text only
    lab.page.set_viewport_size({"width": 1280, "height": 2400})
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    chat = lab.chat(0)
    send_from_ui(chat, "The report for this, please:\n```python\nprint(96)\n```")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    # what axe must see: highlighted code, both deltas, the chart and the footer
    expect(chat.locator(".gu-message[data-role='user'] pre.gu-code")).to_have_count(1)
    expect(chat.locator(".hljs-number").first).to_be_visible(timeout=LONG_WAIT)
    expect(chat.locator(".hljs-title").first).to_be_visible()
    expect(chat.locator(".hljs-comment").first).to_be_visible()
    expect(chat.locator(".gu-c-metric-delta.gu-up")).to_be_visible()
    expect(chat.locator(".gu-c-metric-delta.gu-down")).to_be_visible()
    expect(chat.locator("svg.gu-c-chart")).to_be_visible()
    expect(assistant(chat).locator(".gu-footer")).to_be_visible()
    chat.scroll_into_view_if_needed()
    found = {"light": violations(chat, COLOURED)}
    chat.screenshot(path=screenshots / "accessibility-light.png")
    lab.set_theme("JupyterLab Dark")
    try:
        chat = lab.chat(0)
        found["dark"] = violations(chat, COLOURED)
        chat.screenshot(path=screenshots / "accessibility-dark.png")
    finally:
        lab.set_theme("JupyterLab Light")
    assert not found["light"] and not found["dark"], json.dumps(found, indent=1)
