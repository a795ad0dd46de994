"""Conversation controls end to end, in real JupyterLab and Chromium: edit a
sent message from its action bar, the branch picker, regenerate, thumbs, copy
of a code block (the clipboard read back), the thread menu with starters,
"Jump to latest" while a reply streams, and Esc / Up in the composer.

The tests share one page and kernel on ``e2e/flows.ipynb`` (its scripted
model, see the notebook's setup cell), as ``test_flows.py`` does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, messages, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2  # markdown intro + setup code in flows.ipynb
CODE_REPLY = "Here it is:\n\n```python\nprint(42)\n```\n\nAnd another:\n\n```\nx = 1\n```\n"


@pytest.fixture(scope="module")
def lab_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/flows.ipynb") as lab:
        # The copy buttons write to the clipboard; the test reads it back.
        lab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab_server.url)
        lab.run_code(f"REPLIES['codeblock'] = {CODE_REPLY!r}")
        yield lab


@pytest.fixture
def lab(request: pytest.FixtureRequest, lab_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [lab_page])
    lab_page.run_code("MODELS.clear()\nGATE.set()")
    lab_page.keep_cells(SETUP_CELLS)
    return lab_page


# Chat arguments that save its threads to a new folder: the header shows the
# thread controls (a chat of one unsaved thread has none).
SAVED = "persist=__import__('tempfile').mkdtemp() + '/'"


# The thread's content height now; then its lowest on every change from now on.
_WATCH_HEIGHT_JS = """
(el) => {
  const height = () => [...el.children].reduce((sum, c) => sum + c.offsetHeight, 0);
  el.__guLowest = height();
  const low = () => { el.__guLowest = Math.min(el.__guLowest, height()); };
  el.__guObserver = new MutationObserver(low);
  const all = {subtree: true, childList: true, characterData: true, attributes: true};
  el.__guObserver.observe(el, all);
  return el.__guLowest;
}
"""


def show_chat(lab: LabPage, arguments: str = "") -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({arguments})\ndisplay(chat)")
    return lab.chat(before)


def ask(chat: Locator, text: str) -> None:
    """Send ``text`` and wait for its reply to finish."""
    count = messages(chat, "assistant").count()
    send_from_ui(chat, text)
    expect(messages(chat, "assistant")).to_have_count(count + 1, timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)


def user_texts(lab: LabPage) -> list[str]:
    result: list[str] = lab.run_json("[m.text for m in chat.thread.messages if m.role == 'user']")
    return result


def test_edit_from_the_action_bar_makes_a_branch_the_picker_moves_between(lab: LabPage) -> None:
    chat = show_chat(lab)
    ask(chat, "first question")
    ask(chat, "second question")
    second = messages(chat, "user").nth(1)
    second.hover()
    second.get_by_role("button", name="Edit message").click()
    box = second.get_by_role("textbox", name="Edit your message")
    expect(box).to_have_value("second question")
    box.fill("second question, edited")
    box.press("Enter")

    edited = messages(chat, "user").nth(1)
    expect(edited.locator(".gu-text")).to_have_text("second question, edited", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(chat.get_by_role("textbox", name="Edit your message")).to_have_count(0)
    picker = edited.locator(".gu-branch-picker")
    expect(picker).to_contain_text("2 / 2")
    assert user_texts(lab) == ["first question", "second question, edited"]
    # the model was sent the active branch only
    asked = lab.run_json(
        "[m.get('content') for m in MODELS[-1].requests[-1].messages if m.get('role') == 'user']"
    )
    assert asked == ["first question", "second question, edited"]

    picker.get_by_role("button", name="Previous version").click()
    back = messages(chat, "user").nth(1)
    expect(back.locator(".gu-text")).to_have_text("second question", timeout=LONG_WAIT)
    expect(back.locator(".gu-branch-picker")).to_contain_text("1 / 2")
    expect(messages(chat)).to_have_count(4)
    assert user_texts(lab) == ["first question", "second question"]
    back.locator(".gu-branch-picker").get_by_role("button", name="Next version").click()
    expect(messages(chat, "user").nth(1).locator(".gu-text")).to_have_text(
        "second question, edited", timeout=LONG_WAIT
    )


@pytest.mark.parametrize("arguments", ["", SAVED], ids=["unsaved", "saved"])
def test_regenerate_keeps_the_thread_s_height(lab: LabPage, arguments: str) -> None:
    chat = show_chat(lab, arguments)
    ask(chat, "hello there")
    reply = assistant(chat)
    reply.hover()
    thread = chat.locator(".gu-thread")
    before = thread.evaluate(_WATCH_HEIGHT_JS)
    reply.get_by_role("button", name="Regenerate reply").click()
    expect(assistant(chat).locator(".gu-branch-picker")).to_contain_text("2 / 2", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    # the old reply left and the new one streamed in its place: the thread never shrank
    lowest = thread.evaluate("(el) => { el.__guObserver.disconnect(); return el.__guLowest; }")
    assert lowest >= before - 2, (before, lowest)


def test_regenerate_makes_a_new_version_and_thumbs_rate_it(lab: LabPage) -> None:
    chat = show_chat(lab, SAVED)  # a saved chat: its header has the download
    ask(chat, "hello there")
    reply = assistant(chat)
    reply.hover()
    reply.get_by_role("button", name="Regenerate reply").click()
    expect(assistant(chat).locator(".gu-branch-picker")).to_contain_text("2 / 2", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert lab.run_json("len(chat.thread.branches(chat.thread.messages[-1].id))") == 2

    good = assistant(chat).get_by_role("button", name="Good reply")
    good.click()
    expect(good).to_have_attribute("aria-pressed", "true", timeout=LONG_WAIT)
    rows = lab.run_json("[(r['message_id'], r['rating']) for r in chat.thread.feedback()]")
    assert rows == [[lab.run_json("chat.thread.messages[-1].id"), "up"]]
    bad = assistant(chat).get_by_role("button", name="Bad reply")
    bad.click()
    expect(bad).to_have_attribute("aria-pressed", "true", timeout=LONG_WAIT)
    expect(good).to_have_attribute("aria-pressed", "false")
    assert lab.run_json("[r['rating'] for r in chat.thread.feedback()]") == ["down"]

    # the transcript: what chat.to_markdown() gives, as a file named after the thread
    with lab.page.expect_download() as download:
        chat.get_by_role("button", name="Download transcript").click()
    assert download.value.suggested_filename == "hello-there.md"
    saved = Path(download.value.path()).read_text("utf-8")
    assert saved == lab.run_json("chat.to_markdown()")


def test_copy_code_block_puts_the_code_on_the_clipboard(lab: LabPage) -> None:
    chat = show_chat(lab)
    expect(chat.locator(".gu-thread-menu")).to_be_hidden()  # one unsaved thread: no controls
    ask(chat, "a codeblock please")
    buttons = assistant(chat).get_by_role("button", name="Copy code")
    expect(buttons).to_have_count(2)
    for block in assistant(chat).locator(".gu-code-block").all():  # Copy covers no code
        copy, code = (
            block.locator("button.gu-copy-code").bounding_box(),
            block.locator("pre").bounding_box(),
        )
        assert copy and code and copy["y"] + copy["height"] <= code["y"] + 1, (copy, code)
    second = buttons.nth(1)
    second.click()
    # a visible confirmation on the button pressed
    expect(assistant(chat).locator("button.gu-copy-code").nth(1)).to_have_text("Copied")
    assert lab.page.evaluate("navigator.clipboard.readText()") == "x = 1"
    buttons.nth(0).click()
    expect(assistant(chat).locator("button.gu-copy-code").nth(0)).to_have_text("Copied")
    assert lab.page.evaluate("navigator.clipboard.readText()") == "print(42)"
    # and the whole message, as markdown
    assistant(chat).get_by_role("button", name="Copy message").click()
    copied = lab.page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("Here it is:") and "```python\nprint(42)\n```" in copied


def test_thread_menu_lists_switches_renames_and_starts_threads(lab: LabPage) -> None:
    chat = show_chat(lab, f"starters=['Say hello', 'Write something long'], {SAVED}")
    starters = chat.get_by_role("group", name="Conversation starters")
    expect(starters.get_by_role("button")).to_have_text(["Say hello", "Write something long"])
    starters.get_by_role("button", name="Say hello").click()
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    first_id = lab.run_json("chat.thread.id")

    chat.get_by_role("button", name="New thread").click()
    expect(messages(chat)).to_have_count(0, timeout=LONG_WAIT)
    menu = chat.get_by_role("button", name=re.compile(r"^Thread: "))  # a listbox, not a <select>
    options = chat.locator(".gu-thread-list [role=option]")  # read while the list is closed
    expect(options).to_have_count(2)
    expect(starters).to_be_visible()  # an empty thread offers its starters again
    ask(chat, "a question in the new thread")
    expect(options.nth(1)).to_have_text("a question in the new thread", timeout=LONG_WAIT)

    menu.click()
    options.nth(0).click()
    expect(messages(chat, "user").locator(".gu-text")).to_have_text(
        ["Say hello"], timeout=LONG_WAIT
    )
    assert lab.run_json("chat.thread.id") == first_id

    chat.get_by_role("button", name="Rename thread").click()
    title = chat.get_by_role("textbox", name="Thread title")
    expect(title).to_have_value("Say hello")
    title.fill("Greetings")
    title.press("Enter")
    expect(options.nth(0)).to_have_text("Greetings", timeout=LONG_WAIT)
    assert lab.run_json("[t.title for t in chat.threads]") == [
        "Greetings",
        "a question in the new thread",
    ]


def test_jump_to_latest_shows_when_scrolled_up_while_a_reply_streams(lab: LabPage) -> None:
    chat = show_chat(lab, "height='120px'")  # little room: the reply overflows
    log = chat.get_by_role("log", name="Conversation")
    lab.run_code("GATE.clear()")
    send_from_ui(chat, "write something long")
    expect(assistant(chat).locator(".gu-text")).to_contain_text("Word99", timeout=LONG_WAIT)
    jump = chat.get_by_role("button", name="Jump to latest")
    expect(jump).to_be_hidden()  # following the stream

    log.evaluate("(el) => { el.scrollTop = 0; }")
    expect(jump).to_be_visible()
    jump.click()
    expect(jump).to_be_hidden()
    at_end = "(el) => el.scrollHeight - el.scrollTop - el.clientHeight < 48"
    assert log.evaluate(at_end)

    lab.run_code("GATE.set()")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    assert log.evaluate(at_end)  # it followed the rest of the stream
    log.evaluate("(el) => { el.scrollTop = 0; }")
    lab.page.wait_for_timeout(100)  # nothing to wait for: the reply ended
    expect(jump).to_be_hidden()


def test_esc_leaves_the_composer_for_command_mode_and_up_edits_the_last_message(
    lab: LabPage,
) -> None:
    chat = show_chat(lab)
    ask(chat, "something to edit")
    box = chat.get_by_role("textbox", name="Message")
    box.click()
    lab.page.keyboard.press("ArrowUp")  # empty box: edit the last user message
    editor = chat.get_by_role("textbox", name="Edit your message")
    expect(editor).to_be_focused()
    expect(editor).to_have_value("something to edit")
    lab.page.keyboard.press("Escape")  # closes the editor, the message unchanged
    expect(editor).to_have_count(0)

    box.click()
    lab.page.keyboard.type("a draft")
    cells = lab.cell_count()
    lab.page.keyboard.press("Escape")
    expect(box).not_to_be_focused()
    mode = lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.content.mode")
    assert mode == "command"
    lab.page.keyboard.press("b")  # a command-mode key: insert a cell below
    lab.page.wait_for_function(
        "(n) => window.jupyterapp.shell.currentWidget.content.model.cells.length === n",
        arg=cells + 1,
    )
    expect(box).to_have_value("a draft")  # the draft stays in the box
