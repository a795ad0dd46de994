"""Usage and cost end to end, in real JupyterLab and Chromium: each reply's
footer shows its tokens (reasoning and cached ones too), its cost and the
thread's so far as the kernel priced them (genai-prices, a scripted model
whose spec is ``openai:gpt-4o-mini``), and how full the context window is;
at 500 px every piece of the footer stays whole inside the chat."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .harness import LabPage
from .widget import assistant, messages, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
TOKENS = "13,100 tokens (12,800 in, 300 out, 120 reasoning, 10,000 cached)"


def _dollars(usd: float) -> str:
    """What the footer writes for a cost under a cent (thread/footer.js ``dollars``)."""
    return "$" + f"{usd:#.2g}" if usd >= 0.0001 else "<$0.0001"


def test_each_reply_footer_shows_tokens_cost_thread_cost_and_context(
    open_lab: Callable[[str], LabPage], screenshots: Path
) -> None:
    lab = open_lab("e2e/usage.ipynb")
    lab.run_all()
    lab.run_code("chat = make_chat()\ndisplay(chat)")
    chat = lab.chat(0)
    for n, text in enumerate(["What is the answer?", "And again?"], start=1):
        send_from_ui(chat, text)
        expect(messages(chat, "assistant")).to_have_count(n, timeout=LONG_WAIT)
        expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)

    costs = lab.run_json(
        "[m.metadata['cost'] for m in chat.thread.messages if m.role == 'assistant']"
    )
    assert [c["priced_as"] for c in costs] == ["openai:gpt-4o-mini"] * 2
    assert costs[1]["thread_usd"] == pytest.approx(2 * costs[0]["usd"])
    first, second = (assistant(chat, i).locator(".gu-footer") for i in (0, 1))
    for footer, cost in ((first, costs[0]), (second, costs[1])):
        expect(footer).to_be_visible()
        items = footer.locator(".gu-footer-item")
        expect(items.nth(0)).to_have_text(TOKENS)
        expect(items.nth(1)).to_have_text(_dollars(cost["usd"]))
        expect(items.nth(2)).to_have_text("thread " + _dollars(cost["thread_usd"]))
        expect(items.nth(3)).to_have_text("10% of 128k context")  # 12,800 of 128,000
        expect(items.nth(4)).to_have_text(re.compile(r"^\d+\.\d s$"))
        assert "priced as openai:gpt-4o-mini" in (footer.get_attribute("title") or "")

    chat.screenshot(path=screenshots / "usage-footer.png")
    # a narrow chat: the footer wraps between its pieces, none is cut or spills out
    chat.evaluate("(el) => { el.style.width = '500px'; }")
    boxes = second.evaluate(
        """(footer) => {
          const box = footer.getBoundingClientRect();
          const line = parseFloat(getComputedStyle(footer).lineHeight) || 16;
          return [...footer.querySelectorAll('.gu-footer-item')].map((item) => {
            const r = item.getBoundingClientRect();
            return {left: r.left >= box.left - 0.5, right: r.right <= box.right + 0.5,
                    oneLine: r.height < 1.6 * line};
          });
        }"""
    )
    assert boxes and all(b["left"] and b["right"] and b["oneLine"] for b in boxes), boxes
    chat.screenshot(path=screenshots / "usage-footer-500px.png")
    chat.evaluate("(el) => { el.style.width = ''; }")
