"""Issue 6 end to end: components render while their props stream in.

One page and kernel on ``e2e/components.ipynb`` (scripted model, built-in,
custom JS and matplotlib components; a local OpenAI-compatible server for the
Form round trip). Each test displays a fresh chat, acts in the browser, and
checks the DOM and the kernel (or what the model server received).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure
from .widget import assistant, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2


@pytest.fixture(scope="module")
def components_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    lab = LabPage(lab_server, browser)
    try:
        lab.open("e2e/components.ipynb")
        lab.run_all()
        yield lab
    finally:
        lab.close()
        lab_server.shutdown_kernels()


@pytest.fixture
def page(
    request: pytest.FixtureRequest, components_page: LabPage, lab_server: LabServer
) -> LabPage:
    report_on_failure(request, lab_server, [components_page])
    components_page.run_code("GATE.set()\nRENDERS.clear()")
    components_page.keep_cells(SETUP_CELLS)
    return components_page


def show_chat(lab: LabPage, factory: str = "make_chat") -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = {factory}()\ndisplay(chat)")
    return lab.chat(before)


def slot(chat: Locator, name: str) -> Locator:
    return chat.locator(f'.gu-component[data-component="{name}"]')


def test_table_appears_while_its_rows_stream_then_settles(page: LabPage) -> None:
    chat = show_chat(page)
    page.run_code("GATE.clear()")  # hold the stream after row M
    send_from_ui(chat, "show the table")
    table = slot(chat, "Table")
    expect(table).to_contain_text("Row-M", timeout=LONG_WAIT)
    # intermediate state: the component is on screen, its props still streaming
    expect(table).to_have_attribute("data-status", "streaming")
    expect(table).not_to_contain_text("Row-Z")
    assert 0 < table.locator("tbody tr").count() < 26
    card = chat.locator('.gu-tool-call[data-tool-name="show_component_Table"]')
    expect(card).not_to_have_attribute("data-status", "done")

    page.run_code("GATE.set()")
    expect(table).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(table.locator("tbody tr")).to_have_count(26)
    expect(table.locator("caption")).to_have_text("Letters")
    table.locator("th", has_text="name").click()
    table.locator("th", has_text="name").click()  # descending
    expect(table.locator("tbody tr").first).to_contain_text("Row-Z")
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    shown = page.run_json("[(s.name, len(s.props.rows)) for s in chat.shown_components()]")
    assert shown == [["Table", 26]]
    # the chat is bounded by default: its thread scrolls inside it, the chat stays short
    thread = chat.locator(".gu-thread")
    assert thread.evaluate("(el) => getComputedStyle(el).overflowY") == "auto"
    assert chat.evaluate("(el) => el.getBoundingClientRect().height") <= 641
    # numbers: right-aligned under a right-aligned header
    n_header = table.get_by_role("columnheader", name="n", exact=True)
    assert n_header.evaluate("(el) => getComputedStyle(el).textAlign") == "right"
    assert table.locator("td.gu-num").first.evaluate("(el) => getComputedStyle(el).textAlign") == (
        "right"
    )


def test_python_matplotlib_component_updates_in_place(page: LabPage) -> None:
    chat = show_chat(page)
    page.run_code("GATE.clear()")  # hold after six of sixteen values
    send_from_ui(chat, "plot it")
    plot = slot(chat, "Plot")
    partial = plot.locator('.gu-component-body[data-final="false"] img')
    expect(partial).to_be_visible(timeout=LONG_WAIT)
    first_src = partial.get_attribute("src")
    assert first_src and first_src.startswith("data:image/png;base64,")
    plot.evaluate("(el) => { window.__guPlotSlot = el; }")

    page.run_code("GATE.set()")
    final = plot.locator('.gu-component-body[data-final="true"] img')
    expect(final).to_be_visible(timeout=LONG_WAIT)
    assert final.get_attribute("src") != first_src
    expect(plot.locator("img")).to_have_count(1)
    same = plot.evaluate("(el) => el === window.__guPlotSlot && el.isConnected")
    assert same, "the plot was redrawn in a new slot, not updated in place"
    renders = page.run_json("RENDERS")
    assert renders[-1] == 16 and min(renders) < 16, renders


_LOOK_JS = """(el) => {
  const s = getComputedStyle(el);
  return [s.backgroundColor, s.borderTopColor, s.borderTopStyle, s.color];
}"""


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return box


def test_form_edit_reaches_the_next_model_request(page: LabPage) -> None:
    chat = show_chat(page, "make_form_chat")
    send_from_ui(chat, "plan a trip")
    form = slot(chat, "Form")
    city = form.locator('input[data-field="city"]')
    expect(city).to_be_visible(timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    # the form's own look: an accent Submit (as Send), text and number inputs
    # alike, the checkbox beside its label
    submit = form.locator("button.gu-c-form-submit")
    send_bg = chat.locator("button.gu-send").evaluate(
        "(el) => getComputedStyle(el).backgroundColor"
    )
    assert submit.evaluate("(el) => getComputedStyle(el).backgroundColor") == send_bg
    nights = form.locator('input[data-field="nights"]')
    assert city.evaluate(_LOOK_JS) == nights.evaluate(_LOOK_JS)
    check = _box(form.locator('input[data-field="breakfast"]'))
    label = _box(form.locator("label", has_text="Breakfast"))
    assert check["x"] + check["width"] <= label["x"], (check, label)
    middle = check["y"] + check["height"] / 2
    assert label["y"] <= middle <= label["y"] + label["height"], (check, label)
    city.fill("Lima")
    form.locator("button.gu-c-form-submit").click()
    # Submit sends: the values go as the user's message, and the model answers
    expect(form.locator(".gu-c-form-done")).to_have_text("Sent as your message.")
    expect(assistant(chat)).to_contain_text("Thanks.", timeout=LONG_WAIT)
    state = page.run_json("chat.thread.messages[1].tool_calls[0].component_state")
    assert state == {"values": {"city": "Lima"}, "submitted": True}
    request = page.run_json("SERVER.requests[-1]")
    user = request["messages"][-1]
    assert user["role"] == "user" and user["content"].startswith("Submitted the form “Trip”")
    assert "- City: Lima" in user["content"]
    assert "<component_state" in user["content"] and '"city": "Lima"' in user["content"]


def test_invalid_props_show_an_error_state_and_the_model_calls_again(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show invalid weather")
    bad = chat.locator('.gu-component[data-component="Weather"][data-status="error"]')
    expect(bad).to_contain_text("temperature", timeout=LONG_WAIT)
    good = chat.locator('.gu-component[data-component="Weather"][data-status="complete"]')
    expect(good.locator(".weather")).to_have_text("Oslo 21", timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    request = page.run_json("MODELS[-1].requests[1].messages[-1]")
    assert request["role"] == "tool" and "temperature" in request["content"]

    # a JS component that throws: an error box in its slot, and the thread goes on
    send_from_ui(chat, "fragile")
    fragile = slot(chat, "Fragile")
    expect(fragile.locator(".gu-component-mount .gu-component-error")).to_have_text(
        "Fragile failed: kaboom 7", timeout=LONG_WAIT
    )
    expect(assistant(chat)).to_contain_text("Shown.", timeout=LONG_WAIT)
    send_from_ui(chat, "table please")
    expect(slot(chat, "Table").locator("tbody tr")).to_have_count(26, timeout=LONG_WAIT)


def test_two_components_of_one_parallel_turn_both_render(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "parallel")
    message = assistant(chat)
    expect(message.locator(".gu-component")).to_have_count(2, timeout=LONG_WAIT)
    expect(slot(chat, "Weather").locator(".weather")).to_have_text("Lima 19", timeout=LONG_WAIT)
    expect(slot(chat, "Metric").locator(".gu-c-metric")).to_have_count(2)
    expect(slot(chat, "Metric")).to_contain_text("Revenue")
    # the browser renders streaming props; the kernel lists a component once its call settled
    expect(message).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    names = page.run_json("[s.name for s in chat.shown_components()]")
    assert names == ["Weather", "Metric"]


def test_a_component_stands_as_itself_and_its_markdown_tables_have_rules(page: LabPage) -> None:
    chat = show_chat(page)
    send_from_ui(chat, "show notes")
    notes = slot(chat, "Markdown")
    expect(notes.locator("td", has_text="Cusco")).to_be_visible(timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    card = chat.locator('.gu-tool-call[data-tool-name="show_component_Markdown"]')
    # no grey card, no "Called show_component_Markdown": the component, its details folded
    expect(card.locator(".gu-tool-head")).to_be_hidden()
    assert "show_component_Markdown" not in chat.inner_text()  # what the user sees
    look = card.evaluate(
        "(el) => [getComputedStyle(el).borderTopStyle, getComputedStyle(el).backgroundColor]"
    )
    assert look == ["none", "rgba(0, 0, 0, 0)"], look
    assert card.locator("details.gu-tool-details").evaluate("(el) => el.open") is False
    cell = notes.locator("td", has_text="Cusco")
    assert cell.evaluate("(el) => getComputedStyle(el).borderBottomStyle") == "solid"


_DISTANCE_FROM_BOTTOM_JS = "(el) => el.scrollHeight - el.scrollTop - el.clientHeight"


def test_a_fixed_height_thread_keeps_the_newest_content_in_view(page: LabPage) -> None:
    chat = show_chat(page, "(lambda: make_chat(height='14rem'))")
    thread = chat.locator(".gu-thread")
    send_from_ui(chat, "table please")
    expect(slot(chat, "Table").locator("tbody tr")).to_have_count(26, timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    # a Python component: its final image arrives after the reply's last render
    send_from_ui(chat, "plot it")
    final = slot(chat, "Plot").locator('.gu-component-body[data-final="true"] img')
    expect(final).to_be_visible(timeout=LONG_WAIT)
    expect(assistant(chat)).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    final.evaluate("(img) => img.decode()")
    assert thread.evaluate("(el) => el.scrollHeight > el.clientHeight")
    page.page.wait_for_function(
        f"(el) => ({_DISTANCE_FROM_BOTTOM_JS})(el) <= 48", arg=thread.element_handle()
    )
    assert thread.evaluate(_DISTANCE_FROM_BOTTOM_JS) <= 48


DATA_SETUP = '''
import numpy as np
import pandas as pd
from ipygenui.testing import ScriptedCall, ScriptedModel

ORDERS = pd.DataFrame({
    "order": np.arange(500),
    "region": [f"r{i % 7}" for i in range(500)],
    "amount": [float((i * 37) % 1000) for i in range(500)],
})


@gu.tool
def query_orders() -> pd.DataFrame:
    """All orders."""
    return ORDERS


def make_data_chat():
    SERVER.requests.clear()
    SERVER.script(
        Reply.calls(ToolCall("query_orders", {}, id="q1")),
        Reply.calls(ToolCall("show_component_Table", {"data": "df_1"}, id="t1")),
        Reply.text_reply("Shown."),
    )
    model = gu.OpenAIModel("test-model", base_url=SERVER.base_url, api_key="test")
    return gu.Chat(model=model, tools=[query_orders], components=[gu.Table])


BIG = pd.DataFrame({"n": np.arange(200_000), "k": (np.arange(200_000) * 7919) % 200_003})


def make_big_chat():
    model = ScriptedModel([ScriptedCall("show_component_Table", {"data": "big"}), "ok"])
    return gu.Chat(model=model, components=[gu.Table], data={"big": BIG})
'''


def test_a_tool_result_is_shown_by_reference_with_every_row_from_the_kernel(
    page: LabPage,
) -> None:
    page.run_code(DATA_SETUP)
    chat = show_chat(page, "make_data_chat")
    send_from_ui(chat, "orders please")
    expect(assistant(chat)).to_contain_text("Shown.", timeout=LONG_WAIT)
    summary = page.run_json("_j.loads(SERVER.requests[1]['messages'][-1]['content'])")
    assert summary["ref"] == "df_1" and summary["shape"] == [500, 3]
    assert page.run_json("_j.dumps(SERVER.requests[1]).count('\"order\"')") <= 60
    assert page.run_json("SERVER.requests[1]['messages'][-2]['tool_calls'][0]['id']") == "q1"

    table = slot(chat, "Table")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(500, timeout=LONG_WAIT)  # every row came from the kernel
    expect(rows.first.locator("td").first).to_have_text("0")
    amount = table.locator("th", has_text="amount")
    amount.click()
    amount.click()  # descending
    expect(amount).to_have_attribute("aria-sort", "descending")
    top = page.run_json("int(ORDERS.sort_values('amount', ascending=False).iloc[0]['order'])")
    expect(rows.first.locator("td").first).to_have_text(str(top))
    assert page.run_json("chat.thread.messages[-1].tool_calls[0].value is ORDERS") is True


def test_a_large_table_scrolls_and_sorts_in_windows_from_the_kernel(page: LabPage) -> None:
    page.run_code(DATA_SETUP)
    chat = show_chat(page, "make_big_chat")
    send_from_ui(chat, "show the big one")
    table = slot(chat, "Table")
    mount = table.locator(".gu-component-body")
    expect(mount).to_have_attribute("data-total-rows", "200000", timeout=LONG_WAIT)
    assert table.locator("tbody tr[data-row]").count() < 100  # only the rows in view
    scroller = table.locator(".gu-c-table-scroll")
    # 200,000 rows of 26 px pass 4,000,000 px: the scroll range is scaled (table-paged.js)
    scroller.evaluate(
        "el => { el.scrollTop = Math.ceil(100000 * 26 / ((200000 * 26 - 420) / (4e6 - 420))); }"
    )
    # amounts with the reader's separators, as in a table held in the browser
    expect(table.locator('tbody tr[data-row="100000"] td').first).to_have_text(
        "100,000", timeout=LONG_WAIT
    )
    table.locator("th", has_text="k").click()  # ascending, sorted by the kernel
    expect(mount).to_have_attribute("data-sort", "k")
    smallest = page.run_json("int(BIG.sort_values('k', kind='stable').iloc[0]['n'])")
    expect(table.locator('tbody tr[data-row="0"] td').first).to_have_text(
        f"{smallest:,}", timeout=LONG_WAIT
    )
