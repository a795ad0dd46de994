"""Two chats in one notebook share one copy of the widget's code.

Each Chat's ``_esm`` is the small ``static/loader.js``; the bundle is one
shared model per kernel (``widget/_bundle.py``). In real JupyterLab: both
chats render and answer, the page evaluated the bundle once; the notebook
saved with its widget state holds the bundle once; reopened on a new kernel
that has none of those models, both chats show their threads from the saved
state alone; after a kernel
restart a new chat renders from the new kernel's bundle model; a second
notebook joined to the same kernel shows its chat from the same bundle model.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import nbformat
import pytest
from playwright.sync_api import Browser, expect

from .harness import LabPage, LabServer, report_on_failure
from .widget import assistant, messages, send_from_ui, text_of

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
PATH = "e2e/two_chats.ipynb"
WIDGETS_PLUGIN = "@jupyter-widgets/jupyterlab-manager:plugin"
CELLS = [
    "import ipygenui as gu\nfirst = gu.Chat()\nfirst",
    "second = gu.Chat()\nsecond",
]
SECOND = "e2e/second_notebook.ipynb"
SECOND_CELL = "import ipygenui as gu\nthird = gu.Chat(starters=['from the second notebook'])\nthird"
BUNDLES_JS = "() => globalThis[Symbol.for('ipygenui.bundles')]?.size ?? 0"


def _put_settings(server: LabServer, plugin: str, raw: dict[str, Any]) -> None:
    body = json.dumps({"raw": json.dumps(raw)}).encode()
    request = urllib.request.Request(
        f"{server.url}/lab/api/settings/{plugin}",
        data=body,
        method="PUT",
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10):
        pass


@pytest.fixture
def pages(request: pytest.FixtureRequest, lab_server: LabServer, browser: Browser) -> Iterator[Any]:
    """New pages on the server; widget state saved with the notebook meanwhile."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, lab_server.root / PATH)
    _put_settings(lab_server, WIDGETS_PLUGIN, {"saveState": True})
    opened: list[LabPage] = []
    report_on_failure(request, lab_server, opened)

    def new_page() -> LabPage:
        lab = LabPage(lab_server, browser)
        opened.append(lab)
        return lab

    try:
        yield new_page
    finally:
        for lab in opened:
            lab.close()
        lab_server.shutdown_kernels()
        _put_settings(lab_server, WIDGETS_PLUGIN, {})


def _saved_widget_state(server: LabServer) -> dict[str, Any]:
    saved = json.loads((server.root / PATH).read_text("utf-8"))
    state: dict[str, Any] = saved["metadata"]["widgets"][
        "application/vnd.jupyter.widget-state+json"
    ]["state"]
    return state


def test_two_chats_share_the_bundle_and_reopen_from_saved_state(
    pages: Any, lab_server: LabServer
) -> None:
    lab = pages()
    lab.open(PATH)
    lab.run_all()
    first, second = lab.chat(0), lab.chat(1)
    send_from_ui(second, "Hello from the second chat")
    expect(assistant(second)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    reply = text_of(assistant(second))
    expect(first.locator("textarea.gu-input")).to_be_visible()
    assert lab.page.evaluate(BUNDLES_JS) == 1  # one evaluation for both chats

    lab.command("docmanager:save")
    state = _saved_widget_state(lab_server)
    bundles = [m for m in state.values() if "esm" in m["state"]]
    chats = [m for m in state.values() if m["state"].get("_bundle")]
    assert len(bundles) == 1 and len(chats) == 2
    assert {c["state"]["_bundle"] for c in chats} == {
        "IPY_MODEL_" + next(k for k, m in state.items() if "esm" in m["state"])
    }
    assert all(len(json.dumps(c)) < 10_000 for c in chats)
    [ran] = [k["id"] for k in lab_server.api("GET", "/api/kernels")]
    lab.close()
    lab_server.shutdown_kernels()

    # JupyterLab's widget manager needs a kernel to restore into (opened with
    # none it renders no widget at all): a new kernel that never saw these
    # models, so every view below comes from the notebook's saved state.
    reopened = pages()
    reopened.open(PATH)
    shown = reopened.chats()
    if reopened.lost_widget_models(2, LONG_WAIT / 1000):
        # JupyterLab drew an output before the new kernel's models were there
        # (``LabPage.reload`` says more): the chat never ran, so open the
        # notebook again, on the same new kernel, and check what it restores.
        reopened.close()
        reopened = pages()
        reopened.open(PATH)
        shown = reopened.chats()
    expect(shown).to_have_count(2, timeout=LONG_WAIT)
    expect(messages(shown.nth(1), "user")).to_contain_text("Hello from the second chat")
    expect(assistant(shown.nth(1))).to_have_attribute("data-status", "complete")
    assert text_of(assistant(shown.nth(1))) == reply and reply
    expect(shown.nth(0).locator("textarea.gu-input")).to_be_visible()
    [fresh] = lab_server.api("GET", "/api/kernels")
    assert fresh["id"] != ran and fresh["execution_state"] != "busy"  # it ran no cell
    assert reopened.page.evaluate(BUNDLES_JS) == 1


def test_a_chat_after_a_kernel_restart_renders(pages: Any) -> None:
    lab = pages()
    lab.open(PATH)
    lab.run_all()
    lab.chat(1)
    # the kernel's own restart (the menu's asks in a dialog first)
    lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    lab.wait_ready()
    lab.run_code("import ipygenui as gu\nthird = gu.Chat(starters=['after the restart'])\nthird")
    last = lab.page.locator(".jp-Cell").last.locator(".gu-chat")
    expect(last).to_be_visible(timeout=LONG_WAIT)
    expect(last.get_by_text("after the restart")).to_be_visible()
    assert lab.page.evaluate(BUNDLES_JS) == 1  # same code: not evaluated again


def test_a_second_notebook_on_the_same_kernel_shows_its_chat(
    pages: Any, lab_server: LabServer
) -> None:
    lab = pages()
    lab.open(PATH)
    lab.run_all()
    lab.chat(1)
    [kernel] = lab_server.api("GET", "/api/kernels")
    second = nbformat.v4.new_notebook()
    second.cells = [nbformat.v4.new_code_cell(SECOND_CELL)]
    nbformat.write(second, lab_server.root / SECOND)
    other = pages()
    other.open(SECOND)
    # the second notebook joins the first one's kernel (and its bundle model)
    other.page.evaluate(
        "(id) => window.jupyterapp.shell.currentWidget.sessionContext.changeKernel({id})",
        kernel["id"],
    )
    other.wait_ready()
    other.run_all()
    chat = other.chat(0)
    expect(chat.get_by_text("from the second notebook")).to_be_visible(timeout=LONG_WAIT)
    assert other.run_json("len({c._bundle.model_id for c in (first, second, third)})") == 1
