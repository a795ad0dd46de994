"""MCP tasks in real JupyterLab and Chromium, against the reference server
(``@modelcontextprotocol/server-everything``, tests/peers): its task-only
``simulate-research-query`` called by a scripted model. The card follows the
task's stages, shows "Waiting for your answer" while the server's question
(a form of that call) waits, and the report arrives once it is answered;
Stop ends a task under way and the chat takes the next message.

Screenshots of the working card, light, dark and in a 500 px window, go to
``docs/screenshots/`` with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, shared_notebook
from .test_server_requests import SETUP_CELLS, shoot
from .widget import assistant, send_from_ui, tool_card

EVERYTHING = REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        shutil.which("node") is None or not EVERYTHING.exists(),
        reason="needs Node and tests/peers installed (make installs them)",
    ),
]

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
RESEARCH = "simulate-research-query"
CHAT = f"""
def task_reply(request):
    if request.messages and request.messages[-1].get("role") == "tool":
        return ScriptedReply(text="The research is in.")
    text = last_user_text(request) or ""
    topic = "python" if "python" in text else "tides"
    arguments = {{"topic": topic, "ambiguous": topic == "python"}}
    return ScriptedReply(tool_calls=[ScriptedCall({RESEARCH!r}, arguments)])


task_tools = gu.MCPTools.stdio("node", [{str(EVERYTHING)!r}, "stdio"], requires_approval=False)
chat = gu.Chat(model=ScriptedModel(task_reply), tools=[task_tools])
display(chat)
"""


@pytest.fixture(scope="module")
def tasks_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/server_requests.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, tasks_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [tasks_page])
    tasks_page.keep_cells(SETUP_CELLS)
    return tasks_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code(CHAT)
    return lab.chat(before)


def test_a_task_shows_its_stages_asks_on_its_card_and_ends_with_its_report(
    page: LabPage, screenshots: Path
) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "research python")
    card = tool_card(chat, RESEARCH)
    status = card.locator(".gu-tool-status")
    expect(status).to_contain_text("Working: ", timeout=LONG_WAIT)
    form = tool_card(chat, "mcp_elicitation").locator("form.gu-c-form")
    expect(form).to_be_visible(timeout=LONG_WAIT)
    expect(status).to_contain_text(
        'Waiting for your answer: Found multiple interpretations for "python"'
    )
    shoot(page, card, screenshots, "task-waiting")
    form.locator('[data-field="interpretation"]').select_option("snake")
    form.locator("button.gu-c-form-submit").click()
    expect(assistant(chat)).to_contain_text("The research is in.", timeout=LONG_WAIT)
    said = page.run_json("chat.thread.last_assistant.tool_calls[0].result")
    assert said.startswith("# Research Report: python (snake)"), said


def test_stop_ends_a_task_under_way_and_the_chat_goes_on(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "research the tides")
    card = tool_card(chat, RESEARCH)
    expect(card.locator(".gu-tool-status")).to_contain_text("Working: ", timeout=LONG_WAIT)
    chat.locator("button.gu-stop").click()
    expect(assistant(chat)).to_have_attribute("data-status", "incomplete", timeout=LONG_WAIT)
    expect(chat.locator("button.gu-send")).to_be_enabled()
    said = page.run_json("chat.thread.last_assistant.status.model_dump()")
    assert said["reason"] == "cancelled", said
    send_from_ui(chat, "research python")  # the next message runs as usual
    expect(tool_card(chat, "mcp_elicitation").locator("form")).to_be_visible(timeout=LONG_WAIT)
