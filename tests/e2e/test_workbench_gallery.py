"""Issue 26 item 5: the registry's static HTML gallery opens in Chromium with no kernel.

``gallery_html`` exports a chat thread with one reply per component, each
shown from its sample props, the way a notebook's static HTML export embeds
a chat. The page is opened from disk with the CDN answered from
``js/node_modules`` (``test_static_export.OfflineCdn``); every built-in
component must render from its samples.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

import ipygenui as gu
from ipygenui.workbench._preview import samples_for
from ipygenui.workbench.gallery import gallery_html

from .test_static_export import NODE_MODULES, OfflineCdn

pytestmark = pytest.mark.e2e

BUILTINS = [gu.Markdown, gu.Table, gu.Metric, gu.Chart, gu.Image, gu.Form]


@pytest.mark.parametrize(("scheme", "width"), [("light", 1100), ("dark", 1100), ("light", 500)])
def test_gallery_renders_every_builtin_without_a_kernel(
    browser: Browser, tmp_path: Path, screenshots: Path, scheme: str, width: int
) -> None:
    page_file = tmp_path / "gallery.html"
    gallery_html(BUILTINS, page_file)
    for needed in ("@jupyter-widgets/html-manager", "anywidget", "requirejs"):
        assert (NODE_MODULES / needed).is_dir(), f"js/node_modules/{needed}: run `cd js && npm ci`"
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)  # type: ignore[arg-type]
    page = context.new_page()
    console: list[str] = []
    page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
    cdn = OfflineCdn()
    page.route(re.compile(r"^(https?|wss?)://"), cdn.handle)
    try:
        page.goto(page_file.as_uri())
        chat = page.locator(".gu-chat")
        expect(chat, f"console: {console}\ncdn: {cdn}").to_have_count(1, timeout=30_000)
        for component in BUILTINS:
            valid = [s for s in samples_for(component) if s.error is None]
            shown = chat.locator(f'.gu-component[data-component="{component.name}"]')
            expect(shown, component.name).to_have_count(len(valid), timeout=15_000)
        expect(chat.locator('.gu-component[data-component="Chart"] svg').first).to_be_visible()
        expect(chat.locator("table").first).to_be_visible()
        expect(chat.locator(".gu-composer")).to_be_hidden()  # no kernel would answer
        assert not [c for c in console if "pageerror" in c], console
        assert not cdn.mismatched, cdn.mismatched
        box = chat.bounding_box()
        assert box is not None
        top = {"x": box["x"], "y": box["y"], "width": box["width"], "height": 1800}
        path = screenshots / f"workbench-gallery-{scheme}-{width}.png"
        page.screenshot(path=path, full_page=True, clip=top)  # the first components
    finally:
        context.close()
