"""Selectors and actions on the chat widget's DOM (the agreed ``gu-*`` hooks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.sync_api import Locator, expect

if TYPE_CHECKING:
    from .harness import LabPage

# Records the text length of one assistant message on every DOM mutation, so a
# test can tell a reply that streamed from one that appeared all at once.
_RECORDER_JS = """
(root, index) => {
  const samples = [];
  const read = () => {
    const message = root.querySelectorAll('.gu-message[data-role="assistant"]')[index];
    if (!message) return;
    const parts = Array.from(message.querySelectorAll('.gu-text'));
    const len = parts.map((p) => p.innerText).join('\\n').length;
    const last = samples[samples.length - 1];
    if (!last || last.len !== len || last.status !== message.dataset.status) {
      samples.push({len, status: message.dataset.status});
    }
  };
  const observer = new MutationObserver(read);
  observer.observe(root, {subtree: true, childList: true, characterData: true, attributes: true});
  root.__guSamples = samples;
  root.__guObserver = observer;
}
"""


MAX_TABS = 40  # more stops than one chat has: a control further away is unreachable

# The accessible name (or class) of the focused element when it is inside root.
_FOCUSED_JS = """
(root) => {
  const el = document.activeElement;
  if (!el || !root.contains(el)) return null;
  return el.getAttribute('aria-label') || el.innerText.trim() || el.className;
}
"""


def messages(chat: Locator, role: str | None = None) -> Locator:
    """The widget's message elements, optionally of one role, in order."""
    if role is None:
        return chat.locator(".gu-message")
    return chat.locator(f'.gu-message[data-role="{role}"]')


def assistant(chat: Locator, index: int = -1) -> Locator:
    """The ``index``-th assistant message (default: the last)."""
    found = messages(chat, "assistant")
    return found.last if index == -1 else found.nth(index)


def tool_card(chat: Locator, tool_name: str) -> Locator:
    """The tool call card(s) of ``tool_name``."""
    return chat.locator(f'.gu-tool-call[data-tool-name="{tool_name}"]')


def text_of(message: Locator) -> str:
    """The rendered markdown text of one message (all its text parts)."""
    return "\n".join(part.inner_text() for part in message.locator(".gu-text").all())


def send_from_ui(chat: Locator, text: str) -> None:
    """Type ``text`` in the composer and click Send."""
    chat.locator("textarea.gu-input").fill(text)
    chat.locator("button.gu-send").click()


def install_stream_recorder(chat: Locator, index: int) -> None:
    """Start recording the text length of assistant message ``index`` as it changes."""
    chat.evaluate(_RECORDER_JS, index)


def read_stream_samples(chat: Locator) -> list[dict[str, Any]]:
    """Stop the recorder; return ``[{len, status}, ...]`` in the order observed."""
    samples: list[dict[str, Any]] = chat.evaluate(
        "(root) => { root.__guObserver.disconnect(); return root.__guSamples; }"
    )
    return samples


def tab_to(chat: Locator, target: Locator) -> list[str]:
    """Focus the chat's conversation log, then press Tab until ``target`` has focus.

    Returns the names of the stops passed on the way; fails if focus leaves
    the chat (or takes more than MAX_TABS presses) before reaching it.
    """
    chat.get_by_role("log", name="Conversation").focus()
    stops: list[str] = []
    for _ in range(MAX_TABS):
        chat.page.keyboard.press("Tab")
        if target.evaluate("(el) => el === document.activeElement"):
            return stops
        name = chat.evaluate(_FOCUSED_JS)
        assert name is not None, f"Tab left the chat before the target; stops: {stops}"
        stops.append(name)
    raise AssertionError(f"target not reached in {MAX_TABS} Tab presses; stops: {stops}")


# Every visible element under root whose box sticks out of root's, or whose
# own text is cut (wider than its box without wrapping); one line each.
_CLIPPED_JS = """
(root) => {
  const outer = root.getBoundingClientRect();
  const problems = [];
  for (const el of [root, ...root.querySelectorAll('*')]) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (box.width <= 1 && box.height <= 1) continue;  // visually hidden, for screen readers
    const name = el.tagName.toLowerCase() + '.' + String(el.className).replace(/\\s+/g, '.');
    if (box.left < outer.left - 1 || box.right > outer.right + 1) {
      problems.push(`${name} sticks out (${Math.round(box.left)}..${Math.round(box.right)})`);
    }
    const style = getComputedStyle(el);
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    const scrolls = ['auto', 'scroll'].includes(style.overflowX);
    const cell = el.tagName === 'TD' || el.tagName === 'TH';  // the table scrolls instead
    if (own && !scrolls && !cell && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name} cuts its text "${el.textContent.trim().slice(0, 40)}"`);
    }
  }
  return problems;
}
"""


def clipped(root: Locator) -> list[str]:
    """What under ``root`` sticks out of it or cuts its own text, one line each."""
    problems: list[str] = root.evaluate(_CLIPPED_JS)
    return problems


NARROW = 500  # px: a chat beside a sidebar, or a laptop's half screen


def narrow(chat: Locator, width: int = NARROW) -> None:
    """Make the chat ``width`` px wide and bring it into view."""
    chat.evaluate("(el, w) => { el.style.width = `${w}px`; }", width)
    chat.scroll_into_view_if_needed()


def shoot_themes(
    lab: LabPage,
    el: Locator,
    path: Callable[[str], Path],
    check: Callable[[str], None] | None = None,
) -> None:
    """Screenshot ``el`` light, then dark, to ``path(theme)``, after
    ``check(theme)`` if given; the theme is restored."""
    try:
        for theme in ("light", "dark"):
            if theme == "dark":
                lab.set_theme("JupyterLab Dark")
            el.scroll_into_view_if_needed()
            lab.page.mouse.move(0, 0)  # no hover outline in the picture
            if check is not None:
                check(theme)
            el.screenshot(path=path(theme))
    finally:
        lab.set_theme("JupyterLab Light")  # a saved setting: restore it


def shoot_500px_window(lab: LabPage, card: Locator, path: Path) -> None:
    """``card`` in a 500 px window with the sidebar closed: it must fit its
    width; the screenshot goes to ``path`` and the window is restored."""
    lab.page.set_viewport_size({"width": 500, "height": 900})
    try:
        lab.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        lab.page.wait_for_timeout(300)  # the layout settles; nothing is measured
        card.scroll_into_view_if_needed()
        fits = card.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        assert fits, "the card overflows its width at 500 px"
        card.screenshot(path=path)
    finally:
        lab.page.set_viewport_size({"width": 1280, "height": 900})


def shoot_narrow(lab: LabPage, el: Locator, shots: Path, name: str) -> None:
    """Check ``el`` (in a narrowed chat) clips nothing, light and dark, and
    take ``narrow-{name}-{theme}-500.png`` of each; the theme is restored."""

    def fits(theme: str) -> None:
        problems = clipped(el)
        assert not problems, f"{name} in {theme}: {problems}"

    shoot_themes(lab, el, lambda theme: shots / f"narrow-{name}-{theme}-{NARROW}.png", fits)


def shoot_in_narrow_chat(lab: LabPage, chat: Locator, el: Locator, shots: Path, name: str) -> None:
    """``shoot_narrow`` of ``el`` with ``chat`` made 500 px wide, then its width restored."""
    narrow(chat)
    try:
        shoot_narrow(lab, el, shots, name)
    finally:
        chat.evaluate("(el) => { el.style.width = ''; }")


def assert_title_above_toolbar(table: Locator, title: str) -> None:
    """A Table's title shows, and above its filter, row count and CSV button."""
    shown = table.locator(".gu-c-table-title")
    expect(shown).to_have_text(title)
    heading, tools = shown.bounding_box(), table.locator(".gu-c-table-tools").bounding_box()
    assert heading is not None and tools is not None
    assert heading["y"] + heading["height"] <= tools["y"] + 1, (heading, tools)
    caption = table.locator("table caption").bounding_box()  # for screen readers only
    assert caption is not None and caption["width"] <= 1, caption
