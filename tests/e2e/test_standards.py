"""Notebook 05 end to end, as a reader runs it in real JupyterLab: after Run
All the demo model's A2UI form is drawn and its Join button's event, with
what was typed, reaches the kernel (the model answers it, ``surfaces()``
reads the data back); the demo server's MCP app is in its sandboxed iframe,
shows the call's input and result, and its "Ask about tomorrow" message
reaches the thread once the user sends it.

Screenshots (light and dark at 1280 px, light and dark in a 500 px chat) go
to ``docs/screenshots/standards-*`` with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, expect

from .harness import LabPage
from .widget import assistant, messages, shoot_in_narrow_chat, shoot_themes, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed


def shoot(lab: LabPage, chat: Locator, shown: Locator, shots: Path, name: str) -> None:
    """The chat light and dark at full width, then ``shown`` light and dark in
    a 500 px chat (nothing clipped)."""
    shoot_themes(lab, chat, lambda theme: shots / f"standards-{name}-{theme}-1280.png")
    shoot_in_narrow_chat(lab, chat, shown, shots, f"standards-{name}")


def test_the_standards_notebook_shows_an_a2ui_form_and_an_mcp_app(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("05_standards.ipynb")
    lab.run_all()

    # A2UI: the form is drawn; typed in and joined, its event reaches the kernel
    form_chat = lab.chat(0)
    form_chat.scroll_into_view_if_needed()
    surface = form_chat.locator('.gu-component[data-component="A2UI"]')
    join = surface.get_by_role("button", name="Join")
    expect(join).to_be_enabled(timeout=LONG_WAIT)
    expect(assistant(form_chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    surface.get_by_label("Name").fill("Ada")
    surface.get_by_label("Email").fill("ada@example.org")
    shoot(lab, form_chat, surface, screenshots, "a2ui")
    join.click()
    expect(assistant(form_chat)).to_contain_text(
        "Thanks, Ada! I got the A2UI event join from the surface demo_signup: "
        "you joined at ada@example.org",
        timeout=LONG_WAIT,
    )
    [read] = lab.run_json("form_chat.surfaces()")
    assert read["data"] == {"name": "Ada", "email": "ada@example.org", "digest": True}

    # the demo's follow-up chips: clicked, the question goes; its answer's examples are chips
    chip = form_chat.locator("button.gu-suggestion", has_text="What can you do?")
    expect(chip).to_be_visible(timeout=LONG_WAIT)
    chip.click()
    expect(messages(form_chat, "user").last).to_have_text("What can you do?", timeout=LONG_WAIT)
    offered = form_chat.locator("button.gu-suggestion", has_text="Show me an A2UI form")
    expect(offered).to_be_visible(timeout=LONG_WAIT)
    shoot_themes(lab, form_chat, lambda theme: screenshots / f"standards-chips-{theme}-1280.png")

    # MCP Apps: the server's page in its sandboxed iframe, fed the call's input and result
    app_chat = lab.chat(1)
    app_chat.scroll_into_view_if_needed()
    card = tool_card(app_chat, "weather_dashboard")
    frame = card.locator("iframe.gu-app-frame")
    expect(frame).to_have_attribute("sandbox", "allow-scripts allow-forms", timeout=LONG_WAIT)
    app = card.frame_locator("iframe.gu-app-frame")
    expect(app.locator("#city")).to_have_text("Weather in Oslo", timeout=LONG_WAIT)
    expect(app.locator("#temp")).to_have_text("22 °C, partly cloudy", timeout=LONG_WAIT)
    assert app_chat.locator("#tomorrow").count() == 0  # its HTML is the iframe's alone
    expect(assistant(app_chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    shoot(lab, app_chat, card, screenshots, "mcp-app")
    [shown] = lab.run_json("[(a.uri, a.input, a.structured) for a in app_chat.apps()]")
    assert shown == [
        "ui://ipygenui-demo/weather",
        {"city": "Oslo"},
        {"city": "Oslo", "temperature_c": 22, "sky": "partly cloudy"},
    ]

    # the app answers: its message waits for the user's Send, then reaches the thread
    app.locator("#tomorrow").click()
    ask = card.locator(".gu-app-ask")
    expect(ask).to_contain_text("What's the weather in Oslo tomorrow?", timeout=LONG_WAIT)
    assert messages(app_chat, "user").count() == 1  # not sent before the click
    card.scroll_into_view_if_needed()
    card.screenshot(path=screenshots / "standards-mcp-app-ask-light-1280.png")
    ask.locator("button.gu-app-yes").click()
    expect(messages(app_chat, "user").last).to_contain_text("What's the weather in Oslo tomorrow?")
    expect(assistant(app_chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    said = lab.run_json("[m.text for m in app_chat.thread.messages[1:] if m.role == 'user']")
    assert said == ["What's the weather in Oslo tomorrow?"]
    expect(assistant(app_chat)).to_contain_text("Tomorrow it will be 24 °C and sunny in Oslo.")
