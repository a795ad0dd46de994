"""Issue 5 end to end: approvals, human tools, stop, several views, reload, hostile text,
the keyboard (Enter / Shift+Enter, every control named and reached with Tab), edited
tool arguments.

The tests share one page and kernel on ``e2e/flows.ipynb`` (scripted model +
tools, see its setup cell): each test starts from the setup cells alone,
displays fresh chats in new cells, acts in the browser, and checks both the
DOM and the kernel-side thread.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import CellError, LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, messages, send_from_ui, tab_to, text_of, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed


SETUP_CELLS = 2  # markdown intro + setup code in flows.ipynb


@pytest.fixture(scope="module")
def flows_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/flows.ipynb") as lab:
        yield lab


@pytest.fixture
def flows(request: pytest.FixtureRequest, flows_page: LabPage, lab_server: LabServer) -> LabPage:
    """The flows notebook, back to its setup cells, with the tool counters cleared."""
    report_on_failure(request, lab_server, [flows_page])
    flows_page.run_code("RUNS.clear()\nMODELS.clear()\nGATE.set()\nFAILURES[0] = 1")
    flows_page.keep_cells(SETUP_CELLS)
    return flows_page


def show_chat(lab: LabPage, arguments: str = "") -> Locator:
    """Run ``chat = make_chat(<arguments>)`` in a new cell, display it, return its view."""
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({arguments})\ndisplay(chat)")
    return lab.chat(before)


def reply_text(chat: Locator) -> Locator:
    """The text parts of the last assistant message."""
    return assistant(chat).locator(".gu-text")


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def send_long_and_hold(lab: LabPage, view: Locator) -> None:
    """Send the long request; return once its head shows and the stream is held."""
    lab.run_code("GATE.clear()")
    send_from_ui(view, "write something long")
    expect(reply_text(view)).to_contain_text("Word99", timeout=LONG_WAIT)


def ask_to_drop(lab: LabPage) -> tuple[Locator, Locator]:
    """A fresh chat asked to drop a table: returns (chat, card) once approval is asked."""
    chat = show_chat(lab)
    send_from_ui(chat, "Please drop the sales table")
    card = tool_card(chat, "drop_table")
    expect(card.locator("button.gu-approve")).to_be_visible(timeout=LONG_WAIT)
    return chat, card


def test_approval_waits_then_approve_runs_the_tool_exactly_once(flows: LabPage) -> None:
    chat, card = ask_to_drop(flows)
    approve = card.locator("button.gu-approve")
    expect(chat).to_have_attribute("data-phase", "waiting")
    expect(assistant(chat)).to_have_attribute("data-status", "requires-action")
    expect(card.locator(".gu-tool-status")).to_contain_text("approval")
    # the run has not finished: no finished-run footer yet
    expect(assistant(chat).locator(".gu-footer")).to_be_hidden()
    assert flows.run_json("RUNS") == [], "the tool ran before anyone approved it"

    # Two clicks in one task, so no kernel update can replace the button between
    # them (a real double click can land before or after it): the second is a
    # duplicate decision.
    approve.evaluate("button => { button.click(); button.click(); }")
    expect(reply_text(chat)).to_contain_text("Tool said: dropped sales", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete")
    expect(chat.locator(".gu-notice")).to_be_visible()
    expect(card.locator("button.gu-approve")).to_have_count(0)
    assert flows.run_json("RUNS") == ["sales"]
    [part] = flows.run_json("tool_parts(chat)")
    assert part["approval"]["status"] == "approved"
    assert part["id"] == card.get_attribute("data-tool-call-id")


def test_always_allow_approves_this_call_and_the_next_ones(flows: LabPage) -> None:
    chat, card = ask_to_drop(flows)
    card.locator("button.gu-always").click()
    expect(reply_text(chat)).to_contain_text("Tool said: dropped sales", timeout=LONG_WAIT)

    send_from_ui(chat, "drop the sales table again")
    expect(tool_card(chat, "drop_table")).to_have_count(2, timeout=LONG_WAIT)
    expect(reply_text(chat).last).to_contain_text("Tool said: dropped sales", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete")
    expect(chat.locator("button.gu-approve")).to_have_count(0)
    assert flows.run_json("RUNS") == ["sales", "sales"]


def test_reject_with_reason_skips_the_tool_and_tells_the_model(flows: LabPage) -> None:
    chat, card = ask_to_drop(flows)
    card.locator(".gu-reject-reason").fill("not on a Friday")
    card.locator("button.gu-reject").click()

    # the scripted model echoes the tool message it received
    expect(reply_text(chat)).to_contain_text("not on a Friday", timeout=LONG_WAIT)
    expect(card.locator(".gu-tool-status")).to_contain_text("Rejected")
    expect(card.locator("button.gu-approve")).to_have_count(0)
    assert flows.run_json("RUNS") == []
    [part] = flows.run_json("tool_parts(chat)")
    assert part["approval"] == {
        "status": "rejected",
        "reason": "not on a Friday",
        "note": None,
        "decided_by": "user",
        "edited": False,
    }
    sent = flows.run_json("MODELS[-1].requests[-1].messages[-1]")
    assert sent["role"] == "tool" and "not on a Friday" in sent["content"]


def test_sending_while_a_call_waits_warns_first_then_says_what_happened(
    flows: LabPage,
) -> None:
    chat, card = ask_to_drop(flows)
    send_from_ui(chat, "never mind, hello there")
    warning = chat.locator(".gu-composer-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("drop_table waits for your decision")
    expect(warning).to_contain_text("rejects it")
    expect(chat.locator("textarea.gu-input")).to_have_value("never mind, hello there")
    users = "[m.text for m in chat.thread.messages if m.role == 'user']"
    assert flows.run_json(users) == ["Please drop the sales table"]  # nothing sent yet

    warning.get_by_role("button", name="Send anyway").click()
    expect(reply_text(chat).last).to_contain_text(
        "Hello from the scripted model", timeout=LONG_WAIT
    )
    expect(warning).to_be_hidden()
    expect(card.locator(".gu-tool-status")).to_contain_text("Rejected")
    assert flows.run_json(users) == ["Please drop the sales table", "never mind, hello there"]
    assert flows.run_json("RUNS") == []


def test_a_failing_tool_shows_its_error_message(flows: LabPage) -> None:
    chat = show_chat(flows)
    send_from_ui(chat, "what is the weather in Atlantis")
    card = tool_card(chat, "get_weather")
    expect(card).to_have_attribute("data-status", "error", timeout=LONG_WAIT)
    expect(card.locator(".gu-tool-status")).to_have_text(
        "get_weather raised ValueError: no station for Atlantis"
    )
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    # the traceback is there, folded, for the user (the model read the error line only)
    fold = card.locator("details.gu-tool-traceback")
    assert fold.evaluate("(el) => el.open") is False
    fold.locator("summary").click()
    expect(fold.locator(".gu-tool-traceback-text")).to_contain_text("ValueError: no station")


def test_an_unreachable_model_server_says_what_to_check(flows: LabPage) -> None:
    before = flows.chats().count()
    flows.run_code(
        "chat = gu.Chat(model=gu.OpenAIModel('m', base_url='http://127.0.0.1:9/v1',"
        " api_key='k', max_retries=0))\ndisplay(chat)"
    )
    chat = flows.chat(before)
    send_from_ui(chat, "hello")
    error = assistant(chat).locator(".gu-error-text")
    expect(error).to_contain_text(
        "could not connect to http://127.0.0.1:9/v1: connection refused", timeout=LONG_WAIT
    )
    expect(error).to_contain_text("check the model's base_url")
    assert ".:" not in error.inner_text()


def test_human_tool_is_answered_in_the_ui(flows: LabPage) -> None:
    chat = show_chat(flows)
    send_from_ui(chat, "ask me something")
    card = tool_card(chat, "ask_user")
    answer = card.locator(".gu-human-input")
    expect(answer).to_be_visible(timeout=LONG_WAIT)
    expect(card).to_contain_text("Which colour?")
    expect(chat).to_have_attribute("data-phase", "waiting")
    answer.fill("teal")
    card.locator("button.gu-human-submit").click()

    expect(reply_text(chat)).to_contain_text("Tool said:", timeout=LONG_WAIT)
    expect(reply_text(chat)).to_contain_text("teal")
    expect(assistant(chat)).to_have_attribute("data-status", "complete")
    expect(card.locator(".gu-human-input")).to_have_count(0)
    [part] = flows.run_json("tool_parts(chat)")
    assert part["result"] == "teal"


def test_stop_mid_stream_keeps_the_partial_reply(flows: LabPage) -> None:
    chat = show_chat(flows)
    send_long_and_hold(flows, chat)
    expect(assistant(chat)).to_have_attribute("data-status", "running")
    expect(chat.locator(".gu-phase")).to_have_text("Writing…")  # text streams: not "Thinking…"
    chat.locator("button.gu-stop").click()

    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)
    expect(chat).to_have_attribute("data-phase", "idle")
    expect(chat.locator("button.gu-send")).to_be_enabled()
    last = flows.run_json(
        "{'status': chat.thread.messages[-1].status.model_dump(),"
        " 'text': chat.thread.messages[-1].text}"
    )
    assert last["status"]["reason"] == "cancelled"
    assert "Word99" in last["text"] and "THE-END" not in last["text"]
    assert _words(text_of(assistant(chat))) == _words(last["text"])
    flows.run_code("GATE.set()")  # nothing may stream after the stop
    expect(chat.locator("button.gu-send")).to_be_enabled()
    assert flows.run_json("chat.thread.messages[-1].text") == last["text"]


def test_model_error_shows_and_retry_replaces_the_failed_reply(flows: LabPage) -> None:
    chat = show_chat(flows)
    send_from_ui(chat, "a flaky request")
    error = assistant(chat).locator(".gu-error")
    expect(error).to_contain_text("upstream timed out", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete")
    chat.locator("button.gu-retry").click()

    expect(reply_text(chat)).to_contain_text("Recovered answer.", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete")
    expect(error).to_be_hidden()
    thread = flows.run_json("[[m.role, m.text] for m in chat.thread.messages]")
    assert thread == [["user", "a flaky request"], ["assistant", "Recovered answer."]]


def test_suggestion_chip_sends_its_text(flows: LabPage) -> None:
    chat = show_chat(flows, "suggestions=True")
    send_from_ui(chat, "hello")
    chip = chat.locator("button.gu-suggestion", has_text="Ask me something")
    expect(chip).to_be_visible(timeout=LONG_WAIT)
    chip.click()

    expect(tool_card(chat, "ask_user").locator(".gu-human-input")).to_be_visible(timeout=LONG_WAIT)
    users = flows.run_json("[m.text for m in chat.thread.messages if m.role == 'user']")
    assert users == ["hello", "Ask me something"]


def _thread_in(view: Locator) -> list[tuple[str | None, str]]:
    return [(m.get_attribute("data-message-id"), _words(text_of(m))) for m in messages(view).all()]


def test_same_chat_in_two_cells_shows_one_thread_even_if_opened_mid_stream(
    flows: LabPage,
) -> None:
    first = show_chat(flows)
    flows.run_code("display(chat)")
    second = flows.chat(1)
    send_long_and_hold(flows, second)
    expect(reply_text(first)).to_contain_text("Word99")
    flows.run_code("display(chat)")  # a third view, opened while the reply streams
    third = flows.chat(2)
    expect(reply_text(third)).to_contain_text("Word99")
    expect(assistant(third)).to_have_attribute("data-status", "running")
    flows.run_code("GATE.set()")

    for view in (first, second, third):
        expect(reply_text(view)).to_contain_text("THE-END", timeout=LONG_WAIT)
        expect(assistant(view)).to_have_attribute("data-status", "complete")
    thread = _thread_in(first)
    assert len(thread) == 2
    assert _thread_in(second) == thread
    assert _thread_in(third) == thread
    kernel = flows.run_json("[[m.id, m.text] for m in chat.thread.messages]")
    assert [(i, _words(t)) for i, t in kernel] == thread


def test_two_chats_side_by_side_keep_separate_threads(flows: LabPage) -> None:
    flows.run_code("left, right = make_chat(), make_chat()\ndisplay(side_by_side(left, right))")
    left, right = flows.chat(0), flows.chat(1)
    send_from_ui(left, "drop the sales table")
    send_from_ui(right, "hello there")

    expect(reply_text(right)).to_contain_text("Hello from the scripted model", timeout=LONG_WAIT)
    expect(left.locator("button.gu-approve")).to_be_visible(timeout=LONG_WAIT)
    expect(right.locator(".gu-tool-call")).to_have_count(0)
    left.locator("button.gu-approve").click()
    expect(reply_text(left)).to_contain_text("Tool said: dropped sales", timeout=LONG_WAIT)
    expect(right).not_to_contain_text("dropped")

    users = flows.run_json(
        "[[m.text for m in c.thread.messages if m.role == 'user'] for c in (left, right)]"
    )
    assert users == [["drop the sales table"], ["hello there"]]
    assert flows.run_json("RUNS") == ["sales"]


def test_reload_mid_run_converges_to_the_live_thread(flows: LabPage) -> None:
    chat = show_chat(flows)
    send_long_and_hold(flows, chat)
    flows.command("docmanager:save")  # the output keeps the widget view across reload
    flows.reload()

    chat = flows.chat(0)
    expect(reply_text(chat)).to_contain_text("Word99", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "running")
    flows.run_code("GATE.set()")
    expect(reply_text(chat)).to_contain_text("THE-END", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete")
    kernel = flows.run_json("[[m.id, m.text] for m in chat.thread.messages]")
    assert [(i, _words(t)) for i, t in kernel] == _thread_in(chat)


# What a hostile model could use to run script in the page; none may survive.
_DANGER_JS = """
(root) => {
  const found = [];
  for (const el of root.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (['script', 'iframe', 'object', 'embed'].includes(tag)) found.push(tag);
    for (const attr of Array.from(el.attributes)) {
      const value = attr.value.trim().toLowerCase();
      if (attr.name.startsWith('on')) found.push(`${tag}[${attr.name}]`);
      if (['href', 'src', 'xlink:href', 'action'].includes(attr.name)
          && value.startsWith('javascript:')) found.push(`${tag}[${attr.name}=javascript:]`);
    }
  }
  return found;
}
"""

# A control image that fails to load like the corpus's <img src=x>: once its
# onerror fired, an onerror kept in the widget would have fired too.
_CONTROL_JS = """
() => new Promise((resolve) => {
  const img = document.createElement('img');
  img.onerror = () => { img.remove(); resolve(true); };
  img.src = 'x-control-' + Math.random();
  document.body.appendChild(img);
})
"""


def test_hostile_model_text_runs_nothing(flows: LabPage) -> None:
    chat = show_chat(flows)
    flows.page.evaluate("() => { delete window.__xss; }")
    send_from_ui(chat, "xss <img src=x onerror=\"window.__xss='user'\"> please")
    card = tool_card(chat, "ask_user")
    expect(card.locator(".gu-human-input")).to_be_visible(timeout=LONG_WAIT)
    expect(reply_text(chat)).to_contain_text("End of the corpus.")
    for summary in chat.locator("details summary").all():
        summary.click()  # open reasoning and tool details so they render too

    flows.page.evaluate(_CONTROL_JS)
    assert flows.page.evaluate("() => window.__xss") is None
    assert chat.evaluate(_DANGER_JS) == []
    expect(messages(chat, "user")).to_contain_text("onerror")  # shown as text, not markup


def test_widget_follows_the_lab_theme_light_and_dark(flows: LabPage, screenshots: Path) -> None:
    chat = show_chat(flows)
    send_from_ui(chat, "Please tidy up the warehouse")
    expect(tool_card(chat, "drop_table").locator("button.gu-approve")).to_be_visible(
        timeout=LONG_WAIT
    )
    table = chat.locator('.gu-component[data-component="Table"] table')
    expect(table).to_contain_text("staging_tmp")
    # the table stands as itself (no "Called show_component_Table" card)
    table_card = tool_card(chat, "show_component_Table")
    expect(table_card.locator(".gu-tool-head")).to_be_hidden()
    assert "show_component_Table" not in chat.inner_text()
    # numbers with thousands separators, right-aligned under a right-aligned header
    expect(table.locator("td.gu-num").first).to_have_text(f"{120433:,}")
    rows_header = table.get_by_role("columnheader", name="rows", exact=True)
    assert rows_header.evaluate("(el) => getComputedStyle(el).textAlign") == "right"
    background = "(el) => getComputedStyle(el).backgroundColor + ' ' + getComputedStyle(el).color"
    chat.screenshot(path=screenshots / "approval-light.png")
    light = chat.evaluate(background)
    try:
        flows.set_theme("JupyterLab Dark")
        dark = chat.evaluate(background)
        chat.screenshot(path=screenshots / "approval-dark.png")
    finally:
        flows.set_theme("JupyterLab Light")  # the theme is a saved setting: restore it
    assert dark != light, "the widget ignores JupyterLab's theme"


def test_a_failing_cell_fails_the_harness_call(flows: LabPage) -> None:
    with pytest.raises(CellError, match="ZeroDivisionError"):
        flows.run_code("1 / 0")
    assert flows.run_json("{'answer': 6 * 7}") == {"answer": 42}


# --- the keyboard ----------------------------------------------------------------

_WATCH_KEY_JS = """
() => {
  window.__guKeyTarget = null;
  const seen = () => { window.__guKeyTarget = document.activeElement.className; };
  document.addEventListener("keydown", seen, { capture: true, once: true });
}
"""
_KEY_TARGET_AND_LAB_MODE_JS = """
() => [window.__guKeyTarget, window.jupyterapp.shell.currentWidget.content.mode]
"""


def test_enter_sends_and_shift_enter_adds_a_line(flows: LabPage) -> None:
    chat = show_chat(flows)
    cells = flows.cell_count()
    box = chat.get_by_role("textbox", name="Message")
    box.click()
    flows.page.keyboard.type("first line")
    flows.page.keyboard.press("Shift+Enter")
    flows.page.keyboard.type("second line")

    expect(box).to_have_value("first line\nsecond line")
    # Shift+Enter stayed in the box: JupyterLab ran no cell, the kernel got nothing
    assert flows.cell_count() == cells
    assert flows.run_json("len(chat.thread.messages)") == 0

    box.press("Enter")
    expect(box).to_have_value("")
    expect(reply_text(chat)).to_contain_text("Hello from the scripted model", timeout=LONG_WAIT)
    assert flows.run_json("[m.text for m in chat.thread.messages if m.role == 'user']") == [
        "first line\nsecond line"
    ]
    expect(chat.get_by_role("button", name="Send message")).to_be_enabled()


def test_every_control_is_named_and_reached_with_tab(flows: LabPage) -> None:
    """Keyboard only: Retry a failed reply, pick a suggestion, approve the call it asks."""
    page = flows.page
    chat = show_chat(flows, "suggestions=True")
    box = chat.get_by_role("textbox", name="Message")
    box.focus()
    page.keyboard.type("a flaky request")
    page.keyboard.press("Enter")

    retry = chat.get_by_role("button", name="Retry", exact=True)
    expect(retry).to_be_visible(timeout=LONG_WAIT)
    tab_to(chat, retry)
    page.evaluate(_WATCH_KEY_JS)
    page.keyboard.press("Enter")
    # the key activated the button; JupyterLab did not take it (edit mode on the cell).
    # The focus is read as the key went down: the retried reply may re-render at once.
    assert page.evaluate(_KEY_TARGET_AND_LAB_MODE_JS) == ["gu-retry", "command"]
    expect(reply_text(chat)).to_contain_text("Recovered answer.", timeout=LONG_WAIT)

    chip = chat.get_by_role("button", name="Drop the sales table", exact=True)
    expect(chip).to_be_visible(timeout=LONG_WAIT)
    expect(chat.get_by_role("group", name="Suggested follow-ups")).to_be_visible()
    stops = tab_to(chat, chip)
    assert "Ask me something" in stops  # the first chip comes before it
    page.keyboard.press("Enter")

    card = tool_card(chat, "drop_table")
    approval = card.get_by_role("group", name="Approve drop_table?")
    expect(approval).to_be_visible(timeout=LONG_WAIT)
    approve = approval.get_by_role("button", name="Approve", exact=True)
    for control in (
        approval.get_by_role("textbox", name="Arguments for drop_table"),
        approval.get_by_role("button", name="Always allow", exact=True),
        approval.get_by_role("textbox", name="Reason for rejecting drop_table"),
        approval.get_by_role("button", name="Reject", exact=True),
        chat.get_by_role("textbox", name="Message"),
    ):
        expect(control).to_be_visible()
        tab_to(chat, control)
    assert flows.run_json("RUNS") == []  # (runs a cell: the focus moves to the notebook)
    stops = tab_to(chat, approve)
    assert "Arguments for drop_table" in stops
    page.keyboard.press("Enter")

    expect(reply_text(chat).last).to_contain_text("Tool said: dropped sales", timeout=LONG_WAIT)
    assert flows.run_json("RUNS") == ["sales"]
    users = flows.run_json("[m.text for m in chat.thread.messages if m.role == 'user']")
    assert users == ["a flaky request", "Drop the sales table"]


def test_stop_is_named_and_reached_with_tab_while_streaming(flows: LabPage) -> None:
    chat = show_chat(flows)
    flows.run_code("GATE.clear()")
    chat.get_by_role("textbox", name="Message").fill("write something long")
    chat.get_by_role("textbox", name="Message").press("Enter")
    expect(reply_text(chat)).to_contain_text("Word99", timeout=LONG_WAIT)

    stop = chat.get_by_role("button", name="Stop the run")
    tab_to(chat, stop)
    flows.page.keyboard.press("Enter")
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)
    flows.run_code("GATE.set()")
    assert flows.run_json("chat.thread.messages[-1].status.reason") == "cancelled"


def _drop_calls(lab: LabPage) -> Any:
    return lab.run_json(
        "[{'args': p.args, 'approval': p.approval and p.approval.status,"
        " 'result': p.result} for m in chat.thread.messages if m.role == 'assistant'"
        " for p in m.tool_calls]"
    )


def test_edited_arguments_are_the_ones_the_tool_runs_with(flows: LabPage) -> None:
    chat, card = ask_to_drop(flows)
    editor = card.get_by_role("textbox", name="Arguments for drop_table")
    assert json.loads(editor.input_value()) == {"name": "sales"}
    editor.fill('{"name": "archive"}')
    card.get_by_role("button", name="Approve", exact=True).click()

    expect(reply_text(chat)).to_contain_text("Tool said: dropped archive", timeout=LONG_WAIT)
    assert flows.run_json("RUNS") == ["archive"]
    assert _drop_calls(flows) == [
        {"args": {"name": "archive"}, "approval": "approved", "result": "dropped archive"}
    ]
    card.locator("summary", has_text="Details").click()
    # arguments and result alike: a code block under a heading
    # (the Log heading waits hidden for a server's log lines)
    expect(card.locator(".gu-tool-label:visible")).to_have_text(["Arguments", "Result"])
    expect(card.locator(".gu-tool-args pre code")).to_contain_text("archive")
    expect(card.locator(".gu-tool-args .hljs-attr")).to_have_text('"name"')
    expect(card.locator(".gu-tool-result pre code")).to_have_text("dropped archive")
    sent = flows.run_json("MODELS[-1].requests[-1].messages[-1]")
    assert sent["role"] == "tool" and sent["content"] == "dropped archive"


@pytest.mark.parametrize(
    ("edited", "notice"),
    [
        ('{"name": "archive",', "not a valid JSON object"),
        ('{"name": 5}', "edited arguments rejected"),
    ],
    ids=["broken-json", "wrong-type"],
)
def test_bad_edited_arguments_show_a_notice_and_run_nothing(
    flows: LabPage,
    edited: str,
    notice: str,
) -> None:
    chat, card = ask_to_drop(flows)
    editor = card.get_by_role("textbox", name="Arguments for drop_table")
    editor.fill(edited)
    card.get_by_role("button", name="Approve", exact=True).click()

    expect(chat.get_by_role("alert").filter(has_text=notice)).to_be_visible(timeout=LONG_WAIT)
    card.get_by_role("button", name="Always allow", exact=True).click()  # refused the same way
    expect(chat.get_by_role("alert").filter(has_text=notice)).to_be_visible(timeout=LONG_WAIT)
    # still waiting, the edit kept so the user can fix it
    expect(chat).to_have_attribute("data-phase", "waiting")
    expect(editor).to_have_value(edited)
    assert flows.run_json("RUNS") == []
    assert _drop_calls(flows) == [
        {"args": {"name": "sales"}, "approval": "pending", "result": None}
    ]

    editor.fill('{"name": "archive"}')
    card.get_by_role("button", name="Approve", exact=True).click()
    expect(reply_text(chat)).to_contain_text("Tool said: dropped archive", timeout=LONG_WAIT)
    expect(chat.locator(".gu-notice")).to_be_hidden()
    assert flows.run_json("RUNS") == ["archive"]
