"""The header's model picker end to end, in real JupyterLab and Chromium:
opened and used with the keyboard only, the next reply comes from the model
chosen, the choice survives a page reload and is restored from the thread
file; the header looks right in light and dark and stays whole at 500 px."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, expect

from .harness import LabPage
from .widget import assistant, messages, send_from_ui, text_of

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
THREAD = "picker-thread.json"


def picker_button(chat: Locator) -> Locator:
    return chat.locator(".gu-header button.gu-model-picker-button")


def header_fits(chat: Locator) -> list[dict[str, object]]:
    """Each header child's box against the header's: inside, and nothing scrolls."""
    result: list[dict[str, object]] = chat.locator(".gu-header").evaluate(
        """(header) => {
          const box = header.getBoundingClientRect();
          const out = [{what: 'header', ok: header.scrollWidth <= header.clientWidth + 1}];
          for (const child of header.children) {
            if (child.hidden || !child.getClientRects().length) continue;
            const r = child.getBoundingClientRect();
            out.push({what: child.className,
                      ok: r.left >= box.left - 0.5 && r.right <= box.right + 0.5});
          }
          return out;
        }"""
    )
    return result


def test_the_picker_chooses_the_next_replys_model_by_keyboard_and_keeps_it(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("e2e/model_picker.ipynb")
    lab.run_all()
    lab.run_code(f"chat = make_chat({THREAD!r})\ndisplay(chat)")
    chat = lab.chat(0)
    button = picker_button(chat)
    expect(button).to_have_text("alpha")
    expect(button).to_have_attribute("aria-haspopup", "listbox")
    expect(chat.locator(".gu-model-picker select")).to_have_count(0)  # not a bare <select>

    # keyboard only: focus, ArrowDown opens on the current model, ArrowDown, Enter
    button.focus()
    lab.page.keyboard.press("ArrowDown")
    listbox = chat.get_by_role("listbox", name="Models")
    expect(listbox).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(listbox.locator(".gu-active")).to_contain_text("alpha")
    lab.page.keyboard.press("ArrowDown")
    expect(listbox.locator(".gu-active")).to_contain_text("beta")
    chat.screenshot(path=screenshots / "model-picker-open-light.png")
    lab.page.keyboard.press("Enter")
    expect(listbox).to_be_hidden()
    expect(button).to_have_text("beta", timeout=LONG_WAIT)  # the kernel's answer
    assert button.evaluate("(el) => el === document.activeElement")
    assert lab.run_json("[chat.model.name, chat.runtime.model_choice]") == ["beta", "beta"]

    # Enter opens too; Escape closes without choosing (the cell run above took focus)
    button.focus()
    lab.page.keyboard.press("Enter")
    expect(listbox).to_be_visible()
    lab.page.keyboard.press("Escape")
    expect(listbox).to_be_hidden()
    expect(button).to_have_text("beta")
    # Space opens and chooses, and its key-up on the button does not open it again
    lab.page.keyboard.press(" ")
    expect(listbox).to_be_visible()
    lab.page.keyboard.press("ArrowUp")
    expect(listbox.locator(".gu-active")).to_contain_text("alpha")
    lab.page.keyboard.press("ArrowDown")
    lab.page.keyboard.press(" ")
    expect(listbox).to_be_hidden()
    expect(button).to_have_text("beta")

    send_from_ui(chat, "Who is answering?")
    expect(messages(chat, "assistant")).to_have_count(1, timeout=LONG_WAIT)
    reply = assistant(chat)
    expect(reply).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert text_of(reply).strip() == "Beta here."
    assert lab.run_json("chat.thread.messages[-1].metadata['model']") == "beta"
    chat.screenshot(path=screenshots / "model-picker-light.png")

    lab.set_theme("JupyterLab Dark")
    try:
        chat = lab.chat(0)
        picker_button(chat).click()
        expect(chat.get_by_role("listbox", name="Models")).to_be_visible()
        colours = chat.evaluate(
            """(root) => {
              const list = root.querySelector('.gu-model-picker-list');
              const button = root.querySelector('.gu-model-picker-button');
              return [getComputedStyle(list).backgroundColor, getComputedStyle(button).color];
            }"""
        )
        assert colours[0] != "rgb(255, 255, 255)", colours  # the menu follows the theme
        chat.screenshot(path=screenshots / "model-picker-open-dark.png")
        lab.page.keyboard.press("Escape")
    finally:
        lab.set_theme("JupyterLab Light")

    chat = lab.chat(0)
    chat.evaluate("(el) => { el.style.width = '500px'; }")
    fits = header_fits(chat)
    assert fits and all(item["ok"] for item in fits), fits
    name = chat.locator(".gu-model-picker-name")  # the name whole, not cut to "b…"
    assert name.evaluate("(el) => el.scrollWidth <= el.clientWidth"), name.inner_text()
    chat.screenshot(path=screenshots / "model-picker-500px.png")
    chat.evaluate("(el) => { el.style.width = ''; }")

    # a reload shows the choice (the kernel's traits), and the thread file restores it
    lab.command("docmanager:save")
    lab.reload()
    expect(picker_button(lab.chat(0))).to_have_text("beta", timeout=LONG_WAIT)
    lab.run_code(f"chat.close()\nagain = make_chat({THREAD!r})\ndisplay(again)")
    restored = lab.chats().last
    expect(picker_button(restored)).to_have_text("beta", timeout=LONG_WAIT)
    assert lab.run_json("again.runtime.model_choice") == "beta"
