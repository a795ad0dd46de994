"""Smoke test in Notebook 7: the file browser lists the notebooks, and the
quickstart's chat renders, takes a typed message and streams a reply.

Notebook 7 (the ``notebook`` package) is served by the same server as the
JupyterLab tests (``/tree`` and ``/notebooks/...``); the harness's page
actions work there too (the server exposes Notebook 7's app object as well).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from .harness import LabPage, LabServer, report_on_failure
from .widget import assistant, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed


@pytest.fixture
def notebook7(
    request: pytest.FixtureRequest, lab_server: LabServer, browser: Browser
) -> Iterator[LabPage]:
    assert importlib.util.find_spec("notebook") is not None, (
        "Notebook 7 is not installed: `pip install notebook` (it is in the test extra)"
    )
    page = LabPage(lab_server, browser)
    report_on_failure(request, lab_server, [page])
    try:
        yield page
    finally:
        page.close()
        lab_server.shutdown_kernels()


def test_notebook7_lists_the_notebooks_and_the_chat_answers(
    notebook7: LabPage, lab_server: LabServer
) -> None:
    page = notebook7.page
    token = f"?token={lab_server.token}"
    page.goto(f"{lab_server.url}/tree{token}")
    expect(page.get_by_text("01_quickstart.ipynb")).to_be_visible(timeout=LONG_WAIT)

    notebook7.path = "01_quickstart.ipynb"
    page.goto(f"{lab_server.url}/notebooks/01_quickstart.ipynb{token}")
    notebook7.wait_ready()
    notebook7.run_all()

    chat = notebook7.chat(0)
    expect(chat.locator(".gu-offline-badge")).to_be_visible()
    send_from_ui(chat, "Hello from Notebook 7")
    expect(chat.locator('.gu-message[data-role="user"]').last).to_contain_text(
        "Hello from Notebook 7", timeout=LONG_WAIT
    )
    reply = assistant(chat)
    expect(reply).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert reply.locator(".gu-text").first.inner_text().strip(), "the reply rendered no text"
    # bounded here too: the thread scrolls inside a chat at most 640 px tall
    thread = chat.locator(".gu-thread")
    assert thread.evaluate("(el) => getComputedStyle(el).overflowY") == "auto"
    assert chat.evaluate("(el) => el.getBoundingClientRect().height") <= 641
