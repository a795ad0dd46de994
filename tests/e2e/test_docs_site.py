"""The documentation site (``make docs``) shows the notebooks' chats live, offline.

The built ``site/`` is served over loopback and opened in Chromium with every
request to another host aborted and recorded. The quickstart's page must
render its chats from their saved widget state with the widget manager,
require.js and anywidget the site serves itself (``docs/hooks/offline_widgets.py``),
and no request may have needed the network; opened from disk
(``site/index.html``, as the README says) it must render them too.
Screenshots of the landing page, a guide, the API reference and the
quickstart, light and dark, go to ``docs/screenshots/docs-site-*`` with
UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from ipygenui.models.base import ModelRequest
from ipygenui.models.demo import demo_reply

from .harness import REPO, serving
from .widget import assistant, messages

pytestmark = pytest.mark.e2e

FIRST_PROMPT = "Hello! What can you do?"  # the quickstart's first chat
FIRST_REPLY = demo_reply(ModelRequest(messages=[{"role": "user", "content": FIRST_PROMPT}])).text
LOOPBACK = {"127.0.0.1", "localhost", "[::1]"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site: ``site/`` from ``make docs``, else built here (about 2 min)."""
    built = REPO / "site"
    if (built / "objects.inv").is_file():
        return built
    out = tmp_path_factory.mktemp("site")
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
    )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"mkdocs build failed:\n{done.stdout}\n{done.stderr}"
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site_url(site: Path) -> Iterator[str]:
    with serving(functools.partial(_QuietHandler, directory=str(site))) as url:
        yield url + "/"


class Offline:
    """Lets loopback requests through, aborts the rest and records them."""

    def __init__(self) -> None:
        self.refused: list[str] = []

    def handle(self, route: Route) -> None:
        url = route.request.url
        host = urllib.parse.urlsplit(url).hostname or ""
        local = url.startswith(("data:", "blob:", "file:"))
        if local or host in LOOPBACK or f"[{host}]" in LOOPBACK:
            route.continue_()
        else:
            self.refused.append(url)
            route.abort()


def _open(browser: Browser, url: str, scheme: str) -> tuple[Page, Offline, list[str]]:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        color_scheme=scheme,  # type: ignore[arg-type]
    )
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
    offline = Offline()
    page.route("**/*", offline.handle)
    page.goto(url)
    return page, offline, console


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_quickstart_page_shows_its_chats_live_with_no_network(
    browser: Browser, site_url: str, scheme: str, screenshots: Path
) -> None:
    page, offline, console = _open(browser, site_url + "notebooks/01_quickstart.html", scheme)
    try:
        chats = page.locator(".jp-OutputArea-output .gu-chat")
        expect(chats, f"console: {console}").to_have_count(3, timeout=30_000)
        first = chats.nth(0)
        expect(messages(first, "user").locator(".gu-bubble")).to_have_text(FIRST_PROMPT)
        reply = assistant(first)
        expect(reply).to_have_attribute("data-status", "complete")
        assert "How do I use a real model?" in FIRST_REPLY
        expect(reply).to_contain_text("How do I use a real model?")  # the reply's last line
        expect(assistant(chats.nth(1))).to_contain_text("It's 21 °C and clear in Paris.")
        first.scroll_into_view_if_needed()
        page.screenshot(path=screenshots / f"docs-site-quickstart-{scheme}-1280.png")
        assert offline.refused == [], f"requests that left loopback: {offline.refused}"
    finally:
        page.context.close()


def test_the_quickstart_page_opened_from_disk_shows_its_chats(browser: Browser, site: Path) -> None:
    # README: `make docs`, then open site/index.html (use_directory_urls: false)
    page, offline, console = _open(browser, (site / "index.html").as_uri(), "light")
    try:
        page.get_by_role("link", name="ipygenui quickstart").first.click()
        assert page.url.endswith("/notebooks/01_quickstart.html"), page.url
        chats = page.locator(".jp-OutputArea-output .gu-chat")
        expect(chats, f"console: {console}").to_have_count(3, timeout=30_000)
        expect(assistant(chats.nth(1))).to_contain_text("It's 21 °C and clear in Paris.")
        assert offline.refused == [], f"requests that left the machine: {offline.refused}"
    finally:
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(
    ("name", "path"),
    [("home", "index.html"), ("guide", "guides/tools.html"), ("api", "api/index.html")],
)
def test_the_pages_load_nothing_from_the_network(
    browser: Browser, site_url: str, scheme: str, name: str, path: str, screenshots: Path
) -> None:
    page, offline, console = _open(browser, site_url + path, scheme)
    try:
        expect(page.locator("article h1").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        page.screenshot(path=screenshots / f"docs-site-{name}-{scheme}-1280.png")
        assert offline.refused == [], f"requests that left loopback: {offline.refused}"
        assert not [line for line in console if line.startswith("pageerror")], console
    finally:
        page.context.close()
