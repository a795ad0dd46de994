"""The six demo notebooks after Run All, as a new user sees them, in real
JupyterLab and Chromium: axe-core (WCAG 2.1 AA, ``tests/e2e/axe.py``) finds
no violation in any widget, light or dark, and every widget is
screenshotted at 1280 and 500 px in both themes (``walk-<notebook>-<n>-
<theme>-<width>.png``: docs/screenshots with UPDATE_SCREENSHOTS=1).

Faults tried: a colour under 4.5:1 in one theme (the highlighter's numbers
on the dark code background); a control named other than what it shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator

from .axe import violations
from .harness import LabPage

pytestmark = pytest.mark.e2e

LONG_WAIT = 90_000  # ms; a ceiling for slow CI, never a measured speed
NOTEBOOKS = [
    "01_quickstart.ipynb",
    "02_components.ipynb",
    "03_data.ipynb",
    "04_agents.ipynb",
    "05_standards.ipynb",
    "06_workbench.ipynb",
    "07_replay.ipynb",
]
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def settled(widget: Locator) -> None:
    """Wait until ``widget`` runs nothing, or what runs waits for the user (a
    server's form inside a running call)."""
    widget.page.wait_for_function(
        """(el) => ['idle', 'waiting'].includes(el.dataset.phase)
            || el.querySelector('.gu-tool-controls > *') !== null""",
        arg=widget.element_handle(),
        timeout=LONG_WAIT,
    )


def look(lab: LabPage, stem: str, theme: str, screenshots: Path) -> dict[str, Any]:
    """Screenshots of every widget at 1280 and 500 px, then axe on each."""
    widgets = lab.chats()
    for width in (1280, 500):
        # tall enough for the tallest widget (the workbench): the notebook's own
        # toolbars would cover a part scrolled under them
        lab.page.set_viewport_size({"width": width, "height": 1800})
        if width == 500:  # JupyterLab's sidebar closed: open, it leaves the notebook ~130 px
            lab.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
            lab.page.wait_for_timeout(300)  # the layout settles; nothing is measured
        for i in range(widgets.count()):
            widget = widgets.nth(i)
            widget.scroll_into_view_if_needed()
            widget.screenshot(path=screenshots / f"walk-{stem}-{i}-{theme}-{width}.png")
    # axe reads the contrast of text on screen only: a tall window, each widget in view
    lab.page.set_viewport_size({"width": 1280, "height": 2400})
    found: dict[str, Any] = {}
    for i in range(widgets.count()):
        widget = widgets.nth(i)
        widget.scroll_into_view_if_needed()
        if rules := violations(widget):
            found[f"{theme}, widget {i}"] = rules
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_widget_reads_at_wcag_aa_in_light_and_dark(
    open_lab: Callable[[str], LabPage], notebook: str, screenshots: Path
) -> None:
    lab = open_lab(notebook)
    lab.run_all()
    widgets = lab.chats()
    assert widgets.count() >= 1, f"{notebook} shows no widget"
    for i in range(widgets.count()):
        if widgets.nth(i).get_attribute("data-phase") is not None:  # a chat, not the workbench
            settled(widgets.nth(i))
    stem = notebook.removesuffix(".ipynb")
    found: dict[str, Any] = {}
    try:
        for theme, name in THEMES.items():
            lab.set_theme(name)
            found |= look(lab, stem, theme, screenshots)
    finally:
        lab.set_theme(THEMES["light"])
    assert not found, json.dumps(found, indent=1)
