"""Numbers in forms, in real JupyterLab and Chromium: a ``number`` field takes
a decimal and an ``integer`` field only whole numbers, in an MCP server's
form request and in ``gu.Form`` alike, and the kernel gets a number back.

Chromium refuses 95.5 in an ``<input type=number>`` without a ``step`` ("The
two nearest valid values are 95 and 96") and will not submit the form. One
page and kernel on ``e2e/form_numbers.ipynb`` (a scripted model; the form
request comes from ``raw_form`` of tests/mcp_asking_server.py over stdio).
A light screenshot of each form goes to the ``screenshots`` folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2
ASKING = REPO / "tests" / "mcp_asking_server.py"
# The defaults of the MCP conformance scenario elicitation-sep1034-client-defaults
SEP1034 = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30, "minimum": 0, "maximum": 150},
        "score": {"type": "number", "default": 95.5, "minimum": 0, "maximum": 100},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
    },
}
FIELDS = [
    {"name": "score", "type": "number", "minimum": 0, "maximum": 100},
    {"name": "guests", "type": "integer", "minimum": 1},
]


@pytest.fixture(scope="module")
def numbers_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/form_numbers.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, numbers_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [numbers_page])
    numbers_page.keep_cells(SETUP_CELLS)
    return numbers_page


def show_chat(lab: LabPage) -> Locator:
    before = lab.chats().count()
    lab.run_code(
        f"SCHEMA = {SEP1034!r}\nFIELDS = {FIELDS!r}\n"
        f"chat = make_chat({str(ASKING)!r})\ndisplay(chat)"
    )
    return lab.chat(before)


def type_into(field: Locator, text: str) -> None:
    field.fill("")
    field.press_sequentially(text)


def step_mismatch(field: Locator) -> bool:
    return bool(field.evaluate("(el) => el.validity.stepMismatch"))


def test_a_decimal_goes_to_the_server_from_its_form(page: LabPage, screenshots: Path) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "ask the server")
    card = tool_card(chat, "mcp_elicitation")
    form = card.locator("form.gu-c-form")
    expect(form).to_be_visible(timeout=LONG_WAIT)
    score, age = form.locator('[data-field="score"]'), form.locator('[data-field="age"]')
    expect(score).to_have_value("95.5")  # the schema's default, accepted as it is
    assert not step_mismatch(score)
    type_into(score, "95.5")
    type_into(age, "30.5")
    assert step_mismatch(age)  # an integer takes whole numbers only
    type_into(age, "31")
    card.scroll_into_view_if_needed()
    card.screenshot(path=screenshots / "form-numbers-request-light-1280.png")
    form.locator("button.gu-c-form-submit").click()
    expect(assistant(chat)).to_contain_text("Got it.", timeout=LONG_WAIT)
    said = page.run_json("chat.thread.last_assistant.tool_calls[0].result['result']")
    action, _, content = said.partition(" ")
    assert action == "accept", said
    assert json.loads(content) == {
        "age": 31,
        "name": "John Doe",
        "score": 95.5,
        "status": "active",
        "verified": True,
    }


def test_a_decimal_reaches_the_kernel_from_gu_form(page: LabPage, screenshots: Path) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show the form")
    form = chat.locator('.gu-component[data-component="Form"] form')
    expect(form).to_be_visible(timeout=LONG_WAIT)
    expect(assistant(chat)).to_contain_text("Got it.", timeout=LONG_WAIT)
    score, guests = form.locator('[data-field="score"]'), form.locator('[data-field="guests"]')
    type_into(score, "95.5")
    type_into(guests, "2.5")
    assert step_mismatch(guests)
    type_into(guests, "3")
    form.scroll_into_view_if_needed()
    form.screenshot(path=screenshots / "form-numbers-component-light-1280.png")
    form.locator("button.gu-c-form-submit").click()
    expect(form.locator(".gu-c-form-done")).to_have_text("Sent as your message.")
    expect(assistant(chat)).to_contain_text("Thanks.", timeout=LONG_WAIT)
    state = page.run_json(
        "[c.component_state for m in chat.thread.messages for c in m.tool_calls"
        " if c.tool_name == 'show_component_Form'][0]"
    )
    assert state == {"values": {"score": 95.5, "guests": 3}, "submitted": True}
