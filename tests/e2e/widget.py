"""Selectors and actions on the chat widget's DOM (the agreed ``gu-*`` hooks)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator

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
