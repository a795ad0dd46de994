"""The component, data and standards notebooks after Run All in real
JupyterLab, read as a teacher would, top to bottom.

Faults tried: a chat that stays empty or a question left unanswered; a cell
that raised; a cell's output that is a wall of text (long outputs push the
chats out of JupyterLab's rendered window) or raw JSON, a dict or code as a
string with ``\\n`` escapes; raw markdown printed where a reply should read
as text; the demo's tool-result fallback ("Here is what the tool returned")
instead of a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from .harness import LabPage
from .widget import messages

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
MAX_OUTPUT_LINES = 12  # a cell's printed output; the chats hold the long answers

# Each code cell's printed/displayed text (markdown before plain text), one
# entry per cell with outputs, in notebook order.
_OUTPUTS_JS = """
(path) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main'))
    .find((w) => w.context && w.context.path === path);
  const join = (v) => (Array.isArray(v) ? v.join('') : v);
  const found = [];
  Array.from(panel.content.model.cells).forEach((cell, index) => {
    if (cell.type !== 'code') return;
    const source = cell.sharedModel.getSource();
    for (const out of cell.outputs.toJSON()) {
      const data = out.data || {};
      if (data['application/vnd.jupyter.widget-view+json']) continue;  // a chat
      const text = out.output_type === 'stream' ? join(out.text)
        : out.output_type === 'error' ? `${out.ename}: ${out.evalue}`
        : join(data['text/markdown'] ?? data['text/plain'] ?? '');
      found.push({index, source, type: out.output_type, text});
    }
  });
  return found;
}
"""

RAW_JSON = re.compile(r'\{\s*"\w+"\s*:')  # a JSON object printed as is
RAW_MARKDOWN = re.compile(r"\*\*\S|^- \*\*", re.MULTILINE)
ESCAPED_NEWLINE = re.compile(r"\\n")


def read_outputs(lab: LabPage) -> list[dict[str, object]]:
    outputs: list[dict[str, object]] = lab.page.evaluate(_OUTPUTS_JS, lab.path)
    return outputs


@pytest.mark.parametrize("notebook", ["02_components.ipynb", "03_data.ipynb", "05_standards.ipynb"])
def test_after_run_all_every_chat_answers_and_every_output_reads_short(
    open_lab: Callable[[str], LabPage], notebook: str
) -> None:
    lab = open_lab(notebook)
    lab.run_all()  # a cell that raised fails here
    chats = lab.chats()
    assert chats.count() >= 1
    for i in range(chats.count()):
        chat = lab.chat(i)
        chat.scroll_into_view_if_needed()
        users = messages(chat, "user")
        replies = messages(chat, "assistant")
        assert users.count() >= 1, f"chat {i} of {notebook} stayed empty"
        expect(replies).to_have_count(users.count(), timeout=LONG_WAIT)
        for n in range(replies.count()):
            reply = replies.nth(n)
            expect(reply).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
            shown = reply.locator(".gu-text, .gu-component, .gu-tool-call")
            assert shown.count() > 0, f"reply {n} of chat {i} in {notebook} shows nothing"
            said = reply.inner_text()
            assert said.strip(), f"reply {n} of chat {i} in {notebook} is empty"
            assert "Here is what the tool returned" not in said, said
            assert not RAW_JSON.search(said), f"raw JSON in reply {n}: {said}"

    for out in read_outputs(lab):
        text, where = str(out["text"]), f"cell {out['index']} ({out['source']!r})"
        assert out["type"] != "error", f"{where} raised: {text}"
        assert len(text.splitlines()) <= MAX_OUTPUT_LINES, f"{where} prints a wall:\n{text}"
        assert not RAW_JSON.search(text), f"{where} shows raw JSON:\n{text}"
        assert not ESCAPED_NEWLINE.search(text), f"{where} shows code with \\n escapes:\n{text}"
        if out["type"] == "stream":
            assert not RAW_MARKDOWN.search(text), f"{where} prints raw markdown:\n{text}"
