"""The A2UI spec's own basic-catalog examples, v0.8 and v0.9
(``tests/fixtures/a2ui/spec/``), each drawn in real JupyterLab and Chromium:
every surface shows its components, none refused or left pending, with the
sample's literal texts, its buttons and its fields; format calls give text.

A scripted model shows one version's samples as one reply's ``show_a2ui``
calls. Screenshots (``a2ui-samples-*``) go to ``docs/screenshots/`` with
UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui, shoot_in_narrow_chat, shoot_themes

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SPEC = REPO / "tests" / "fixtures" / "a2ui" / "spec"

SETUP = f"""
import json, pathlib
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply, last_user_text

def spec_chat(version):
    calls = []
    for i, path in enumerate(sorted(pathlib.Path({str(SPEC)!r}, version).glob("*.json"))):
        sample = json.loads(path.read_text())
        messages = sample if isinstance(sample, list) else sample["messages"]
        calls.append(ScriptedCall("show_a2ui", {{"messages": messages}}, id=f"{{version}}-{{i}}"))

    def script(request):
        if request.messages[-1].get("role") == "tool":
            return "Shown."
        return ScriptedReply(tool_calls=calls)

    return gu.Chat(model=ScriptedModel(script, delay=0), components=[gu.A2UI])


def delete_chat():
    sample = json.loads(pathlib.Path({str(SPEC)!r}, "v0_9", "09_login-form.json").read_text())
    gone = {{"version": "v0.9", "deleteSurface": {{"surfaceId": "gallery-login-form"}}}}

    def script(request):
        if request.messages[-1].get("role") == "tool":
            return "Done."
        if "remove" in last_user_text(request):
            return ScriptedCall("show_a2ui", {{"messages": [gone]}})
        return ScriptedCall("show_a2ui", {{"messages": sample["messages"]}})

    return gu.Chat(model=ScriptedModel(script, delay=0), components=[gu.A2UI])
"""


def samples(version: str) -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for path in sorted((SPEC / version).glob("*.json")):
        sample = json.loads(path.read_text())
        out.append((path.stem, sample if isinstance(sample, list) else sample["messages"]))
    return out


def plain(text: str) -> str:
    """A2UI's simple markdown as our renderer shows it (render.js ``plain``)."""
    text = re.sub(r"^#{1,6}\s+", "", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    return re.sub(r"(^|\s)\*(\S.*?)\*", r"\1\2", text)


def expectations(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The sample's literal texts by component id, and its Button and TextField ids."""
    texts: dict[str, str] = {}
    kinds: dict[str, set[str]] = {"Button": set(), "TextField": set()}
    for message in messages:
        update = message.get("updateComponents") or message.get("surfaceUpdate") or {}
        for entry in update.get("components", []):
            component = entry["component"]
            if isinstance(component, dict):  # v0.8: {"Text": {...}}
                [(kind, body)] = component.items()
                text = (body.get("text") or {}).get("literalString")
            else:
                kind, body = component, entry
                text = body.get("text") if isinstance(body.get("text"), str) else None
            if kind == "Text" and text is not None:
                texts[entry["id"]] = plain(text)
            if kind in kinds:
                kinds[kind].add(entry["id"])
    return {"texts": texts, **kinds}


@pytest.fixture(scope="module")
def samples_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/a2ui.ipynb") as lab:
        lab.run_code(SETUP)
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, samples_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [samples_page])
    samples_page.keep_cells(2)
    return samples_page


def show_samples(lab: LabPage, version: str) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = spec_chat({version!r})\ndisplay(chat)")
    chat = lab.chat(before)
    send_from_ui(chat, "show the samples")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    return chat


def surface_id(messages: list[dict[str, Any]]) -> str:
    """The one surface a spec sample draws."""
    [found] = {b["surfaceId"] for m in messages for b in m.values() if isinstance(b, dict)}
    return str(found)


def check_drawn(chat: Locator, name: str, messages: list[dict[str, Any]]) -> Locator:
    """The sample's slot: its surface drawn whole, with its texts, buttons and fields."""
    surface = chat.locator(f'.gu-a2ui-surface[data-surface-id="{surface_id(messages)}"]')
    expect(surface).to_have_count(1)
    slot = surface.locator('xpath=ancestor::*[@data-component="A2UI"][1]')
    expect(slot).to_have_attribute("data-status", "complete")
    assert slot.locator(".gu-a2ui-error, .gu-a2ui-pending").count() == 0, name
    want = expectations(messages)
    shown = dict(
        surface.evaluate(
            """(el) => [...el.querySelectorAll('[data-a2ui-component="Text"]')]
                 .map((t) => [t.dataset.a2uiId, t.textContent])"""
        )
    )
    assert shown, name
    # a Text in a tab not selected is not drawn; a template's copies share one id
    wrong = {k: (v, shown[k]) for k, v in want["texts"].items() if k in shown and shown[k] != v}
    assert not wrong, f"{name}: {wrong}"
    assert all(t.strip() for t in shown.values()), f"{name}: a Text drawn empty: {shown}"
    for component_id in want["Button"]:
        if surface.locator(f'[data-a2ui-id="{component_id}"]').count():
            expect(
                surface.locator(f'button.gu-a2ui-button[data-a2ui-id="{component_id}"]').first
            ).to_be_attached()
    for component_id in want["TextField"]:
        if surface.locator(f'[data-a2ui-id="{component_id}"]').count():
            expect(
                surface.locator(f'[data-a2ui-id="{component_id}"] .gu-a2ui-input').first
            ).to_be_attached()
    return slot


@pytest.mark.parametrize("version", ["v0_8", "v0_9"])
def test_every_spec_sample_draws_its_components_in_the_browser(page: LabPage, version: str) -> None:
    chat = show_samples(page, version)
    found = samples(version)
    expect(chat.locator(".gu-a2ui-surface")).to_have_count(len(found), timeout=LONG_WAIT)
    for name, messages in found:
        check_drawn(chat, name, messages)
    # a few by what a user reads
    login = check_drawn(chat, "login", dict(found)["09_login-form"])
    expect(login.get_by_role("button", name=re.compile("Sign in", re.I))).to_be_visible()
    assert login.locator("input").count() >= 2
    coffee = check_drawn(chat, "coffee", dict(found)["13_coffee-order"])
    expect(coffee).to_contain_text("Sunrise Coffee")
    expect(coffee).to_contain_text("$6.45")
    expect(coffee).to_contain_text("$11.66")
    weather = check_drawn(chat, "weather", dict(found)["04_weather-current"])
    expect(weather).to_contain_text("Austin, TX")
    expect(weather).to_contain_text("74°")  # v0.8: a JSON list in a valueString; v0.9: formatString
    assert page.run_json("len(chat.surfaces())") == len(found)
    kinds = {
        next(iter(e["component"])) if isinstance(e["component"], dict) else e["component"]
        for _, messages in found
        for m in messages
        for e in (m.get("updateComponents") or m.get("surfaceUpdate") or {}).get("components", [])
    }
    drawn = set(
        chat.evaluate(
            """(el) => [...el.querySelectorAll('[data-a2ui-component]')]
                 .map((c) => c.dataset.a2uiComponent)"""
        )
    )
    assert kinds - drawn == set(), f"{version}: never drawn: {kinds - drawn}"


def test_delete_surface_removes_the_surface_from_the_page_and_from_surfaces(page: LabPage) -> None:
    before = page.chats().count()
    page.run_code("chat = delete_chat()\ndisplay(chat)")
    chat = page.chat(before)
    send_from_ui(chat, "sign in form")
    surface = chat.locator('.gu-a2ui-surface[data-surface-id="gallery-login-form"]')
    expect(surface.get_by_role("button", name="Sign in")).to_be_visible(timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert [s["surface_id"] for s in page.run_json("chat.surfaces()")] == ["gallery-login-form"]
    send_from_ui(chat, "remove it")
    expect(assistant(chat)).to_contain_text("Done.", timeout=LONG_WAIT)
    expect(surface).to_have_count(0, timeout=LONG_WAIT)
    removed = chat.locator(".gu-a2ui-removed")
    expect(removed).to_have_count(2)  # where it was drawn, and the call that removed it
    expect(removed.first).to_have_text("Removed the A2UI surface “gallery-login-form”.")
    assert page.run_json("chat.surfaces()") == []


def test_spec_samples_light_dark_and_narrow(page: LabPage, screenshots: Path) -> None:
    chat = show_samples(page, "v0_9")
    found = dict(samples("v0_9"))
    for name, shot in (("13_coffee-order", "coffee"), ("09_login-form", "login")):
        slot = check_drawn(chat, name, found[name])
        shoot_themes(
            page, slot, lambda theme, s=shot: screenshots / f"a2ui-sample-{s}-{theme}-1280.png"
        )
        shoot_in_narrow_chat(page, chat, slot, screenshots, f"a2ui-sample-{shot}")
