"""The chat's size and legibility in real JupyterLab and Chromium.

- bounded: a chat whose reply is 60 lines long stays within ``min(640px,
  80vh)``, its composer in view, and while the reply streams the newest line
  stays visible; scrolled up, "Jump to latest" brings the stream back;
- narrow: in a 500 px window and in a 320 px wide chat the header wraps
  with every item inside the widget's box, the badge on one line, nothing
  behind a scrollbar;
- legible: the badge, the footer, the action buttons and the composer's
  placeholder read at 4.5:1 or more (WCAG AA) in light and dark, at
  JupyterLab's UI font size or larger; an empty composer shows no
  scrollbar, the edit box of a three-line message shows its three lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, messages, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
AA = 4.5
UI_FONT_PX = 13  # --jp-ui-font-size1

# Contrast of each listed element's text colour over what is behind it:
# colours parsed by a canvas (any CSS colour syntax), the element's and its
# ancestors' opacity applied, translucent backgrounds composited upward.
_CONTRAST_JS = """
(root, targets) => {
  const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const rgba = (css) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = 'rgba(0, 0, 0, 0)';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const behind = (el) => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const bg = rgba(getComputedStyle(node).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let colour = [255, 255, 255, 1];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const opacity = (el) => {
    let o = 1;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      o *= Number(getComputedStyle(node).opacity);
    }
    return o;
  };
  const lum = ([r, g, b]) => {
    const c = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b);
  };
  const out = [];
  for (const [what, selector, pseudo] of targets) {
    const els = Array.from(root.querySelectorAll(selector)).filter(
      (el) => el.getClientRects().length && !el.disabled);
    if (!els.length) { out.push({what, missing: true}); continue; }
    for (const el of els) {
      const style = getComputedStyle(el, pseudo || null);
      const fg = rgba(style.color);
      fg[3] *= opacity(el) * (pseudo ? Number(style.opacity || 1) : 1);
      const bg = behind(el);
      const seen = over(fg, bg);
      const [hi, lo] = [lum(seen), lum(bg)].sort((a, b) => b - a);
      out.push({what, ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100,
                size: parseFloat(style.fontSize), color: style.color});
    }
  }
  return out;
}
"""

LISTED = [
    ["badge", ".gu-offline-badge"],
    ["footer", ".gu-footer"],
    # a message's actions, shown as the pointer rests on it
    ["action button", ".gu-message:hover button.gu-action"],
    ["placeholder", "textarea.gu-input", "::placeholder"],
    ["header control", ".gu-header button"],
    ["user text", '.gu-message[data-role="user"] .gu-text'],
]

# Every visible element of the header and composer against the widget's box.
_FITS_JS = """
(root) => {
  const box = root.getBoundingClientRect();
  const out = [];
  const header = root.querySelector('.gu-header');
  if (header.scrollWidth > header.clientWidth + 1) out.push('header scrolls');
  if (root.scrollWidth > root.clientWidth + 1) out.push('chat scrolls sideways');
  for (const el of root.querySelectorAll('.gu-header *, .gu-composer *')) {
    if (!el.getClientRects().length || el.closest('[hidden]')) continue;
    if (el.closest('.gu-model-picker-list, .gu-thread-list, .gu-mention-menu')) continue;  // popups
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5) {
      const what = `${el.tagName.toLowerCase()}.${el.className}`;
      out.push(`${what}: ${r.left}-${r.right} outside ${box.left}-${box.right}`);
    }
  }
  const badge = root.querySelector('.gu-offline-badge');
  const line = parseFloat(getComputedStyle(badge).lineHeight);
  if (badge.getBoundingClientRect().height > line * 1.5 + 4) out.push('the badge wraps');
  return out;
}
"""

_FOLLOWING_JS = """
(root) => {
  const thread = root.querySelector('.gu-thread');
  const texts = thread.querySelectorAll('.gu-message[data-role="assistant"] .gu-text');
  const last = texts[texts.length - 1];
  if (!last) return {started: false};
  const t = thread.getBoundingClientRect();
  const r = last.getBoundingClientRect();
  return {started: true, running: root.querySelector('.gu-message[data-role="assistant"]')
            .dataset.status === 'running',
          newestVisible: r.bottom <= t.bottom + 2 && r.bottom >= t.top,
          scrolls: thread.scrollHeight > thread.clientHeight};
}
"""


# The header's height and how many rows its visible items stand in.
_HEADER_ROWS_JS = """
(chat) => {
  const header = chat.querySelector('.gu-header');
  const tops = new Set();
  for (const el of header.querySelectorAll('button, .gu-offline-badge')) {
    if (el.offsetParent === null) continue;
    const r = el.getBoundingClientRect();
    tops.add(Math.round(r.top + r.height / 2));
  }
  const rows = [...tops].sort((a, b) => a - b).filter((t, i, all) => i === 0 || t - all[i - 1] > 8);
  return {rows: rows.length, height: header.getBoundingClientRect().height};
}
"""


@pytest.fixture(scope="module")
def lab(
    lab_server: LabServer, browser: Browser, request: pytest.FixtureRequest
) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/layout.ipynb") as page:
        report_on_failure(request, lab_server, [page])
        yield page


def contrast(chat: Locator) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = chat.evaluate(_CONTRAST_JS, LISTED)
    return result


def check_legible(chat: Locator, theme: str) -> None:
    assistant(chat).locator(".gu-text").first.hover()
    chat.page.wait_for_timeout(200)  # the actions fade in
    found = contrast(chat)
    missing = [item["what"] for item in found if item.get("missing")]
    assert not missing, f"{theme}: not on screen: {missing}"
    low = [item for item in found if item["ratio"] < AA]
    assert not low, f"{theme}: below {AA}:1: {low}"
    small = [item for item in found if item["size"] < UI_FONT_PX - 0.01]
    assert not small, f"{theme}: smaller than JupyterLab's UI font: {small}"


def fresh_chat(lab: LabPage, **kwargs: str) -> Locator:
    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    lab.keep_cells(2)
    lab.run_code(f"chat = make_chat({args})\ndisplay(chat)")
    chat = lab.chat(0)
    chat.scroll_into_view_if_needed()
    return chat


def stream_a_reply(chat: Locator, text: str) -> None:
    send_from_ui(chat, text)
    expect(messages(chat, "assistant")).to_have_count(1, timeout=LONG_WAIT)


def test_a_long_reply_streams_inside_a_bounded_chat(lab: LabPage, screenshots: Path) -> None:
    lab.page.set_viewport_size({"width": 1280, "height": 900})
    chat = fresh_chat(lab)
    stream_a_reply(chat, "Tell me a long story.")
    # while it streams: the newest line in view, in a thread that scrolls
    seen: list[dict[str, Any]] = []
    for _ in range(200):  # bounded: the reply streams for a few seconds
        state = chat.evaluate(_FOLLOWING_JS)
        if state["started"] and state["running"]:
            seen.append(state)
        if state["started"] and not state["running"]:
            break
        lab.page.wait_for_timeout(50)
    assert len(seen) >= 3, seen  # sampled mid-stream
    late = [s for s in seen if s["scrolls"]]
    assert late and all(s["newestVisible"] for s in late), seen
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    height = chat.evaluate("(el) => el.getBoundingClientRect().height")
    assert height <= min(640, 0.8 * 900) + 1, height  # was 3,187 px in a notebook
    composer = chat.locator("textarea.gu-input").bounding_box()
    box = chat.bounding_box()
    assert composer and box and composer["y"] + composer["height"] <= box["y"] + box["height"]

    # scrolled up mid-stream: the stream leaves the reader alone; Jump to latest follows again
    stream_a_reply_again = chat.locator("textarea.gu-input")
    stream_a_reply_again.fill("Again, please.")
    chat.locator("button.gu-send").click()
    expect(assistant(chat)).to_have_attribute("data-status", "running", timeout=LONG_WAIT)
    thread = chat.locator(".gu-thread")
    thread.evaluate("(el) => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    jump = chat.locator("button.gu-jump")
    expect(jump).to_be_visible()
    assert thread.evaluate("(el) => el.scrollTop") < 50
    jump.click()
    lab.page.wait_for_timeout(300)
    assert chat.evaluate(_FOLLOWING_JS)["newestVisible"]
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    thread.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")

    check_legible(chat, "light")
    chat.screenshot(path=screenshots / "layout-chat-light-1280.png")
    lab.set_theme("JupyterLab Dark")
    try:
        chat = lab.chat(0)
        check_legible(chat, "dark")
        chat.screenshot(path=screenshots / "layout-chat-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")

    # height="auto" lets it grow with the thread, as before
    chat = fresh_chat(lab, height="auto")
    stream_a_reply(chat, "Tell me a long story.")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert chat.evaluate("(el) => el.getBoundingClientRect().height") > 900


@pytest.mark.parametrize("width", [500, 320])
def test_a_narrow_chat_wraps_its_header_and_stays_legible(
    lab: LabPage, screenshots: Path, width: int
) -> None:
    lab.page.set_viewport_size({"width": 1280 if width == 320 else width, "height": 800})
    chat = fresh_chat(lab)
    if width == 320:
        chat.evaluate("(el) => { el.closest('.gu-widget').style.width = '320px'; }")
    else:
        # a 500 px window: JupyterLab's sidebars closed (open, they leave the
        # notebook about 130 px, below what any layout can serve)
        lab.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        lab.page.wait_for_timeout(300)
    stream_a_reply(chat, "one\ntwo\nthree")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    chat.scroll_into_view_if_needed()
    actual = chat.evaluate("(el) => el.getBoundingClientRect().width")
    assert 300 <= actual <= width, actual  # the widget's own width, not the window's
    assert chat.locator(".gu-thread-controls").is_visible()  # two threads: the menu shows
    if width == 500:  # one row (it was three, ~110 px: picker, Rename/New, download)
        rows = chat.evaluate(_HEADER_ROWS_JS)
        chat.locator(".gu-header").screenshot(path=screenshots / "layout-header-500.png")
        assert rows["rows"] == 1 and rows["height"] <= 32, rows

    problems = chat.evaluate(_FITS_JS)
    assert not problems, problems
    box = chat.locator("textarea.gu-input")
    assert box.evaluate("(el) => el.value === '' && el.scrollHeight <= el.clientHeight")
    assert box.evaluate("(el) => getComputedStyle(el).overflowY") == "hidden"

    for theme in ("light", "dark"):
        if theme == "dark":
            lab.set_theme("JupyterLab Dark")
            chat = lab.chat(0)
            chat.scroll_into_view_if_needed()
        try:
            check_legible(chat, theme)
            if width == 500 or theme == "light":
                chat.screenshot(path=screenshots / f"layout-narrow-{theme}-{width}.png")
        finally:
            if theme == "dark":
                lab.set_theme("JupyterLab Light")

    # the edit box of the three-line message shows its three lines, no scrollbar
    chat = lab.chat(0)
    chat.locator("textarea.gu-input").focus()
    lab.page.keyboard.press("ArrowUp")
    editor = chat.locator("textarea.gu-edit-input")
    expect(editor).to_be_visible()
    assert editor.evaluate("(el) => el.value") == "one\ntwo\nthree"
    assert editor.evaluate("(el) => el.scrollHeight <= el.clientHeight + 1")
    lab.page.keyboard.press("Escape")


def test_arrow_keys_in_the_log_scroll_it_and_leave_the_cell_selection_alone(lab: LabPage) -> None:
    lab.page.set_viewport_size({"width": 1280, "height": 900})
    chat = fresh_chat(lab)
    stream_a_reply(chat, "Tell me a long story.")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    thread = chat.locator(".gu-thread")
    thread.evaluate("(el) => { el.scrollTop = 0; }")
    active = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    cell = lab.page.evaluate(active)
    thread.focus()
    for name in ("ArrowDown", "ArrowDown", "PageDown", "ArrowUp"):
        lab.page.keyboard.press(name)
    lab.page.wait_for_timeout(300)  # smooth scrolling settles
    assert thread.evaluate("(el) => el.scrollTop") > 100  # the keys scrolled the log
    assert lab.page.evaluate(active) == cell  # and did not move JupyterLab's selection
    assert thread.evaluate("(el) => el === document.activeElement")
