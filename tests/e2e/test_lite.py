"""The JupyterLite site (``make lite``) runs the notebooks in the browser, with no server.

A plain static file server (``http.server`` in a thread) serves ``lite/_output``;
headless Chromium opens each notebook in JupyterLite, Pyodide's kernel runs every
cell, and the chat answers from the offline demo model. Requests that leave
127.0.0.1 are refused and recorded: a notebook the build marks offline must
not need any.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Route, expect

from .harness import REPO, LabPage, report_on_failure
from .widget import assistant, send_from_ui, text_of

pytestmark = pytest.mark.e2e

SITE = REPO / "lite" / "_output"
REPORT = SITE / "offline.json"
NOTEBOOKS = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
# Pyodide starts, loads ipygenui's wheels and runs the cells: slow on a busy machine.
KERNEL_TIMEOUT = 240.0


class _SiteHandler(SimpleHTTPRequestHandler):
    # Pyodide's ES modules and wasm need their real types (strict MIME checks).
    extensions_map = {  # noqa: RUF012 - the base class's own attribute
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _StaticSite:
    """The built site on a free loopback port, as any static host would serve it."""

    def __init__(self, root: Path) -> None:
        handler = functools.partial(_SiteHandler, directory=str(root))
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> _StaticSite:
        self._thread.start()
        return self

    def log_tail(self) -> str:
        """What a failing test's report shows for the server (it logs nothing)."""
        return "(a static file server: requests are not logged)"

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)


class LitePage(LabPage):
    """A LabPage on JupyterLite: same app object, its own URLs, no token."""

    def __init__(self, site: _StaticSite, browser: Browser) -> None:
        super().__init__(site, browser)  # type: ignore[arg-type] - only .url is used
        self.site = site
        self.outside: list[str] = []
        self.context.route("**/*", self._only_loopback)

    def _only_loopback(self, route: Route) -> None:
        url = route.request.url
        if url.startswith((self.site.url + "/", "data:", "blob:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def open(self, path: str, timeout: float = KERNEL_TIMEOUT) -> None:
        self.path = path
        self.page.goto(f"{self.site.url}/lab/index.html?path={path}")
        self.wait_ready(timeout)


def _report() -> dict[str, Any]:
    if not REPORT.exists():
        pytest.skip(f"the JupyterLite site is not built ({REPORT} is missing): run `make lite`")
    report: dict[str, Any] = json.loads(REPORT.read_text("utf-8"))
    return report


@pytest.fixture(scope="module")
def site() -> Iterator[_StaticSite]:
    _report()
    with _StaticSite(SITE) as served:
        yield served


@pytest.fixture
def lite(request: pytest.FixtureRequest, site: _StaticSite, browser: Browser) -> Iterator[LitePage]:
    page = LitePage(site, browser)
    # a failure's report carries the page's console (the kernel runs in it)
    report_on_failure(request, site, [page])  # type: ignore[arg-type]  # only log_tail is used
    try:
        yield page
    finally:
        page.close()


def test_the_build_says_what_each_notebook_needs() -> None:
    report = _report()
    assert sorted(report) == NOTEBOOKS
    assert report["01_quickstart.ipynb"]["offline"]
    # the browser kernel has no sockets or subprocesses: the agents and standards notebooks say so
    for name in ("04_agents.ipynb", "05_standards.ipynb"):
        assert report[name]["needs_a_server"]
        notebook = json.loads((SITE / "files" / name).read_text("utf-8"))
        assert "make demo" in "".join(notebook["cells"][0]["source"])


def test_the_kernel_and_ipygenui_load_from_the_site_itself() -> None:
    _report()
    config = json.loads((SITE / "jupyter-lite.json").read_text("utf-8"))
    kernel = config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert kernel["disablePyPIFallback"] is True  # piplite never asks PyPI at run time
    assert "ipygenui" in kernel["loadPyodideOptions"]["packages"]
    lock = json.loads((SITE / "static/pyodide/pyodide-lock.json").read_text("utf-8"))
    packages = lock["packages"]
    todo, needed = ["ipygenui", "micropip", "ipython", "jedi", "comm"], set()
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(packages[name]["depends"])
    assert "openai" not in needed  # the demo model needs no HTTP client
    for name in sorted(needed):
        assert (SITE / "static/pyodide" / packages[name]["file_name"]).is_file(), name


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_a_notebook_runs_all_and_its_chat_answers(
    notebook: str, lite: LitePage, screenshots: Path
) -> None:
    what = _report()[notebook]
    if what["needs_a_server"]:
        pytest.skip(f"{notebook} starts a server or a process: no browser kernel can")
    if not what["offline"]:
        pytest.skip(
            f"{notebook} loads {', '.join(what['from_cdn'])} from Pyodide's CDN at run time "
            "(no package index here has them as Pyodide wheels) and this machine is offline"
        )
    lite.open(notebook)
    lite.run_all()
    chat = lite.chat(0)
    chat.scroll_into_view_if_needed()  # JupyterLab renders only the cells in view
    reply = assistant(chat, 0)
    expect(reply).to_have_attribute("data-status", "complete", timeout=60_000)
    assert text_of(reply).strip(), "the demo model's reply rendered no text"

    # typed in the browser into the notebook's last chat: the kernel in the page answers
    last = lite.chat(lite.chats().count() - 1)
    before = last.locator('.gu-message[data-role="assistant"]').count()
    send_from_ui(last, "What's the weather in Paris?")
    answer = assistant(last, before)
    expect(answer).to_have_attribute("data-status", "complete", timeout=60_000)
    assert text_of(answer).strip(), "the typed question got no answer"
    # sync tools ran (Pyodide has no threads to run them in)
    expect(lite.page.locator('.gu-tool-call[data-status="error"]')).to_have_count(0)
    last.scroll_into_view_if_needed()
    name = notebook.removesuffix(".ipynb")
    last.screenshot(path=screenshots / f"lite-{name}.png")
    lite.page.screenshot(path=screenshots / f"lite-{name}-page.png")
    assert lite.outside == [], f"the site fetched from outside: {lite.outside}"
